/**
 * `deno task start` as a user runs it: live and sandbox on their own ports, with their own KV
 * files, schemas and keys; a key of one is refused by the other; state survives a restart. As the
 * README runs it, on the embedded defaults (PGlite under DATA_DIR, the in-process bus) in the
 * embedded run (LEFT_TO_EMBEDDED_RUN); and on the real servers in a run naming them (each
 * environment its own schema of one Postgres, one NATS).
 */
import assert from "node:assert/strict";
import {
  LEFT_TO_EMBEDDED_RUN,
  OPERATOR_TOKEN,
  REAL_SERVERS,
  startOnStores,
  type StartOptions,
} from "../helpers/server_process.ts";

async function call(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
) {
  const r = await fetch(`${base}/api${path}`, {
    method,
    headers: { ...headers, ...(body ? { "Content-Type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: r.status, headers: r.headers, body: await r.json() };
}

const operator = { Authorization: `Bearer ${OPERATOR_TOKEN}` };

function newBusiness(email: string) {
  return {
    name: "E2E Couriers",
    plan: "business",
    currency: "BWP",
    country: "BW",
    owner_email: email,
  };
}

Deno.test({
  name: "start: on the embedded defaults live and sandbox are separate environments and refuse " +
    "each other's keys",
  ignore: LEFT_TO_EMBEDDED_RUN,
  fn: () => liveAndSandboxApart({ how: "task", embedded: true }, ["live", "sandbox"]),
});

Deno.test({
  name: "start: on DATABASE_URL and NATS_URL live and sandbox are separate environments and " +
    "refuse each other's keys",
  ignore: !REAL_SERVERS,
  fn: () => liveAndSandboxApart({ how: "task" }, []),
});

/**
 * Started with `options`, live and sandbox apart, and still so after a restart; `pglite` the
 * environments whose query side is PGlite under DATA_DIR, as the settings make it.
 */
async function liveAndSandboxApart(options: StartOptions, pglite: string[]) {
  const dataDir = await Deno.makeTempDir();
  const suffix = crypto.randomUUID().slice(0, 8);
  const start = (dir: string) => startOnStores(dir, options, pglite);
  let server = await start(dataDir);
  try {
    const live = await call(
      server.live,
      "POST",
      "/operator/businesses",
      operator,
      newBusiness(`l${suffix}@e2e.example`),
    );
    const sandbox = await call(
      server.sandbox,
      "POST",
      "/operator/businesses",
      operator,
      newBusiness(`s${suffix}@e2e.example`),
    );
    assert.equal(live.status, 201);
    assert.equal(sandbox.status, 201);
    const liveKey = live.body.data.api_key;
    const sandboxKey = sandbox.body.data.api_key;
    assert.match(liveKey, /^sk_live_/);
    assert.match(sandboxKey, /^sk_sandbox_/);

    const ownLive = await call(server.live, "GET", "/business/profile", {
      "X-Business-API-Key": liveKey,
    });
    assert.equal(ownLive.status, 200);
    // Standard output is the log stream: a JSON object a line, the listening notes elsewhere.
    const lines = server.logs().split("\n").filter((l) => l.trim() !== "");
    assert.ok(lines.length > 0, "no log line on standard output");
    for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), line);
    assert.equal(ownLive.headers.get("X-Service-Environment"), "live");
    const sandboxOnLive = await call(server.live, "GET", "/business/profile", {
      "X-Business-API-Key": sandboxKey,
    });
    assert.equal(sandboxOnLive.status, 401);
    assert.equal(sandboxOnLive.body.code, "sandbox_key_on_live");
    const liveOnSandbox = await call(server.sandbox, "GET", "/business/profile", {
      "X-Business-API-Key": liveKey,
    });
    assert.equal(liveOnSandbox.status, 401);
    assert.equal(liveOnSandbox.body.code, "live_key_on_sandbox");
    // The sandbox does not know the live business at all.
    const cross = await call(
      server.sandbox,
      "GET",
      `/operator/businesses/${live.body.data.id}`,
      operator,
    );
    assert.equal(cross.status, 404);

    // spec: business 4.4: the live key makes its account's sandbox twin through main.ts's port,
    // whose key works on the sandbox base it names.
    const twin = await call(server.live, "POST", "/business/sandbox/credentials", {
      "X-Business-API-Key": liveKey,
    });
    assert.equal(twin.status, 201, JSON.stringify(twin.body));
    assert.match(twin.body.data.api_key, /^sk_sandbox_/);
    assert.equal(twin.body.data.base_url, `${server.sandbox}/api`);
    const twinProfile = await call(server.sandbox, "GET", "/business/profile", {
      "X-Business-API-Key": twin.body.data.api_key,
    });
    assert.equal(twinProfile.status, 200, JSON.stringify(twinProfile.body));
    assert.equal(twinProfile.body.data.id, live.body.data.id);

    // State survives a restart.
    await server.stop();
    server = await start(dataDir);
    const again = await call(server.live, "GET", "/business/profile", {
      "X-Business-API-Key": liveKey,
    });
    assert.equal(again.status, 200);
    assert.equal(again.body.data.id, live.body.data.id);
  } finally {
    await server.stop();
    await Deno.remove(dataDir, { recursive: true });
  }
}
