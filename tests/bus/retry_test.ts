/**
 * Bounded retries inside a bus delivery (src/bus/retry.ts): work that fails for a moment is done
 * before the message counts handled, so `flush` (and the runtime's recovery markers) wait for it;
 * work that keeps failing gives up after the policy's waits; a key being retried holds up only
 * its own later messages.
 */
import assert from "node:assert/strict";
import type { BusMessage } from "../../src/bus/bus.ts";
import { KeyedHandler } from "../../src/bus/keyed.ts";
import { MemoryBus } from "../../src/bus/memory_bus.ts";
import { HANDLER_RETRY, retried, RetriesExhausted } from "../../src/bus/retry.ts";
import { HANDLER_RETRY_DELAYS_MS } from "../../src/limits.ts";

const NO_WAIT = { delaysMs: [0, 0, 0] };

function failingTimes(n: number) {
  let calls = 0;
  return {
    work: () => {
      calls++;
      return calls <= n ? Promise.reject(new Error(`down ${calls}`)) : Promise.resolve(calls);
    },
    calls: () => calls,
  };
}

Deno.test("retried() answers the first success after failures", async () => {
  const f = failingTimes(2);
  assert.equal(await retried(f.work, NO_WAIT), 3);
  assert.equal(f.calls(), 3);
});

Deno.test("retried() gives up after one try per wait, with the last failure as the cause", async () => {
  const f = failingTimes(Infinity);
  const error = await retried(f.work, NO_WAIT).then(() => null, (e) => e);
  assert.ok(error instanceof RetriesExhausted);
  assert.equal(error.attempts, 4);
  assert.equal((error.cause as Error).message, "down 4");
  assert.equal(f.calls(), 4);
});

Deno.test("retried(): the default policy is bounded and short", () => {
  assert.equal(HANDLER_RETRY.delaysMs, HANDLER_RETRY_DELAYS_MS);
  const total = HANDLER_RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
  assert.ok(total <= 10_000, `a lasting failure holds a flush ${total} ms at most`);
});

Deno.test("retried() in a keyed subscription: flush waits for the retries; other keys go on", async () => {
  const bus = new MemoryBus();
  const done: string[] = [];
  const errors: string[] = [];
  const gate = Promise.withResolvers<void>();
  let aTries = 0;
  const handler = new KeyedHandler(async (m: BusMessage) => {
    const { id, n } = m.payload as { id: string; n: number };
    const name = `${id}#${n}`;
    try {
      await retried(async () => {
        // a#1 fails, then its retry waits for the gate: b's message must not wait for it.
        if (name === "a#1" && ++aTries === 1) throw new Error("for a moment");
        if (name === "a#1") await gate.promise;
        if (name === "c#1") throw new Error("for good");
        done.push(name);
      }, NO_WAIT);
    } catch (e) {
      errors.push(`${name}: ${(e as Error).message}`);
    }
  });
  bus.subscribe("live.*.shipment.*", handler.handle, { pipelined: true });
  const publish = (id: string, n: number) =>
    bus.publish(`live.t.shipment.${id}`, { tenant: "t", id, n });
  await publish("a", 1);
  await publish("a", 2);
  await publish("b", 1);
  await publish("c", 1);
  const flushed = bus.flush();
  let settled = false;
  void flushed.then(() => settled = true);
  for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(done, ["b#1"], "a#2 waits behind a#1's retry; b is not held up by it");
  assert.deepEqual(errors, ["c#1: failed 4 times, last: for good"]);
  assert.equal(settled, false, "the flush waits for a#1");
  gate.resolve();
  await flushed;
  assert.deepEqual(done, ["b#1", "a#1", "a#2"]);
  await handler.close();
  await bus.drain();
});
