/**
 * One environment for a bench part that drives the app in process: its own KV file, a fresh query
 * schema, the in-process bus, the system clock and an operator token; closed and removed after.
 */
import { openBus } from "../src/bus/mod.ts";
import { hashSecret, importDataKey } from "../src/domain/secrets.ts";
import type { EnvironmentName } from "../src/environment.ts";
import { silentLogger } from "../src/observe/log.ts";
import { SystemClock } from "../src/runtime/clock.ts";
import { openEnvironment } from "../src/server.ts";

export type BenchEnvironment = Awaited<ReturnType<typeof openEnvironment>>;

/** The operator token every in-process bench environment accepts. */
export const BENCH_OPERATOR = "op_bench_operator_token_0123456789";

/** Runs `work` on a new environment named `name`, then closes it and removes its files. */
export async function withBenchEnvironment<T>(
  name: EnvironmentName,
  work: (o: BenchEnvironment) => Promise<T>,
): Promise<T> {
  const dir = await Deno.makeTempDir();
  const bus = await openBus(undefined);
  const o = await openEnvironment({
    name,
    kvPath: `${dir}/kv.sqlite`,
    schema: `bench_${crypto.randomUUID().slice(0, 8)}`,
    bus,
    clock: new SystemClock(),
    dataKey: await importDataKey(crypto.getRandomValues(new Uint8Array(32))),
    operatorTokenHash: await hashSecret(BENCH_OPERATOR),
    allowLoopbackWebhooks: false,
    log: silentLogger(),
  });
  try {
    return await work(o);
  } finally {
    await o.close();
    await bus.drain();
    await Deno.remove(dir, { recursive: true });
  }
}
