/**
 * Stopping: SIGTERM to the process the user started stops the server whichever way it was
 * started (`deno task start`, or under `npx`, which dies on SIGTERM without passing it on): its
 * port is freed within a bound. Ctrl-C (SIGINT) stops it the same way, finishing the requests under
 * way (issue 35 item 6). On the embedded defaults the README's `deno task start` runs (PGlite
 * under DATA_DIR, the in-process bus) in the embedded run (LEFT_TO_EMBEDDED_RUN); the first stop
 * on real servers (Postgres and NATS) in a run naming them.
 */
import assert from "node:assert/strict";
import {
  LEFT_TO_EMBEDDED_RUN,
  OPERATOR_TOKEN,
  REAL_SERVERS,
  type Server,
  startOnStores,
  type StartOptions,
} from "../helpers/server_process.ts";
import { removeSeed, seededDataDir } from "../helpers/seeded_data_dir.ts";

/** A bound well above a clean stop (under a second) and well below a hang. */
const STOP_MS_MAX = 20_000;

function portFree(port: number): boolean {
  try {
    const l = Deno.listen({ hostname: "127.0.0.1", port });
    l.close();
    return true;
  } catch {
    return false;
  }
}

async function waitFree(port: number): Promise<boolean> {
  const deadline = Date.now() + STOP_MS_MAX;
  while (Date.now() < deadline) {
    if (portFree(port)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

// The stops start on a copy of a folder a first start made (seeded_data_dir.ts): their subject is
// the stop, and a first start migrates live and sandbox from nothing (start_test.ts covers it).
globalThis.addEventListener("unload", removeSeed);

/** The server on the embedded defaults, whatever the test's environment names. */
function startEmbedded(dataDir: string, options: StartOptions = {}): Promise<Server> {
  return startOnStores(dataDir, { ...options, embedded: true }, ["live", "sandbox"]);
}

const ways = [["task", "SIGTERM"], ["wrapped-task", "SIGTERM"], ["task", "SIGINT"]] as const;
for (const [how, signal] of ways) {
  const started = how === "task" ? "deno task start" : "a wrapper such as npx";
  Deno.test({
    name: `start: ${signal} to ${started} stops the server and frees its port`,
    ignore: LEFT_TO_EMBEDDED_RUN,
    fn: async () => {
      const dataDir = await seededDataDir((dir) => startEmbedded(dir));
      await stopsAndFrees(dataDir, await startEmbedded(dataDir, { how }), signal);
    },
  });
}

Deno.test({
  name: "start: SIGTERM to deno task start on DATABASE_URL and NATS_URL stops the server and " +
    "frees its port",
  ignore: !REAL_SERVERS,
  fn: async () => {
    const dataDir = await Deno.makeTempDir();
    const server = await startOnStores(dataDir, { how: "task" }, []);
    await stopsAndFrees(dataDir, server, "SIGTERM");
  },
});

/** `signal` to the server frees its port and ends its answers within STOP_MS_MAX. */
async function stopsAndFrees(dataDir: string, server: Server, signal: Deno.Signal) {
  try {
    server.child.kill(signal);
    assert.equal(await waitFree(server.livePort), true, "the live port is still taken");
    const answered = await fetch(`${server.live}/health`).then(async (r) => {
      await r.body?.cancel();
      return true;
    }, () => false);
    assert.equal(answered, false, `the server still answers after ${signal}`);
  } finally {
    await server.stop();
    await Deno.remove(dataDir, { recursive: true });
  }
}

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.test({
    name: `stop: a request under way when ${signal} comes is answered, then the server exits`,
    ignore: LEFT_TO_EMBEDDED_RUN,
    fn: async () => {
      const dataDir = await seededDataDir((dir) => startEmbedded(dir));
      const server = await startEmbedded(dataDir);
      try {
        // A body the test is still sending: the request is under way until the test ends it.
        let sendRest!: () => void;
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            const json = JSON.stringify({
              name: "Late Courier",
              plan: "business",
              currency: "BWP",
              country: "BW",
              owner_email: "owner@late.example.com",
            });
            const half = Math.floor(json.length / 2);
            controller.enqueue(new TextEncoder().encode(json.slice(0, half)));
            sendRest = () => {
              controller.enqueue(new TextEncoder().encode(json.slice(half)));
              controller.close();
            };
          },
        });
        const answer = fetch(`${server.live}/api/operator/businesses`, {
          method: "POST",
          headers: {
            "Content-Type": "application/json",
            Authorization: `Bearer ${OPERATOR_TOKEN}`,
          },
          body,
        });
        // The signal once the server is answering it (before, it would be no request under way).
        assert.equal(
          await untilUnderWay(server.live),
          true,
          "the request never reached the server",
        );
        server.child.kill(signal);
        const turnedAway = await stoppingAnswer(server.live);
        sendRest();
        const r = await answer;
        const created = await r.json();
        assert.equal(r.status, 201, JSON.stringify(created));
        assert.match(created.data.id, /\S/);
        // New requests were turned away while the one under way was still being sent.
        assert.deepEqual(turnedAway, { status: 503, code: "service_stopping" });
        const status = await server.child.status;
        assert.equal(status.code, 0);
      } finally {
        await server.stop();
        await Deno.remove(dataDir, { recursive: true });
      }
    },
  });
}

/**
 * The answer `/health` gives once the stop has begun (503 `service_stopping` while requests under
 * way finish, src/http/draining.ts; `refused` once the port is closed), or null if it has not
 * within STOP_MS_MAX.
 */
async function stoppingAnswer(
  base: string,
): Promise<{ status: number; code: unknown } | "refused" | null> {
  const deadline = Date.now() + STOP_MS_MAX;
  while (Date.now() < deadline) {
    const r = await fetch(`${base}/health`).catch(() => null);
    if (r === null) return "refused";
    if (r.status !== 200) return { status: r.status, code: (await r.json()).code };
    await r?.body?.cancel();
    await new Promise((r) => setTimeout(r, 50));
  }
  return null;
}

/** Whether the server reports a request under way besides the scrape asking, within STOP_MS_MAX. */
async function untilUnderWay(base: string): Promise<boolean> {
  const deadline = Date.now() + STOP_MS_MAX;
  while (Date.now() < deadline) {
    const r = await fetch(`${base}/api/metrics`, {
      headers: { Authorization: `Bearer ${OPERATOR_TOKEN}` },
    });
    const line = (await r.text()).split("\n").find((l) => l.startsWith("http_requests_in_flight "));
    if (Number(line?.split(" ")[1]) >= 2) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}
