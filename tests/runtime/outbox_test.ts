/**
 * Durable outboxes: items an actor's events add are written in the commit of the events, handed
 * to their outbox's handler once committed and removed once handled; a crash or a failed handler
 * leaves them for the sweep.
 */
import assert from "node:assert/strict";
import { accept, type ActorDefinition, reject } from "../../src/runtime/actor.ts";
import type { OutboxItem } from "../../src/runtime/store.ts";
import {
  OUTBOX_RETRY_FIRST_MS,
  OUTBOX_RETRY_MAX_MS,
  OUTBOX_SWEEP_ITEMS_MAX,
} from "../../src/limits.ts";
import { openTestRuntime, type TestRuntime } from "./fixtures.ts";

const T = "biz_outbox";
const BILLING = "test_billing";

type TillCommand =
  | { kind: "sell"; amount: number; note?: string }
  | { kind: "refuse" }
  | { kind: "quiet" };

/** A till whose every sale adds one billing item (two when a note comes with it). */
const tillActor: ActorDefinition<
  number,
  TillCommand,
  { kind: "sold"; amount: number; note?: string } | { kind: "noted" },
  number
> = {
  type: "test_till",
  version: 1,
  initial: 0,
  decide(_state, c) {
    if (c.kind === "timer") return accept([]);
    if (c.kind === "refuse") return reject("refused", "refused on purpose");
    if (c.kind === "quiet") return accept([{ kind: "noted" }], (s) => s);
    const sold = c.note === undefined
      ? { kind: "sold" as const, amount: c.amount }
      : { kind: "sold" as const, amount: c.amount, note: c.note };
    return accept([sold], (s) => s);
  },
  evolve: (s, e) => e.kind === "sold" ? s + e.amount : s,
  outbox: (e, next) => {
    if (e.kind !== "sold") return [];
    const sale = { outbox: BILLING, payload: { amount: e.amount, total: next } };
    return e.note === undefined ? [sale] : [sale, { outbox: BILLING, payload: { note: e.note } }];
  },
};

function open(path = ":memory:"): Promise<TestRuntime> {
  return openTestRuntime(path, { definitions: [tillActor] });
}

/** A handler that records what it is given and fails while `failing` is set. */
function recorder() {
  const seen: OutboxItem[] = [];
  const r = {
    seen,
    failing: false,
    handle: (item: OutboxItem) => {
      if (r.failing) return Promise.reject(new Error("endpoint down"));
      seen.push(item);
      return Promise.resolve();
    },
  };
  return r;
}

Deno.test("outbox: a committed event's items reach their handler once, with the tenant and seq, and are removed", async () => {
  const rt = await open();
  const r = recorder();
  rt.runtime.handleOutbox(BILLING, r.handle);
  try {
    const sold = await rt.runtime.ask(tillActor, T, "t1", { kind: "sell", amount: 5 });
    assert.ok(sold.ok);
    await rt.runtime.ask(tillActor, T, "t1", { kind: "sell", amount: 7, note: "gift" });
    await rt.runtime.sweepOutboxes(); // waits for the handling under way
    assert.deepEqual(
      r.seen.map((i) => [i.tenant, i.type, i.id, i.seq, i.n, i.payload]),
      [
        [T, "test_till", "t1", 1, 0, { amount: 5, total: 5 }],
        [T, "test_till", "t1", 2, 0, { amount: 7, total: 12 }],
        [T, "test_till", "t1", 2, 1, { note: "gift" }],
      ],
    );
    assert.deepEqual(await rt.store.outboxItems(BILLING, 10), [], "removed once handled");
  } finally {
    await rt.close();
  }
});

Deno.test("outbox: a refused command and an event that adds nothing store no item", async () => {
  const rt = await open();
  try {
    const refused = await rt.runtime.ask(tillActor, T, "t2", { kind: "refuse" });
    assert.equal(refused.ok, false);
    assert.ok((await rt.runtime.ask(tillActor, T, "t2", { kind: "quiet" })).ok);
    assert.deepEqual(await rt.store.outboxItems(BILLING, 10), []);
  } finally {
    await rt.close();
  }
});

Deno.test("outbox: an item too large for one store value refuses its command only (too_large), and nothing of it is stored", async () => {
  const rt = await open();
  try {
    const asks = [
      rt.runtime.ask(tillActor, T, "t3", { kind: "sell", amount: 1 }),
      rt.runtime.ask(tillActor, T, "t3", { kind: "sell", amount: 2, note: "x".repeat(70_000) }),
      rt.runtime.ask(tillActor, T, "t3", { kind: "sell", amount: 3 }),
    ];
    const [first, big, third] = await Promise.all(asks);
    assert.ok(first!.ok && third!.ok);
    assert.ok(!big!.ok);
    assert.equal(big!.code, "too_large");
    assert.match(big!.message, /^an outbox item too large to store: \d+ bytes, max 60000$/);
    assert.equal(big!.details?.limit, "OUTBOX_ITEM_BYTES_MAX");
    const stored = await rt.store.outboxItems(BILLING, 10);
    assert.deepEqual(stored.map((i) => i.payload), [{ amount: 1, total: 1 }, {
      amount: 3,
      total: 4,
    }]);
  } finally {
    await rt.close();
  }
});

Deno.test("outbox: a crash before the handling loses nothing: the sweep at the next start hands the items over", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/store.kv`;
  try {
    // No handler yet: the process dies with its items committed and unhandled.
    const first = await open(path);
    for (let n = 1; n <= 3; n++) {
      assert.ok((await first.runtime.ask(tillActor, T, `c${n}`, { kind: "sell", amount: n })).ok);
    }
    await first.close();
    const r = recorder();
    const second = await openTestRuntime(path, {
      definitions: [tillActor],
      outboxes: { [BILLING]: r.handle },
    });
    assert.deepEqual(r.seen.map((i) => [i.id, i.payload]), [
      ["c1", { amount: 1, total: 1 }],
      ["c2", { amount: 2, total: 2 }],
      ["c3", { amount: 3, total: 3 }],
    ], "handled when start returned");
    assert.deepEqual(await second.store.outboxItems(BILLING, 10), []);
    await second.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("outbox: an item whose handler failed stays stored and is handled by a later sweep", async () => {
  const rt = await open();
  const r = recorder();
  rt.runtime.handleOutbox(BILLING, r.handle);
  try {
    r.failing = true;
    assert.ok((await rt.runtime.ask(tillActor, T, "f1", { kind: "sell", amount: 9 })).ok);
    assert.equal(await rt.runtime.sweepOutboxes(), 0, "still failing");
    assert.equal((await rt.store.outboxItems(BILLING, 10)).length, 1, "kept");
    r.failing = false;
    rt.clock.advanceBy(OUTBOX_RETRY_FIRST_MS); // its next attempt is due
    assert.equal(await rt.runtime.sweepOutboxes(), 1);
    assert.deepEqual(r.seen.map((i) => i.payload), [{ amount: 9, total: 9 }]);
    assert.deepEqual(await rt.store.outboxItems(BILLING, 10), []);
  } finally {
    await rt.close();
  }
});

Deno.test("outbox: a sweep that finds an item being handled waits for it instead of handling it again", async () => {
  const rt = await open();
  let calls = 0;
  let release = () => {};
  const held = new Promise<void>((resolve) => release = resolve);
  rt.runtime.handleOutbox(BILLING, async () => {
    calls++;
    await held;
  });
  try {
    assert.ok((await rt.runtime.ask(tillActor, T, "s1", { kind: "sell", amount: 4 })).ok);
    const sweep = rt.runtime.sweepOutboxes();
    release();
    assert.equal(await sweep, 1);
    assert.equal(calls, 1);
    assert.deepEqual(await rt.store.outboxItems(BILLING, 10), []);
  } finally {
    await rt.close();
  }
});

Deno.test("outbox: 300 sales to one actor at once each reach the handler exactly once", async () => {
  const rt = await open();
  const r = recorder();
  rt.runtime.handleOutbox(BILLING, r.handle);
  try {
    const sales = Array.from(
      { length: 300 },
      (_, i) => rt.runtime.ask(tillActor, T, "hot", { kind: "sell", amount: i + 1 }),
    );
    assert.ok((await Promise.all(sales)).every((s) => s.ok));
    await rt.runtime.sweepOutboxes();
    assert.deepEqual(r.seen.map((i) => i.seq).sort((a, b) => a - b), sales.map((_, i) => i + 1));
    assert.deepEqual(await rt.store.outboxItems(BILLING, 10), []);
  } finally {
    await rt.close();
  }
});

Deno.test("outbox: a later handler takes over until released; with none left the items wait in the store", async () => {
  const rt = await open();
  const first = recorder();
  const second = recorder();
  const releaseFirst = rt.runtime.handleOutbox(BILLING, first.handle);
  const releaseSecond = rt.runtime.handleOutbox(BILLING, second.handle);
  try {
    assert.ok((await rt.runtime.ask(tillActor, T, "h1", { kind: "sell", amount: 1 })).ok);
    await rt.runtime.outboxesIdle();
    releaseSecond();
    assert.ok((await rt.runtime.ask(tillActor, T, "h1", { kind: "sell", amount: 2 })).ok);
    await rt.runtime.outboxesIdle();
    assert.deepEqual(second.seen.map((i) => i.seq), [1]);
    assert.deepEqual(first.seen.map((i) => i.seq), [2], "the first handles again");
    const releaseThird = rt.runtime.handleOutbox(BILLING, second.handle);
    releaseThird();
    releaseSecond(); // released twice: nothing more
    assert.ok((await rt.runtime.ask(tillActor, T, "h1", { kind: "sell", amount: 3 })).ok);
    await rt.runtime.outboxesIdle();
    assert.deepEqual(first.seen.map((i) => i.seq), [2, 3]);
    releaseFirst();
    assert.ok((await rt.runtime.ask(tillActor, T, "h1", { kind: "sell", amount: 4 })).ok);
    assert.deepEqual((await rt.store.outboxItems(BILLING, 10)).map((i) => i.seq), [4]);
    assert.equal(await rt.runtime.sweepOutboxes(), 0, "nobody to hand it to");
  } finally {
    await rt.close();
  }
});

Deno.test("outbox: a sweep reaches the items stored after a full listing of items still failing", async () => {
  const rt = await open();
  const failingFor = new Set(["a", "b"]);
  const seen: string[] = [];
  rt.runtime.handleOutbox(BILLING, (item) => {
    if (failingFor.has(item.id)) return Promise.reject(new Error("endpoint down"));
    seen.push(item.id);
    return Promise.resolve();
  });
  try {
    // A whole listing of a's items, each failing for good (before b's in key order).
    const sales = Array.from(
      { length: OUTBOX_SWEEP_ITEMS_MAX },
      () => rt.runtime.ask(tillActor, T, "a", { kind: "sell", amount: 1 }),
    );
    assert.ok((await Promise.all(sales)).every((r) => r.ok));
    assert.ok((await rt.runtime.ask(tillActor, T, "b", { kind: "sell", amount: 2 })).ok);
    await rt.runtime.outboxesIdle();
    failingFor.delete("b");
    rt.clock.advanceBy(OUTBOX_RETRY_FIRST_MS); // every item's next attempt is due
    assert.equal(await rt.runtime.sweepOutboxes(), 1, "b's item handled");
    assert.deepEqual(seen, ["b"]);
  } finally {
    await rt.close();
  }
});

Deno.test("outbox: a failing item is tried again after a backoff doubling up to a cap, kept with it, each failure logged once with its attempt", async () => {
  const logged: string[] = [];
  const rt = await openTestRuntime(":memory:", {
    definitions: [tillActor],
    onError: (_e, where) => logged.push(where),
  });
  let calls = 0;
  let failing = true;
  rt.runtime.handleOutbox(BILLING, () => {
    calls++;
    return failing ? Promise.reject(new Error("endpoint down")) : Promise.resolve();
  });
  try {
    const start = rt.clock.now();
    assert.ok((await rt.runtime.ask(tillActor, T, "p1", { kind: "sell", amount: 1 })).ok);
    await rt.runtime.outboxesIdle();
    assert.equal(calls, 1, "tried once, on commit");
    const [kept] = await rt.store.outboxItems(BILLING, 10);
    assert.equal(kept!.attempts, 1);
    assert.equal(kept!.nextAt, start + OUTBOX_RETRY_FIRST_MS);
    for (let sweep = 0; sweep < 3; sweep++) await rt.runtime.sweepOutboxes();
    assert.equal(calls, 1, "not due: no sweep tries it again");
    // Each wait twice the one before, up to the cap.
    let wait = OUTBOX_RETRY_FIRST_MS;
    for (let attempt = 2; attempt <= 12; attempt++) {
      rt.clock.advanceBy(wait - 1);
      await rt.runtime.sweepOutboxes();
      assert.equal(calls, attempt - 1, `attempt ${attempt} waits ${wait} ms`);
      rt.clock.advanceBy(1);
      await rt.runtime.sweepOutboxes();
      assert.equal(calls, attempt);
      wait = Math.min(wait * 2, OUTBOX_RETRY_MAX_MS);
      const [item] = await rt.store.outboxItems(BILLING, 10);
      assert.equal(item!.attempts, attempt);
      assert.equal(item!.nextAt, rt.clock.now() + wait);
    }
    assert.equal(wait, OUTBOX_RETRY_MAX_MS, "capped");
    const failures = logged.filter((w) => w.startsWith(`outbox ${BILLING}`));
    assert.deepEqual(
      failures.map((w) => w.match(/attempt (\d+)/)?.[1]),
      Array.from({ length: 12 }, (_, i) => String(i + 1)),
      "each failure logged once, with its attempt",
    );
    failing = false;
    rt.clock.advanceBy(wait);
    assert.equal(await rt.runtime.sweepOutboxes(), 1);
    assert.deepEqual(await rt.store.outboxItems(BILLING, 10), [], "handled, removed");
  } finally {
    await rt.close();
  }
});

Deno.test("outbox: an outbox registered with a shorter retry cap waits at most that long between attempts", async () => {
  const rt = await openTestRuntime(":memory:", { definitions: [tillActor], onError: () => {} });
  const cap = 5_000;
  let calls = 0;
  rt.runtime.handleOutbox(BILLING, () => {
    calls++;
    return Promise.reject(new Error("an instance lost"));
  }, { retryMaxMs: cap });
  try {
    assert.ok((await rt.runtime.ask(tillActor, T, "p1", { kind: "sell", amount: 1 })).ok);
    await rt.runtime.outboxesIdle();
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 6; attempt++) {
      const [item] = await rt.store.outboxItems(BILLING, 10);
      assert.equal(item!.attempts, attempt);
      waits.push(item!.nextAt! - rt.clock.now());
      rt.clock.advanceBy(item!.nextAt! - rt.clock.now());
      await rt.runtime.sweepOutboxes();
      assert.equal(calls, attempt + 1, `attempt ${attempt + 1} made when due`);
    }
    assert.deepEqual(waits, [1_000, 2_000, 4_000, cap, cap, cap]);
  } finally {
    await rt.close();
  }
});

Deno.test("outbox: a sweep whose read was made before an attempt failed does not hand the item over early, and it is handled once when due", async () => {
  // The hot path's attempt fails (and is recorded: on Deno KV the item moves to wait by its next
  // due time) between the sweep's read of the item and its hand-over: that read is stale.
  let release = () => {};
  const held = new Promise<void>((r) => release = r);
  let recorded = () => {};
  const retried = new Promise<void>((r) => recorded = r);
  let gate = false;
  const rt = await openTestRuntime(":memory:", {
    definitions: [tillActor],
    storeOf: (store) =>
      new Proxy(store, {
        get(target, name) {
          const value = Reflect.get(target, name, target);
          if (name === "retryOutboxItem") {
            return async (...args: Parameters<typeof target.retryOutboxItem>) => {
              await target.retryOutboxItem(...args);
              recorded();
            };
          }
          if (name !== "outboxItems") {
            return typeof value === "function" ? value.bind(target) : value;
          }
          return async (...args: Parameters<typeof target.outboxItems>) => {
            const listed = await target.outboxItems(...args);
            if (!gate) return listed;
            gate = false;
            release(); // the hot path's attempt fails now, after this read
            await retried;
            await new Promise((r) => setTimeout(r, 0)); // its handling ends (a turn, no time)
            return listed;
          };
        },
      }),
  });
  let calls = 0;
  const seen: OutboxItem[] = [];
  rt.runtime.handleOutbox(BILLING, async (item) => {
    calls++;
    if (calls === 1) {
      await held;
      throw new Error("endpoint down");
    }
    seen.push(item);
  });
  try {
    assert.ok((await rt.runtime.ask(tillActor, T, "s1", { kind: "sell", amount: 3 })).ok);
    gate = true;
    await rt.runtime.sweepOutboxes();
    await rt.runtime.outboxesIdle();
    assert.equal(seen.length, 0, "not due yet: the stale read is not handed over");
    rt.clock.advanceBy(OUTBOX_RETRY_MAX_MS);
    await rt.runtime.sweepOutboxes();
    await rt.runtime.outboxesIdle();
    rt.clock.advanceBy(OUTBOX_RETRY_MAX_MS);
    await rt.runtime.sweepOutboxes();
    assert.equal(seen.length, 1, "handled once, when due");
    assert.deepEqual(await rt.store.outboxItems(BILLING, 10), [], "handled, removed");
  } finally {
    await rt.close();
  }
});
