/**
 * The composition root: reads config, opens live and sandbox, serves each on its port
 * (CONTRACT "Running"). `deno task start`.
 */
import { actorStoreUrl, leasedSettingsOf, readConfig } from "./config.ts";
import { openBus } from "./bus/mod.ts";
import { ManualClock, SystemClock } from "./runtime/clock.ts";
import { type OpenEnvironment, openEnvironment } from "./server.ts";
import type { EnvironmentName, SandboxTwins } from "./environment.ts";
import { sandboxTwinsOf } from "./business/flows/sandbox_credentials.ts";
import { loadDataKey, loadOperatorTokenHash } from "./secrets_store.ts";
import type { UndocumentedRefusal } from "./http/refusals.ts";
import { createLogger, stdoutDestination } from "./observe/log.ts";
import { watchLauncher } from "./launcher.ts";
import { Draining } from "./http/draining.ts";
import { keepServing } from "./http/keep_serving.ts";

let serving = false;
let stopAsked = false;
// Before anything slow, so a launcher stopped while the stores open is seen (launcher.ts).
const stopWatch = await watchLauncher(() => void requestStop());
const config = readConfig();
const stdout = stdoutDestination();
const log = createLogger(config.LOG_LEVEL, stdout);
await Deno.mkdir(config.DATA_DIR, { recursive: true });
if (config.ALLOW_LOOPBACK_WEBHOOKS) {
  console.warn("WARNING: ALLOW_LOOPBACK_WEBHOOKS=1 lets webhooks reach 127.0.0.1 (tests only)");
}
if (config.STRICT_REFUSALS) {
  console.warn("WARNING: STRICT_REFUSALS=1 answers undocumented refusals with 500 (tests only)");
}
const clock = config.CLOCK === "manual" ? new ManualClock(Date.now()) : new SystemClock();
const bus = await openBus(config.NATS_URL);
const operatorTokenHash = await loadOperatorTokenHash(config.DATA_DIR, config.OPERATOR_TOKEN);
const dataKey = await loadDataKey(config.DATA_DIR, config.SECRETS_KEY);

// The sandbox opens first: live reaches it through the twins port (Business API 4.4 credentials).
const environments: [EnvironmentName, number][] = [];
if (config.SANDBOX_PORT !== 0) environments.push(["sandbox", config.SANDBOX_PORT]);
environments.push(["live", config.PORT]);
let sandboxTwins: SandboxTwins | undefined;

const storeUrl = actorStoreUrl(config);
// One name for both environments: each leases the partitions of its own store.
const leased = leasedSettingsOf(config, Deno.hostname());
const opened: OpenEnvironment[] = [];
const servers: { shutdown(): Promise<void> }[] = [];
const draining = new Draining();
for (const [name, port] of environments) {
  const dir = `${config.DATA_DIR}/${name}`;
  await Deno.mkdir(dir, { recursive: true });
  const o = await openEnvironment({
    name,
    kvPath: `${dir}/kv.sqlite`,
    ...(storeUrl ? { actorStoreUrl: storeUrl } : {}),
    forwardWaitMs: config.FORWARD_WAIT_MS,
    ...(config.DATABASE_URL ? { databaseUrl: config.DATABASE_URL } : { pgliteDir: `${dir}/pg` }),
    schema: name === "live" ? "public" : "sandbox",
    bus,
    clock,
    dataKey,
    operatorTokenHash,
    allowLoopbackWebhooks: config.ALLOW_LOOPBACK_WEBHOOKS,
    log,
    ...(leased ? { leased } : {}),
    ...publicUrlOf(name),
    listenUrl: ownUrlOf(port),
    ...(name === "live" && sandboxTwins ? { sandboxTwins } : {}),
    ...(config.STRICT_REFUSALS
      ? {
        undocumentedRefusal: (u: UndocumentedRefusal) =>
          console.error(`${name}: ${u.route} answered ${u.status} ${u.code}, undocumented`),
      }
      : {}),
  });
  opened.push(o);
  if (name === "sandbox") sandboxTwins = sandboxTwinsOf(o.env, baseUrlOf(name, port));
  const handler = draining.serve(o.app.fetch, name, o.env);
  servers.push(keepServing(() =>
    Deno.serve({
      port,
      hostname: config.HOST,
      // On standard error: standard output is the log stream, one JSON object a line.
      onListen: ({ hostname, port }) => console.error(`${name}: http://${hostname}:${port}/api`),
    }, handler), { log, name }));
}

function publicUrlOf(name: EnvironmentName): { publicUrl?: string } {
  const url = name === "live" ? config.PUBLIC_URL : config.SANDBOX_PUBLIC_URL;
  return url === undefined ? {} : { publicUrl: url };
}

/** The `/api` base handed to integrators: the public URL, else this machine's address. */
function baseUrlOf(name: EnvironmentName, port: number): string {
  return `${publicUrlOf(name).publicUrl ?? ownUrlOf(port)}/api`;
}

/** This machine's address for one environment's port. */
function ownUrlOf(port: number): string {
  const host = config.HOST === "0.0.0.0" ? "localhost" : config.HOST;
  return `http://${host}:${port}`;
}

let stopping = false;

/** Stops now when serving; when still opening, once opened (the stores are never cut mid-way). */
function requestStop(): Promise<void> | undefined {
  stopAsked = true;
  return serving ? shutdown() : undefined;
}

/** Stops serving (requests under way are answered first), then closes the stores and the bus. */
async function shutdown(): Promise<void> {
  if (stopping) return;
  stopping = true;
  stopWatch();
  // Before shutdown(), which cuts the bodies still being received (src/http/draining.ts).
  await draining.drain();
  await Promise.all(servers.map((s) => s.shutdown()));
  // Live first: it reaches the sandbox through the twins port, never the other way.
  for (const o of [...opened].reverse()) await o.close();
  await bus.drain();
  stdout.flush();
  Deno.exit(0);
}
Deno.addSignalListener("SIGINT", requestStop);
Deno.addSignalListener("SIGTERM", requestStop);
serving = true;
if (stopAsked) await shutdown();
