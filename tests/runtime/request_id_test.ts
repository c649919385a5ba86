import assert from "node:assert/strict";
import type { ActorChange } from "../../src/bus/bus.ts";
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
