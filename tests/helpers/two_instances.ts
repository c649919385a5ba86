/** Two test environments of one deployment: one store, database and bus, counters shared. */
import { openTestEnv, type TestEnv } from "./test_env.ts";

/** Runs `fn` on two instances of one deployment, both on the manual clock's same start. */
export async function withTwoInstances(
  fn: (a: TestEnv, b: TestEnv) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "two_instances_" });
  const a = await openTestEnv({ kvPath: `${dir}/kv.sqlite3`, sharedRateLimits: true });
  try {
    const b = await openTestEnv({ alongside: a });
    try {
      await fn(a, b);
    } finally {
      await b.close();
    }
  } finally {
    await a.close();
    await Deno.remove(dir, { recursive: true });
  }
}
