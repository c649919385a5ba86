/**
 * A store read failing inside an actor's turn (the free unique keys looked up before a commit):
 * the commands of the batch are failed and the actor serves the next, as after a failed commit;
 * never left waiting for an answer that no one will give.
 */
import assert from "node:assert/strict";
import type { ActorStore } from "../../src/runtime/store.ts";
import { ActorFailure } from "../../src/runtime/runtime.ts";
import { handleActor, openTestRuntime } from "./fixtures.ts";

const T = "biz_read_errors";

/** The real store, whose next `lookups` index lookups throw, as a store away for a moment. */
function failingLookups(store: ActorStore) {
  const state = { lookups: 0 };
  const wrapped = new Proxy(store, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (name !== "lookup") return typeof value === "function" ? value.bind(target) : value;
      return (index: string, key: string) => {
        if (state.lookups === 0) return target.lookup(index, key);
        state.lookups--;
        return Promise.reject(new Error("store away"));
      };
    },
  });
  return { store: wrapped, state };
}

Deno.test("runtime: a unique key's lookup failing in the turn fails the command (not left unanswered), and the actor serves the next", async () => {
  let failing: ReturnType<typeof failingLookups> | undefined;
  const rt = await openTestRuntime(":memory:", {
    groupCommit: false,
    storeOf: (s) => (failing = failingLookups(s)).store,
  });
  try {
    failing!.state.lookups = 1;
    let answer: unknown = "none";
    rt.runtime.ask(handleActor, T, "h1", { kind: "take", name: "ann" })
      .then((r) => answer = r, (e) => answer = e);
    // Asked while the first is in its turn: its own batch, handled once the first's is done.
    const next = await rt.runtime.ask(handleActor, T, "h1", { kind: "take", name: "ann" });
    assert.ok(answer instanceof ActorFailure, `the first is answered: ${answer}`);
    assert.match(answer.message, /store away/);
    assert.ok(next.ok);
    assert.deepEqual(next.reply, ["ann"]);
    assert.equal((await rt.runtime.lookup("test_handle", "ann"))?.id, "h1");
  } finally {
    await rt.close();
  }
});
