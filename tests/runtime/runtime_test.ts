import assert from "node:assert/strict";
import { accountActor, handleActor, openTestRuntime } from "./fixtures.ts";
import { ActorFailure } from "../../src/runtime/runtime.ts";

const T = "biz_tenant";

async function balanceOf(rt: Awaited<ReturnType<typeof openTestRuntime>>, id: string) {
  const r = await rt.runtime.ask(accountActor, T, id, { kind: "get" });
  assert.ok(r.ok);
  return r.reply;
}

Deno.test("runtime: 1,000 concurrent commands to one actor are all applied in order", async () => {
  const rt = await openTestRuntime();
  try {
    const asks = Array.from(
      { length: 1_000 },
      (_, n) => rt.runtime.ask(accountActor, T, "a1", { kind: "append", n }),
    );
    const results = await Promise.all(asks);
    assert.ok(results.every((r) => r.ok));
    const state = await balanceOf(rt, "a1");
    assert.deepEqual(state.seen, Array.from({ length: 1_000 }, (_, n) => n));
    // Durable: a fresh load from the store sees the same.
    const stored = await rt.store.load({ type: accountActor.type, id: "a1" });
    assert.equal(stored?.record.seq, 1_000);
    const events = [];
    for await (const e of rt.runtime.events(accountActor, "a1")) events.push(e.event);
    assert.equal(events.length, 1_000);
    assert.deepEqual(events.at(-1), { kind: "appended", n: 999 });
  } finally {
    await rt.close();
  }
});

Deno.test("runtime: a batch of commands too large for one store commit is committed in parts, every command applied in order", async () => {
  const rt = await openTestRuntime();
  try {
    // 600 events of 2 KB to one actor: the batch's events alone are past 800 KiB.
    const emails = Array.from({ length: 600 }, (_, i) => `${i}@${"x".repeat(2_000)}`);
    const results = await Promise.all(
      emails.map((email) => rt.runtime.ask(accountActor, T, "hot", { kind: "set_email", email })),
    );
    assert.ok(results.every((r) => r.ok));
    const events = [];
    for await (const e of rt.runtime.events(accountActor, "hot")) events.push(e);
    assert.deepEqual(events.map((e) => e.seq), emails.map((_, i) => i + 1));
    assert.deepEqual(events.map((e) => (e.event as { email: string }).email), emails);
    assert.equal((await balanceOf(rt, "hot")).email, emails.at(-1));
  } finally {
    await rt.close();
  }
});

Deno.test("runtime: 100 concurrent debits against a balance that covers 20 succeed exactly 20 times", async () => {
  const rt = await openTestRuntime();
  try {
    await rt.runtime.ask(accountActor, T, "a2", { kind: "credit", amount: 200 });
    const results = await Promise.all(
      Array.from(
        { length: 100 },
        () => rt.runtime.ask(accountActor, T, "a2", { kind: "debit", amount: 10 }),
      ),
    );
    assert.equal(results.filter((r) => r.ok).length, 20);
    const refused = results.filter((r) => !r.ok);
    assert.equal(refused.length, 80);
    assert.ok(refused.every((r) => !r.ok && r.code === "insufficient_balance"));
    assert.equal((await balanceOf(rt, "a2")).balance, 0);
  } finally {
    await rt.close();
  }
});

Deno.test("runtime: a command that throws leaves state unchanged and the actor serves the next", async () => {
  const rt = await openTestRuntime();
  try {
    await rt.runtime.ask(accountActor, T, "a3", { kind: "credit", amount: 5 });
    const [boom, next] = await Promise.allSettled([
      rt.runtime.ask(accountActor, T, "a3", { kind: "explode" }),
      rt.runtime.ask(accountActor, T, "a3", { kind: "credit", amount: 7 }),
    ]);
    assert.equal(boom.status, "rejected");
    assert.ok(boom.status === "rejected" && boom.reason instanceof ActorFailure);
    assert.equal(next.status, "fulfilled");
    assert.equal((await balanceOf(rt, "a3")).balance, 12);
    const stored = await rt.store.load({ type: accountActor.type, id: "a3" });
    assert.equal(stored?.record.seq, 2);
  } finally {
    await rt.close();
  }
});

Deno.test("runtime: a second runtime on the same KV file cannot overwrite newer state", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kv.sqlite`;
  const a = await openTestRuntime(path);
  const b = await openTestRuntime(path);
  try {
    // Both activate the actor and hold it in memory.
    await a.runtime.ask(accountActor, T, "shared", { kind: "credit", amount: 100 });
    assert.equal((await balanceOf(b, "shared")).balance, 100);
    // A moves on; B still holds the older version in memory.
    await a.runtime.ask(accountActor, T, "shared", { kind: "debit", amount: 60 });
    // B decides against stale state, its commit conflicts, it reloads and decides again.
    const r = await b.runtime.ask(accountActor, T, "shared", { kind: "debit", amount: 60 });
    assert.equal(r.ok, false);
    assert.ok(!r.ok && r.code === "insufficient_balance");
    const ok = await b.runtime.ask(accountActor, T, "shared", { kind: "credit", amount: 1 });
    assert.ok(ok.ok && ok.reply.balance === 41);
    // Interleaved writers lose nothing.
    await Promise.all(
      Array.from(
        { length: 50 },
        (_, i) =>
          (i % 2 ? a : b).runtime.ask(accountActor, T, "shared", { kind: "credit", amount: 1 }),
      ),
    );
    const fresh = await openTestRuntime(path);
    try {
      assert.equal((await balanceOf(fresh, "shared")).balance, 91);
    } finally {
      await fresh.close();
    }
  } finally {
    await a.close();
    await b.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("runtime: after closing and reopening KV, state and pending timers come back and due timers fire", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kv.sqlite`;
  const first = await openTestRuntime(path);
  const start = first.clock.now();
  await first.runtime.ask(accountActor, T, "t1", { kind: "credit", amount: 3 });
  await first.runtime.ask(accountActor, T, "t1", { kind: "remind_at", at: start + 60_000 });
  await first.close();

  const second = await openTestRuntime(path, { clock: first.clock });
  try {
    const before = await balanceOf(second, "t1");
    assert.equal(before.balance, 3);
    assert.equal(before.reminders, 0);
    assert.equal(await second.runtime.fireDueTimers(), 0, "nothing is due yet");
    second.clock.advanceBy(59_999);
    assert.equal(await second.runtime.fireDueTimers(), 0);
    second.clock.advanceBy(1);
    assert.equal(await second.runtime.fireDueTimers(), 1);
    assert.equal((await balanceOf(second, "t1")).reminders, 1);
    // A fired timer is gone: it never fires twice.
    second.clock.advanceBy(3_600_000);
    assert.equal(await second.runtime.fireDueTimers(), 0);
    assert.equal((await balanceOf(second, "t1")).reminders, 1);
  } finally {
    await second.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("runtime: a re-set timer replaces the earlier one", async () => {
  const rt = await openTestRuntime();
  try {
    const now = rt.clock.now();
    await rt.runtime.ask(accountActor, T, "t2", { kind: "remind_at", at: now + 1_000 });
    await rt.runtime.ask(accountActor, T, "t2", { kind: "remind_at", at: now + 5_000 });
    rt.clock.advanceBy(1_000);
    assert.equal(await rt.runtime.fireDueTimers(), 0);
    rt.clock.advanceBy(4_000);
    assert.equal(await rt.runtime.fireDueTimers(), 1);
    assert.equal((await balanceOf(rt, "t2")).reminders, 1);
  } finally {
    await rt.close();
  }
});

Deno.test("runtime: an idempotency key applies a command once and replays its reply", async () => {
  const rt = await openTestRuntime();
  try {
    const asks = Array.from(
      { length: 5 },
      () =>
        rt.runtime.ask(accountActor, T, "i1", { kind: "credit", amount: 10 }, {
          idempotencyKey: "k1",
        }),
    );
    const results = await Promise.all(asks);
    assert.equal(results.filter((r) => r.ok && !r.replayed).length, 1);
    assert.equal(results.filter((r) => r.ok && r.replayed).length, 4);
    const later = await rt.runtime.ask(accountActor, T, "i1", { kind: "credit", amount: 10 }, {
      idempotencyKey: "k1",
    });
    assert.ok(later.ok && later.replayed && later.reply.balance === 10);
    assert.equal((await balanceOf(rt, "i1")).balance, 10);
  } finally {
    await rt.close();
  }
});

Deno.test("runtime: a key sent again while its first command is being committed is replayed (the busy actor's read ahead misses that commit)", async () => {
  for (const groupCommit of [true, false]) {
    const rt = await openTestRuntime(":memory:", { groupCommit });
    try {
      await rt.runtime.ask(accountActor, T, "busy", { kind: "credit", amount: 0 });
      for (let round = 0; round < 20; round++) {
        const key = { idempotencyKey: `k${round}` };
        await new Promise((resolve) => setTimeout(resolve, 0)); // the actor is idle again
        // The first is in a batch of its own; the others wait, read ahead, while it commits.
        const credit = () =>
          rt.runtime.ask(accountActor, T, "busy", { kind: "credit", amount: 1 }, key);
        const first = credit();
        const results = await Promise.all([first, credit(), credit()]);
        assert.deepEqual(results.map((r) => r.ok && r.replayed), [false, true, true]);
      }
      assert.equal((await balanceOf(rt, "busy")).balance, 20);
    } finally {
      await rt.close();
    }
  }
});

Deno.test("runtime: another tenant's actor answers as a missing one does, word for word, and is not touched", async () => {
  const rt = await openTestRuntime();
  try {
    await rt.runtime.ask(accountActor, T, "own", { kind: "credit", amount: 10 });
    const debit = { kind: "debit", amount: 10 } as const;
    const other = await rt.runtime.ask(accountActor, "biz_other", "own", debit);
    const missing = await rt.runtime.ask(accountActor, "biz_other", "nobody", debit);
    assert.ok(!other.ok && !missing.ok);
    assert.deepEqual(other, missing, "the answer tells nothing of the id being taken elsewhere");
    // A command a missing actor would accept (a credit makes one) is refused, named in words.
    const r = await rt.runtime.ask(accountActor, "biz_other", "own", { kind: "credit", amount: 1 });
    assert.ok(!r.ok && r.code === "not_found");
    assert.equal(r.message, "test account not found: own");
    assert.equal((await balanceOf(rt, "own")).balance, 10);
  } finally {
    await rt.close();
  }
});

Deno.test("runtime: indexes follow the state and lookups find the actor", async () => {
  const rt = await openTestRuntime();
  try {
    await rt.runtime.ask(accountActor, T, "ix", { kind: "set_email", email: "a@example.com" });
    assert.deepEqual(await rt.runtime.lookup("test_email", "a@example.com"), {
      type: accountActor.type,
      id: "ix",
      tenant: T,
    });
    await rt.runtime.ask(accountActor, T, "ix", { kind: "set_email", email: "b@example.com" });
    assert.equal(await rt.runtime.lookup("test_email", "a@example.com"), null);
    assert.equal((await rt.runtime.lookup("test_email", "b@example.com"))?.id, "ix");
  } finally {
    await rt.close();
  }
});

Deno.test("runtime: a cached lookup serves again until forgotten; a miss is never cached", async () => {
  const rt = await openTestRuntime();
  try {
    assert.equal(await rt.runtime.lookup("test_email", "c@example.com", { cached: true }), null);
    await rt.runtime.ask(accountActor, T, "lc", { kind: "set_email", email: "c@example.com" });
    // The miss above was not remembered: the new entry is found.
    assert.equal(
      (await rt.runtime.lookup("test_email", "c@example.com", { cached: true }))?.id,
      "lc",
    );
    await rt.runtime.ask(accountActor, T, "lc", { kind: "set_email", email: "d@example.com" });
    // Remembered (the actor is the one to verify), until forgotten.
    assert.equal(
      (await rt.runtime.lookup("test_email", "c@example.com", { cached: true }))?.id,
      "lc",
    );
    assert.equal(await rt.runtime.lookup("test_email", "c@example.com"), null);
    rt.runtime.forget("test_email", "c@example.com");
    assert.equal(await rt.runtime.lookup("test_email", "c@example.com", { cached: true }), null);
  } finally {
    await rt.close();
  }
});

Deno.test("runtime: a `fresh` ask on an id that exists after all never overwrites it", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kv.sqlite`;
  const first = await openTestRuntime(path);
  await first.runtime.ask(accountActor, T, "f1", { kind: "credit", amount: 70 });
  await first.close();
  const second = await openTestRuntime(path, { clock: first.clock });
  try {
    // Decided on the initial state first, the commit conflicts, and it is decided again.
    const r = await second.runtime.ask(accountActor, T, "f1", { kind: "credit", amount: 5 }, {
      fresh: true,
    });
    assert.ok(r.ok && r.reply.balance === 75);
    // A read that writes nothing proves nothing: it is answered from the stored state.
    const fresh = await openTestRuntime(path, { clock: first.clock });
    try {
      const read = await fresh.runtime.ask(accountActor, T, "f1", { kind: "get" }, { fresh: true });
      assert.ok(read.ok && read.reply.balance === 75);
    } finally {
      await fresh.close();
    }
  } finally {
    await second.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("runtime: a read answers from committed state; another tenant gets not_found; a command that writes goes in turn", async () => {
  const rt = await openTestRuntime();
  try {
    // Not yet in memory: the read goes through the mailbox and loads the actor.
    const none = await rt.runtime.read(accountActor, T, "r1", { kind: "get" });
    assert.ok(none.ok);
    assert.equal(none.reply.balance, 0);
    await rt.runtime.ask(accountActor, T, "r1", { kind: "credit", amount: 7 });
    const got = await rt.runtime.read(accountActor, T, "r1", { kind: "get" });
    assert.ok(got.ok);
    assert.equal(got.reply.balance, 7, "a reply given is always visible to a later read");
    const other = await rt.runtime.read(accountActor, "another_tenant", "r1", { kind: "get" });
    assert.equal(other.ok, false);
    assert.equal(!other.ok && other.code, "not_found");
    assert.equal(!other.ok && other.message, "test account not found: r1");
    // A command with events is never answered from memory: it is decided and committed in turn.
    const credited = await rt.runtime.read(accountActor, T, "r1", { kind: "credit", amount: 3 });
    assert.ok(credited.ok);
    assert.equal((await balanceOf(rt, "r1")).balance, 10);
    // Reads racing commands see either the state before or after each, never a torn one.
    const seen = await Promise.all(
      Array.from(
        { length: 50 },
        (_, i) =>
          i % 2
            ? rt.runtime.ask(accountActor, T, "r1", { kind: "credit", amount: 1 })
            : rt.runtime.read(accountActor, T, "r1", { kind: "get" }),
      ),
    );
    const balances = seen.filter((r, i) => i % 2 === 0 && r.ok).map((r) =>
      (r as { reply: { balance: number } }).reply.balance
    );
    assert.ok(balances.every((b) => b >= 10 && b <= 35));
    assert.equal((await balanceOf(rt, "r1")).balance, 35);
  } finally {
    await rt.close();
  }
});

Deno.test("runtime: a record stored as an object (before records were JSON text) still loads and is rewritten as text", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kv.sqlite`;
  const kv = await Deno.openKv(path);
  await kv.set(["a", accountActor.type, "old"], {
    v: accountActor.version,
    tenant: T,
    state: { balance: 70, seen: [], reminders: 0, email: null },
    seq: 1,
    timers: {},
    indexes: [],
  });
  kv.close();
  // Deno KV's layout, written by hand: the KV store, whatever ACTOR_STORE says.
  const rt = await openTestRuntime(path, { store: "kv" });
  try {
    assert.equal((await balanceOf(rt, "old")).balance, 70);
    assert.ok((await rt.runtime.ask(accountActor, T, "old", { kind: "credit", amount: 5 })).ok);
  } finally {
    await rt.close();
  }
  const raw = await Deno.openKv(path);
  try {
    const stored = (await raw.get<string>(["a", accountActor.type, "old"])).value;
    assert.equal(typeof stored, "string");
    assert.equal(JSON.parse(stored!).state.balance, 75);
  } finally {
    raw.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("runtime: a key of a unique index goes to one actor, however many take it at once", async () => {
  for (const groupCommit of [true, false]) {
    const rt = await openTestRuntime(":memory:", { groupCommit });
    try {
      const answers = await Promise.all(
        Array.from(
          { length: 20 },
          (_, i) => rt.runtime.ask(handleActor, T, `h${i}`, { kind: "take", name: "neo" }),
        ),
      );
      const won = answers.flatMap((a, i) => a.ok ? [`h${i}`] : []);
      assert.equal(won.length, 1, `group commit ${groupCommit}`);
      for (const a of answers.filter((a) => !a.ok)) {
        assert.ok(!a.ok && !("failure" in a));
        assert.equal(a.code, "index_taken");
        assert.deepEqual(a.details, { index: "test_handle", key: "neo" });
      }
      assert.equal((await rt.runtime.lookup("test_handle", "neo"))?.id, won[0]);
      // The losers hold nothing: their refused commands changed nothing.
      const loser = won[0] === "h0" ? "h1" : "h0";
      assert.equal(await rt.store.load({ type: handleActor.type, id: loser }), null);
    } finally {
      await rt.close();
    }
  }
});

Deno.test("runtime: only the command taking a held key is refused; a dropped key is free again", async () => {
  const rt = await openTestRuntime();
  try {
    assert.ok((await rt.runtime.ask(handleActor, T, "a", { kind: "take", name: "x" })).ok);
    // Taking its own key again is no conflict.
    assert.ok((await rt.runtime.ask(handleActor, T, "a", { kind: "take", name: "x" })).ok);
    const [y, x, z] = await Promise.all(
      ["y", "x", "z"].map((name) => rt.runtime.ask(handleActor, T, "b", { kind: "take", name })),
    );
    assert.ok(y!.ok && z!.ok);
    assert.ok(!x!.ok && !("failure" in x!) && x!.code === "index_taken");
    const b = await rt.runtime.ask(handleActor, T, "b", { kind: "take", name: "y" });
    assert.ok(b.ok);
    assert.deepEqual(b.reply, ["y", "z"]);
    assert.ok((await rt.runtime.ask(handleActor, T, "a", { kind: "drop", name: "x" })).ok);
    assert.ok((await rt.runtime.ask(handleActor, T, "b", { kind: "take", name: "x" })).ok);
    assert.equal((await rt.runtime.lookup("test_handle", "x"))?.id, "b");
  } finally {
    await rt.close();
  }
});
