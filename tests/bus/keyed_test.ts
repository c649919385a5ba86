import assert from "node:assert/strict";
import type { BusMessage } from "../../src/bus/bus.ts";
import { KeyedHandler, subscribeKeyed } from "../../src/bus/keyed.ts";
import type { Deferral } from "../../src/bus/keyed.ts";
import { MemoryBus } from "../../src/bus/memory_bus.ts";

const message = (tenant: string, id: string, n: number): BusMessage => ({
  subject: `live.${tenant}.courier_client.${id}`,
  payload: { tenant, id, n },
});

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setTimeout(r, 0));
};

Deno.test("KeyedHandler: messages of different keys run side by side, one key's in order", async () => {
  const started: string[] = [];
  const finished: string[] = [];
  const gates = new Map<string, PromiseWithResolvers<void>>();
  const handler = new KeyedHandler(async (m) => {
    const { tenant, id, n } = m.payload as { tenant: string; id: string; n: number };
    const name = `${tenant}/${id}#${n}`;
    started.push(name);
    const gate = Promise.withResolvers<void>();
    gates.set(name, gate);
    await gate.promise;
    finished.push(name);
  });
  const done = [
    message("t", "a", 1),
    message("t", "b", 1),
    message("t", "a", 2),
    message("u", "a", 1), // another tenant's actor of the same id is another key
  ].map((m) => handler.handle(m));
  await turns(5);
  assert.deepEqual(started, ["t/a#1", "t/b#1", "u/a#1"], "t/a#2 waits for t/a#1");
  gates.get("t/a#1")!.resolve();
  await turns(5);
  assert.deepEqual(started, ["t/a#1", "t/b#1", "u/a#1", "t/a#2"]);
  for (const g of gates.values()) g.resolve();
  await turns(5);
  for (const g of gates.values()) g.resolve();
  await Promise.all(done);
  assert.equal(finished.length, 4);
  await handler.close();
});

Deno.test("KeyedHandler: at most 256 at once; close drops the waiting and waits for the running", async () => {
  let running = 0;
  let most = 0;
  let ran = 0;
  const gate = Promise.withResolvers<void>();
  const handler = new KeyedHandler(async () => {
    running++;
    most = Math.max(most, running);
    await gate.promise;
    running--;
    ran++;
  });
  const done = Array.from({ length: 300 }, (_, i) => handler.handle(message("t", `c${i}`, 1)));
  await turns(5);
  assert.equal(running, 256);
  const closed = handler.close();
  gate.resolve();
  await closed;
  await Promise.all(done);
  assert.equal(most, 256);
  assert.equal(ran, 256, "the 44 still waiting for a slot were dropped");
});

Deno.test("KeyedHandler: a failed message is answered failed and never takes its key's next one", async () => {
  const ran: number[] = [];
  const handler = new KeyedHandler((m) => {
    const { n } = m.payload as { n: number };
    ran.push(n);
    return n === 1 ? Promise.reject(new Error("one failure")) : Promise.resolve();
  });
  const first = handler.handle(message("t", "a", 1));
  const second = handler.handle(message("t", "a", 2));
  await assert.rejects(first, /one failure/);
  await second;
  assert.deepEqual(ran, [1, 2]);
  await handler.close();
});

Deno.test("subscribeKeyed with a deferral: failed work and what a close leaves waiting (if wanted) are deferred", async () => {
  const bus = new MemoryBus();
  const deferred: { worker: string; n: number; error: string }[] = [];
  const registered = new Map<string, unknown>();
  const deferral: Deferral = {
    register: (worker, run) => void registered.set(worker, run),
    defer(worker, m, error) {
      const { n } = m.payload as { n: number };
      deferred.push({ worker, n, error: error instanceof Error ? error.message : String(error) });
      return Promise.resolve();
    },
  };
  const gate = Promise.withResolvers<void>();
  const run = async (m: BusMessage) => {
    const { n } = m.payload as { n: number };
    if (n === 0) throw new Error("still failing");
    await gate.promise;
  };
  const subscription = subscribeKeyed(bus, "live.>", run, {
    by: deferral,
    worker: "test_worker",
    // Only odd messages are this worker's business: the even ones left waiting are not deferred.
    wants: (m) => (m.payload as { n: number }).n % 2 === 1 || (m.payload as { n: number }).n === 0,
  });
  assert.equal(registered.get("test_worker"), run, "deferred tries run the worker's own work");
  // One that fails (its slot taken by the next), 256 that hold every slot, and 10 waiting.
  for (let n = 0; n < 267; n++) {
    await bus.publish(`live.t.courier_client.c${n}`, { tenant: "t", id: `c${n}`, n });
  }
  await turns(5);
  assert.deepEqual(deferred, [{ worker: "test_worker", n: 0, error: "still failing" }]);
  const closed = subscription.close();
  gate.resolve();
  await closed;
  assert.deepEqual(
    deferred.slice(1).map((d) => d.n).sort((a, b) => a - b),
    Array.from({ length: 10 }, (_, i) => 257 + i).filter((n) => n % 2 === 1),
    "the waiting it wants are deferred, not dropped",
  );
  assert.ok(deferred.slice(1).every((d) => d.error === "stopped before it was handled"));
  await bus.drain();
});
