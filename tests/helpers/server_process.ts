/**
 * The server as a user starts it, in a child process on free ports: `deno run src/main.ts`, or
 * `deno task start` as the README says, or under a wrapper process standing in for `npx` (which
 * dies on SIGTERM without passing it on).
 */
import assert from "node:assert/strict";
import type { Answer, CallOptions, CreatedBusiness, TestEnv } from "./test_env.ts";

export const OPERATOR_TOKEN = "op_e2e_operator_token_0123456789";
/** Opening both environments' embedded stores; far longer on a machine shared with others. */
const STARTUP_MS_MAX = 240_000;

export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

export interface Server {
  readonly live: string;
  readonly sandbox: string;
  readonly livePort: number;
  readonly child: Deno.ChildProcess;
  /** The last of what it wrote (its log and its stderr), for a failure's message. */
  output(): string;
  /** The last of its standard output alone: the log stream, one JSON object a line. */
  logs(): string;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** How it is started: `run` (default) `deno run src/main.ts`, `task` `deno task start`. */
  readonly how?: "run" | "task" | "wrapped-task";
  /** More settings (environment variables). */
  readonly env?: Record<string, string>;
  /**
   * The embedded defaults (Deno KV file, PGlite under DATA_DIR, in-process bus) whatever the
   * test's own environment sets: DATABASE_URL and NATS_URL are not handed down.
   */
  readonly embedded?: boolean;
}

/** What a server wrote last, bounded (OUTPUT_TAIL_BYTES), its streams read to their end. */
class OutputTail {
  #chunks: string[] = [];
  #bytes = 0;

  async drain(stream: ReadableStream<Uint8Array>): Promise<void> {
    try {
      for await (const chunk of stream.pipeThrough(new TextDecoderStream())) this.#keep(chunk);
    } catch { /* the process ended mid-read */ }
  }

  text(): string {
    return this.#chunks.join("");
  }

  #keep(chunk: string): void {
    this.#chunks.push(chunk);
    this.#bytes += chunk.length;
    while (this.#bytes > OUTPUT_TAIL_BYTES && this.#chunks.length > 1) {
      this.#bytes -= this.#chunks.shift()!.length;
    }
  }
}

/** What a server's output is kept of: enough for the errors before a failure. */
const OUTPUT_TAIL_BYTES = 64 * 1024;

/** The repository's root, where `deno task start` is run. */
const ROOT = new URL("../../", import.meta.url).pathname;

/** A process that runs `deno task start` and, like `npm exec`, dies on SIGTERM alone. */
const WRAPPER = `
const child = new Deno.Command(Deno.execPath(), { args: ["task", "start"], cwd: Deno.args[0] })
  .spawn();
await child.status;
`;

export async function startServer(dataDir: string, options: StartOptions = {}): Promise<Server> {
  const livePort = freePort();
  const sandboxPort = freePort();
  const env: Record<string, string> = {
    PORT: String(livePort),
    SANDBOX_PORT: String(sandboxPort),
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    OPERATOR_TOKEN,
    // Every refusal answered must be one the OpenAPI document lists (route.ts strict mode).
    STRICT_REFUSALS: "1",
    ...options.env,
  };
  // A child inherits the test's environment: on the embedded defaults it is given all of it but
  // the two servers' addresses, and nothing else (clearEnv below).
  const inherited = options.embedded ? Deno.env.toObject() : {};
  delete inherited.DATABASE_URL;
  delete inherited.NATS_URL;
  const databaseUrl = options.env?.DATABASE_URL ?? Deno.env.get("DATABASE_URL");
  const natsUrl = options.env?.NATS_URL ?? Deno.env.get("NATS_URL");
  if (databaseUrl && !options.embedded) env.DATABASE_URL = databaseUrl;
  if (natsUrl && !options.embedded) env.NATS_URL = natsUrl;
  const how = options.how ?? "run";
  // `npm exec` marks what it runs with npm_command (src/launcher.ts watches such a launch).
  if (how === "wrapped-task") env.npm_command = "exec";
  const args = how === "run"
    ? ["run", "--allow-all", "src/main.ts"]
    : how === "task"
    ? ["task", "start"]
    : ["eval", WRAPPER, ROOT];
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    env: { ...inherited, ...env },
    clearEnv: options.embedded === true,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // Read as it comes: a pipe nobody reads fills (64 KiB) and blocks the server's next write.
  const tail = new OutputTail();
  const logs = new OutputTail();
  const [out, forTail] = child.stdout.tee();
  const drained = Promise.all([tail.drain(forTail), logs.drain(out), tail.drain(child.stderr)]);
  const live = `http://127.0.0.1:${livePort}`;
  const sandbox = `http://127.0.0.1:${sandboxPort}`;
  const deadline = Date.now() + STARTUP_MS_MAX;
  // SANDBOX_PORT 0: no sandbox is served (src/main.ts).
  for (const base of options.env?.SANDBOX_PORT === "0" ? [live] : [live, sandbox]) {
    while (true) {
      try {
        const r = await fetch(`${base}/health`);
        await r.body?.cancel();
        if (r.ok) break;
      } catch { /* not listening yet */ }
      if (Date.now() > deadline) {
        // SIGTERM, which `deno task` passes on (SIGKILL would leave the server behind it running).
        child.kill("SIGTERM");
        await child.status;
        await drained;
        assert.fail(`server did not start: ${tail.text().slice(-2000)}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    live,
    sandbox,
    livePort,
    child,
    output: () => tail.text(),
    logs: () => logs.text(),
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch { /* already ended */ }
      await child.status;
      await drained;
    },
  };
}

/**
 * The server started with `options`, checked to run on the stores meant: `pglite` the environments
 * whose query side is then PGlite under DATA_DIR, as on the embedded defaults (none on
 * DATABASE_URL). A server on other stores is stopped and the check fails.
 */
export async function startOnStores(
  dataDir: string,
  options: StartOptions,
  pglite: readonly string[],
): Promise<Server> {
  const server = await startServer(dataDir, options);
  try {
    assert.deepEqual(await pgliteEnvironments(dataDir), pglite, "not on the stores meant");
  } catch (e) {
    await server.stop();
    throw e;
  }
  return server;
}

/** The environments whose query side is PGlite under DATA_DIR (`<DATA_DIR>/<name>/pg`, main.ts). */
async function pgliteEnvironments(dataDir: string): Promise<string[]> {
  const found: string[] = [];
  for (const name of ["live", "sandbox"]) {
    try {
      if ((await Deno.stat(`${dataDir}/${name}/pg`)).isDirectory) found.push(name);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
  }
  return found;
}

/** Whether the test's environment names real servers (Postgres and NATS) to run a server on. */
export const REAL_SERVERS = Deno.env.has("DATABASE_URL") && Deno.env.has("NATS_URL");

/**
 * Whether tests of a server on the embedded defaults are left to the embedded run: such a server
 * is started so whatever the run names (the child is handed no DATABASE_URL or NATS_URL), and in
 * a run on the real servers each test would repeat the embedded run's exactly. CI runs both; on
 * a machine with Node.js alone only the embedded one, where these are the README's own start.
 */
export const LEFT_TO_EMBEDDED_RUN = REAL_SERVERS;

/**
 * The in-process env's `call` and `createBusiness` (test_env.ts) over HTTP to a server's `base`,
 * so the setup helpers (courier.ts) build what they build on a server process too.
 */
export function httpCaller(base: string): Pick<TestEnv, "call" | "createBusiness"> {
  const call = async (method: string, path: string, o: CallOptions = {}): Promise<Answer> => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.body !== undefined) headers["Content-Type"] = "application/json";
    if (o.key) headers["X-Business-API-Key"] = o.key;
    if (o.bearer) headers["Authorization"] = `Bearer ${o.bearer}`;
    if (o.operator) headers["Authorization"] = `Bearer ${OPERATOR_TOKEN}`;
    const res = await fetch(`${base}/api${path}`, {
      method,
      headers,
      ...(o.body === undefined ? {} : { body: JSON.stringify(o.body) }),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
  };
  return {
    call,
    async createBusiness(overrides = {}) {
      const r = await call("POST", "/operator/businesses", {
        operator: true,
        body: {
          name: "Kgalagadi Couriers",
          plan: "business",
          currency: "BWP",
          country: "BW",
          owner_email: `owner.${crypto.randomUUID()}@example.com`,
          ...overrides,
        },
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return r.body.data as CreatedBusiness;
    },
  };
}
