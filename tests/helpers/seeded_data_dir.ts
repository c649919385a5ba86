/**
 * DATA_DIRs as a first start on the embedded defaults leaves them (live and sandbox migrated, the
 * data key made), copied from one made once per test file. For tests whose subject is not the
 * first start (stopping, say): that start runs initdb and every migration twice, and took 28 s
 * on a loaded machine against 7 s for a start on a folder already made.
 */
import { cp } from "node:fs/promises";
import type { Server } from "./server_process.ts";

let seed: Promise<string> | null = null;
/** Where the seed was made, once it is (known synchronously, for removeSeed). */
let made: string | null = null;

/**
 * A new folder holding a copy of the file's seed, which `start` makes on its first call (a server
 * started on an empty folder, then stopped cleanly); the caller removes the copy.
 */
export async function seededDataDir(start: (dir: string) => Promise<Server>): Promise<string> {
  seed ??= makeSeed(start).catch((e) => {
    seed = null;
    throw e;
  });
  const from = await seed;
  const to = await Deno.makeTempDir({ prefix: "seeded_" });
  // Files keep their modes (the data key is 0600).
  await cp(from, to, { recursive: true });
  return to;
}

/** Removes the seed itself (at the file's end: synchronous, as an unload listener must be). */
export function removeSeed(): void {
  if (made !== null) Deno.removeSync(made, { recursive: true });
  made = null;
  seed = null;
}

async function makeSeed(start: (dir: string) => Promise<Server>): Promise<string> {
  const dir = made = await Deno.makeTempDir({ prefix: "seed_" });
  const server = await start(dir);
  // A clean stop (SIGTERM): a start on the folder finds what any server stopped leaves.
  await server.stop();
  const status = await server.child.status;
  if (status.code !== 0) throw new Error(`the seed's server exited ${status.code}`);
  return dir;
}
