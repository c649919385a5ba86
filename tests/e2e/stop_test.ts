/**
 * Stopping: SIGTERM to the process the user started stops the server whichever way it was
 * started (`deno task start`, or under `npx`, which dies on SIGTERM without passing it on): its
 * port is freed within a bound.
 */
import assert from "node:assert/strict";
import { startServer } from "../helpers/server_process.ts";

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

for (const how of ["task", "wrapped-task"] as const) {
  Deno.test(`start: SIGTERM to ${how === "task" ? "deno task start" : "a wrapper such as npx"} stops the server and frees its port`, async () => {
    const dataDir = await Deno.makeTempDir();
    const server = await startServer(dataDir, { how });
    try {
      server.child.kill("SIGTERM");
      assert.equal(await waitFree(server.livePort), true, "the live port is still taken");
      const answered = await fetch(`${server.live}/health`).then(async (r) => {
        await r.body?.cancel();
        return true;
      }, () => false);
      assert.equal(answered, false, "the server still answers after SIGTERM");
    } finally {
      await server.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  });
}
