/**
 * src/http/keep_serving.ts: a port whose accept loop ended by itself (EMFILE under a flood of
 * connections) is served again, backing off while serving fails; a stop ends it. Fake servers:
 * running out of file handles is the machine's, not a test's to cause.
 */
import assert from "node:assert/strict";
import {
  keepServing,
  RESTART_MAX_MS,
  RESTART_MS,
  type Server,
} from "../../src/http/keep_serving.ts";
import { createLogger } from "../../src/observe/log.ts";

function fakeServer() {
  let fail!: (e: unknown) => void;
  const finished = new Promise<void>((_, reject) => fail = reject);
  const server = {
    finished,
    shutdowns: 0,
    shutdown: () => (server.shutdowns++, Promise.resolve()),
  };
  return { server, fail };
}

const flush = () => new Promise<void>((r) => setTimeout(r, 0));

Deno.test("keep serving: a port that stopped accepting is served again, backing off while it cannot be; a stop ends it", async () => {
  const lines: string[] = [];
  const log = createLogger("info", { write: (l) => lines.push(l) });
  const made: ReturnType<typeof fakeServer>[] = [];
  let refusals = 2;
  const start = (): Server => {
    if (made.length > 0 && refusals-- > 0) throw new Error("AddrInUse");
    const f = fakeServer();
    made.push(f);
    return f.server;
  };
  const waits: number[] = [];
  const kept = keepServing(start, { log, name: "live", wait: (ms) => (waits.push(ms), flush()) });
  assert.equal(made.length, 1);
  // Before, this rejection went unhandled and ended the process.
  made[0]!.fail(new Error("Http: Error: Too many open files (os error 24)"));
  for (let i = 0; i < 10 && made.length < 2; i++) await flush();
  assert.equal(made.length, 2, "served again");
  assert.deepEqual(waits, [RESTART_MS, RESTART_MS * 2, RESTART_MS * 4]);
  assert.ok(lines.some((l) => l.includes("server_stopped_accepting") && l.includes("os error 24")));
  assert.equal(lines.filter((l) => l.includes("server_restart_failed")).length, 2);
  assert.ok(RESTART_MS * 2 ** 10 > RESTART_MAX_MS, "the backoff is capped");
  // A stop: the current server shut down; its end after the stop starts nothing.
  await kept.shutdown();
  assert.equal(made[1]!.server.shutdowns, 1);
  made[1]!.fail(new Error("ended while stopping"));
  for (let i = 0; i < 5; i++) await flush();
  assert.equal(made.length, 2);
});
