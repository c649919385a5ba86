import assert from "node:assert/strict";
import { accountActor, type AccountState, openTestRuntime } from "./fixtures.ts";

const T = "biz_tenant";

Deno.test("timer firing: a caller during a firing waits for it and the timers due by its now, so a polling loop never starves the store's answers", async () => {
  // On a file, as a server's store: its commits are answered only through the event loop.
  const dir = await Deno.makeTempDir();
  const rt = await openTestRuntime(`${dir}/kv.sqlite`);
  try {
    const now = rt.clock.now();
    await rt.runtime.ask(accountActor, T, "a", { kind: "remind_at", at: now + 1_000 });
    await rt.runtime.ask(accountActor, T, "b", { kind: "remind_at", at: now + 2_000 });
    rt.clock.advanceBy(1_000);
    let firstDone = false;
    const first = rt.runtime.fireDueTimers().finally(() => firstDone = true);
    rt.clock.advanceBy(1_000);
    // Polled as the benches and the sandbox clock poll: a poll answered at once would leave this
    // loop on settled promises only, and the firing under way would never hear from the store.
    let polls = 0;
    let fired = 0;
    while (!firstDone && polls < 10_000) {
      fired += await rt.runtime.fireDueTimers();
      polls++;
    }
    assert.ok(firstDone, `the firing under way still waits after ${polls} polls`);
    assert.equal(polls, 1, "the first poll waited for it");
    assert.equal(fired + await first, 2, "each due timer fired once");
    for (const id of ["a", "b"]) {
      const r = await rt.runtime.ask(accountActor, T, id, { kind: "get" });
      assert.ok(r.ok);
      assert.equal(r.reply.reminders, 1, `${id} reminded once`);
    }
    assert.equal(await rt.runtime.fireDueTimers(), 0, "nothing is due any more");
  } finally {
    await rt.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("timer firing: a timer whose firing fails is tried once per firing, and again by the next; the others due fire", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kv.sqlite`;
  let loads = 0;
  // Its stored state cannot be read while `broken` (a store or data failure at activation).
  let broken = false;
  const fragile = {
    ...accountActor,
    load(state: unknown) {
      loads++;
      if (broken && (state as AccountState).email === "bad") throw new Error("cannot read it");
      return state as AccountState;
    },
  };
  const definitions = [fragile];
  const first = await openTestRuntime(path, { definitions });
  const now = first.clock.now();
  await first.runtime.ask(fragile, T, "a", { kind: "set_email", email: "bad" });
  for (const id of ["a", "b"]) {
    await first.runtime.ask(fragile, T, id, { kind: "remind_at", at: now + 1_000 });
  }
  await first.close();
  const rt = await openTestRuntime(path, { definitions, clock: first.clock });
  try {
    broken = true;
    rt.clock.advanceBy(1_000);
    loads = 0;
    await rt.runtime.fireDueTimers();
    assert.equal(loads, 2, "the failing timer was tried once, not again and again");
    const b = await rt.runtime.ask(fragile, T, "b", { kind: "get" });
    assert.ok(b.ok);
    assert.equal(b.reply.reminders, 1, "the other timer due fired");
    broken = false;
    await rt.runtime.fireDueTimers();
    const r = await rt.runtime.ask(fragile, T, "a", { kind: "get" });
    assert.ok(r.ok);
    assert.equal(r.reply.reminders, 1, "fired by a later firing");
  } finally {
    await rt.close();
    await Deno.remove(dir, { recursive: true });
  }
});
