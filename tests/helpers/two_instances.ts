/** Two test environments of one deployment: one store, database and bus, counters shared. */
import { openTestEnv, type TestEnv } from "./test_env.ts";

/**
 * Runs `before` on an instance whose store is the file `kvPath`, then `after` on a second
 * instance of its deployment started only then, with what `before` made; closes both.
 */
export async function thenAnotherInstance<T>(
  before: (first: TestEnv, kvPath: string) => Promise<T>,
  after: (second: TestEnv, made: T) => Promise<void>,
  options: { readonly sharedRateLimits?: boolean } = {},
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "two_instances_" });
  const kvPath = `${dir}/kv.sqlite3`;
  const first = await openTestEnv({ kvPath, ...options });
  try {
    const made = await before(first, kvPath);
    const second = await openTestEnv({ alongside: first });
    try {
      await after(second, made);
    } finally {
      await second.close();
    }
  } finally {
    await first.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Runs `fn` on two instances of one deployment, both on the manual clock's same start. */
export function withTwoInstances(fn: (a: TestEnv, b: TestEnv) => Promise<void>): Promise<void> {
  return thenAnotherInstance((a) => Promise.resolve(a), (b, a) => fn(a, b), {
    sharedRateLimits: true,
  });
}
