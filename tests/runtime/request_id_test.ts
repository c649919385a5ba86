import assert from "node:assert/strict";
import type { ActorChange } from "../../src/bus/bus.ts";
import { accept, type ActorDefinition } from "../../src/runtime/actor.ts";
import type { OutboxItem } from "../../src/runtime/store.ts";
import { accountActor, openTestRuntime } from "./fixtures.ts";

const T = "biz_tenant";

Deno.test("runtime: a change names the request its commands were asked for, and no other", async () => {
  const rt = await openTestRuntime();
  const heard: ActorChange[] = [];
  const sub = rt.bus.subscribe("test.*.test_account.*", async (m) => {
    const change = m.payload as ActorChange;
    heard.push(change);
    // A subscriber in process asking on its own is not taken for the request it heard of.
    if (change.id === "a1") {
      await rt.runtime.ask(accountActor, T, "follow", { kind: "append", n: 1 });
    }
  });
  try {
    await rt.runtime.ask(accountActor, T, "a1", { kind: "credit", amount: 5 }, {
      requestId: "req-1",
    });
    await rt.runtime.ask(accountActor, T, "a2", { kind: "credit", amount: 5 });
    const ask = (id: string, n: number, requestId: string) =>
      rt.runtime.ask(accountActor, T, id, { kind: "append", n }, { requestId });
    // The first is decided alone, the two after it together: a batch of two requests names none.
    await Promise.all([
      ask("a3", 1, "req-2"),
      ask("a3", 2, "req-3"),
      ask("a3", 3, "req-5"),
      ask("a4", 1, "req-4"),
      ask("a4", 2, "req-4"),
    ]);
    await rt.bus.flush();
    const named = heard.map((c) => [c.id, c.events.length, c.request_id ?? null]);
    assert.deepEqual(
      named.sort(),
      [
        ["a1", 1, "req-1"],
        ["a2", 1, null],
        ["a3", 1, "req-2"],
        ["a3", 2, null],
        ["a4", 1, "req-4"],
        ["a4", 1, "req-4"],
        ["follow", 1, null],
      ].sort(),
    );
  } finally {
    sub.unsubscribe();
    await rt.close();
  }
});

const NOTES = "test_request_notes";

/** A pad whose every note adds one outbox item. */
const padActor: ActorDefinition<number, { kind: "note" }, { kind: "noted" }, number> = {
  type: "test_pad",
  version: 1,
  initial: 0,
  decide: (_s, c) => c.kind === "note" ? accept([{ kind: "noted" }], (s) => s) : accept([]),
  evolve: (s) => s + 1,
  outbox: (_e, next) => [{ outbox: NOTES, payload: { n: next } }],
};

Deno.test("runtime: an outbox item keeps the request its command was asked for, stored and handed over", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/store.kv`;
  try {
    // Made with no handler (the process dies with them unhandled), then read as a sweep reads.
    const first = await openTestRuntime(path, { definitions: [padActor] });
    await first.runtime.ask(padActor, T, "p1", { kind: "note" }, { requestId: "req-9" });
    await first.runtime.ask(padActor, T, "p1", { kind: "note" });
    const stored = await first.store.outboxItems(NOTES, 10);
    assert.deepEqual(stored.map((i) => [i.seq, i.requestId ?? null]), [[1, "req-9"], [2, null]]);
    await first.close();
    const seen: OutboxItem[] = [];
    const second = await openTestRuntime(path, {
      definitions: [padActor],
      outboxes: { [NOTES]: (item) => Promise.resolve(void seen.push(item)) },
    });
    try {
      await second.runtime.ask(padActor, T, "p2", { kind: "note" }, { requestId: "req-10" });
      await second.runtime.sweepOutboxes();
      assert.deepEqual(
        seen.map((i) => [i.id, i.seq, i.requestId ?? null]).sort(),
        [["p1", 1, "req-9"], ["p1", 2, null], ["p2", 1, "req-10"]],
      );
    } finally {
      await second.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
