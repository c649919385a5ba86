/**
 * The ledger projection's writes over time: a sync or flush answered only once written, a
 * poisoned or large change, stop and idle, transient failures retried, the watermark (what the
 * entries book: ledger_projection_test.ts).
 */
import assert from "node:assert/strict";
import type { KyselyPlugin } from "kysely";
import { LedgerProjector } from "../../../src/courier/reactors/ledger_projection.ts";
import { syncSubject } from "../../../src/db/sync.ts";
import { blockTable, macrotask, openTestDatabase, settled } from "../../db/helpers.ts";
import {
  asOneBatch,
  change,
  charged,
  entry,
  JAN,
  publish,
  rowsOf,
  subjectOfChange,
  TENANT,
  withProjector,
} from "./ledger_projection_fixtures.ts";
import { MemoryBus } from "../../../src/bus/memory_bus.ts";

Deno.test("LedgerProjector: a sync sentinel after a batch resolves only once the batch is written", async () => {
  await withProjector(async (s) => {
    // Nothing queued: a sentinel resolves at once.
    const early = s.projector.synced("s0");
    await s.bus.publish(syncSubject("live", "s0"), { sync: "s0" });
    await early;

    const block = await blockTable(s.t, "ledger_entries");
    let synced: () => boolean;
    const done = s.projector.synced("s1");
    try {
      await publish(s.bus, change("c1", [charged(entry("a-1", 1))]));
      await publish(
        s.bus,
        change("c1", Array.from({ length: 50 }, (_, i) => charged(entry(`b-${i}`, 10 + i)))),
      );
      await s.bus.publish(syncSubject("live", "s1"), { sync: "s1" });
      await publish(s.bus, change("c2", [charged(entry("after", 1))]));
      synced = settled(done);
      await macrotask(50);
      assert.equal(synced(), false, "the sentinel resolved before the changes ahead of it");
    } finally {
      await block.release();
    }
    await done;
    assert.equal((await rowsOf(s.t, "c1")).length, 51);
    await s.projector.idle();
    assert.equal((await rowsOf(s.t, "c2")).length, 1);
    assert.deepEqual(s.errors, []);
  });
});

Deno.test("LedgerProjector: a change counts for the bus's flush (and so for recovery markers) only once written", async () => {
  await withProjector(async (s) => {
    const block = await blockTable(s.t, "ledger_entries");
    let flushed: () => boolean;
    try {
      await publish(s.bus, change("c1", [charged(entry("f-1", 1))]));
      await publish(s.bus, change("c1", [charged(entry("f-2", 2))]));
      flushed = settled(s.bus.flush());
      await macrotask(50);
      assert.equal(flushed(), false, "flush resolved while the entries were not written");
    } finally {
      await block.release();
    }
    await s.bus.flush();
    assert.equal((await rowsOf(s.t, "c1")).length, 2);
    assert.deepEqual(s.errors, []);
  });
});

Deno.test("LedgerProjector: a poisoned change in a batch is reported and keeps no other change out", async () => {
  await withProjector(async (s) => {
    await publish(s.bus, change("c3", [charged(entry("taken", 1))]));
    await s.projector.idle();

    const good = change("c1", [charged(entry("g-1", 1)), charged(entry("g-2", 2))]);
    // int4 overflow on seq: the whole change fails, its good entry included.
    const poisoned = change("c2", [
      charged(entry("p-1", 1)),
      charged(entry("p-2", 2 ** 31)),
    ]);
    const conflicting = change("c3", [
      charged(entry("taken", 9, { created_at: JAN + 9, source_event: "other" })),
      charged(entry("h-1", 10)),
    ]);
    // Malformed: reported at once, never queued.
    await s.bus.publish("live.ten.courier_client.bad", { type: "courier_client", id: "bad" });
    await asOneBatch(s, change("c0", [charged(entry("f-1", 1))]), [good, poisoned, conflicting]);

    assert.deepEqual(s.errors.map(([message, subject]) => [message.length > 0, subject]), [
      [true, "live.ten.courier_client.bad"],
      [true, subjectOfChange(poisoned)],
      [true, subjectOfChange(conflicting)],
    ]);
    // The conflict of the failed batch is not reported twice: only once its change committed.
    assert.equal(s.errors[2]?.[0], "another entry of client c3 holds reference taken");
    assert.deepEqual((await rowsOf(s.t, "c1")).map((r) => r.reference), ["g-1", "g-2"]);
    assert.deepEqual(await rowsOf(s.t, "c2"), []);
    assert.deepEqual((await rowsOf(s.t, "c3")).map((r) => r.reference), ["taken", "h-1"]);
    assert.deepEqual((await rowsOf(s.t, "c0")).map((r) => r.reference), ["f-1"]);
  });
});

Deno.test("LedgerProjector: one change of more entries than one INSERT takes is written in chunks", async () => {
  await withProjector(async (s) => {
    const entries = Array.from({ length: 2_100 }, (_, i) => charged(entry(`k-${i}`, i + 1)));
    await publish(s.bus, change("c1", entries));
    await s.projector.idle();
    assert.deepEqual(s.errors, []);
    const n = await s.t.db.selectFrom("ledger_entries")
      .select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
    assert.equal(Number(n.n), 2_100);
    // Three chunks of entries, and the account's watermark.
    assert.deepEqual(s.counter.counts, { InsertQueryNode: 4 });

    // Replayed whole: nothing changes, nothing is reported, one SELECT per chunk of keys held.
    s.counter.reset();
    await publish(s.bus, change("c1", entries));
    await s.projector.idle();
    assert.deepEqual(s.errors, []);
    assert.deepEqual(s.counter.counts, { InsertQueryNode: 4, SelectQueryNode: 3 });
  });
});

Deno.test("LedgerProjector: idle() and stop() wait for the queued writes; nothing lands after stop()", async () => {
  await withProjector(async (s) => {
    const block = await blockTable(s.t, "ledger_entries");
    let idle: () => boolean;
    let stop: () => boolean;
    try {
      await publish(s.bus, change("c1", [charged(entry("a", 1))]));
      await publish(s.bus, change("c2", [charged(entry("b", 1))])); // queued behind c1
      idle = settled(s.projector.idle());
      stop = settled(s.projector.stop());
      await macrotask(50);
      assert.equal(idle(), false, "idle() resolved while a write was blocked");
      assert.equal(stop(), false, "stop() resolved while a write was blocked");
    } finally {
      await block.release();
    }
    await s.projector.stop();
    assert.equal(idle(), true);
    assert.equal(stop(), true);
    await publish(s.bus, change("c3", [charged(entry("late", 1))]));
    await macrotask(50);
    const refs = await s.t.db.selectFrom("ledger_entries").select("reference")
      .orderBy("reference").execute();
    assert.deepEqual(refs.map((r) => r.reference), ["a", "b"]);
  });
});

/** Fails the next `n` statements as a dropped connection would, then lets them through. */
function failing(n: number) {
  let left = n;
  const plugin: KyselyPlugin = {
    transformQuery(args) {
      if (left > 0) {
        left--;
        throw Object.assign(new Error("simulated CONNECTION_CLOSED"), {
          code: "CONNECTION_CLOSED",
        });
      }
      return args.node;
    },
    transformResult: (args) => Promise.resolve(args.result),
  };
  return { plugin, left: () => left };
}

Deno.test("LedgerProjector: a write that fails for a transient reason is retried until written, never dropped", async () => {
  await using t = await openTestDatabase();
  const bus = new MemoryBus();
  const errors: unknown[] = [];
  const fail = failing(3);
  const projector = new LedgerProjector({
    bus,
    db: t.db.withPlugin(fail.plugin),
    env: "live",
    onError: (e) => errors.push(e),
    retryDelayMs: () => 0,
  });
  try {
    await publish(bus, change("c1", [charged(entry("r-1", 1)), charged(entry("r-2", 2))]));
    await projector.idle();
    assert.equal(fail.left(), 0, "the database failed three times");
    assert.deepEqual(errors, [], "a transient failure is not reported as lost");
    assert.deepEqual((await rowsOf(t, "c1")).map((r) => r.reference), ["r-1", "r-2"]);
  } finally {
    await projector.stop();
    await bus.drain();
  }
});

Deno.test("LedgerProjector: an account's watermark is the highest entry seq written, past a reference kept out, never back", async () => {
  await withProjector(async (s) => {
    const watermark = async (client: string) => {
      const row = await s.t.db.selectFrom("ledger_watermarks").select("seq")
        .where("tenant", "=", TENANT).where("client_id", "=", client).executeTakeFirst();
      return row?.seq ?? 0;
    };
    assert.equal(await watermark("w1"), 0, "none before its first entry");
    const first = entry("w-1", 1);
    await publish(s.bus, change("w1", [charged(first), charged(entry("w-2", 2))]));
    await s.projector.idle();
    assert.equal(await watermark("w1"), 2);
    // Another fact reusing a reference is kept out and reported; its seq was handled all the same.
    await publish(s.bus, change("w1", [charged(entry("w-1", 3, { source_event: "other" }))]));
    await s.projector.idle();
    assert.equal(s.errors.length, 1);
    assert.equal(await watermark("w1"), 3);
    // A resolution hands out a seq; an invoice issue none; an old change replayed moves nothing.
    const awaiting = {
      kind: "entry_posted",
      entry: entry("fx-9", 4, { kind: "duties", currency: "ZAR", status: "unresolved_fx" }),
      effect: {},
      invoiceable: false,
      by: "t",
    };
    const resolved = {
      kind: "fx_resolved",
      resolution: {
        reference: "fx-9",
        seq: 5,
        period: "2026-01",
        kind: "duties",
        amount_minor: 700,
        currency: "BWP",
        status: "posted",
        recoverable: true,
        original_amount_minor: 1_000,
        original_currency: "ZAR",
        fx_rate: "0.7",
        fx_source: "test",
        created_at: JAN,
      },
      effect: {},
      invoiceable: false,
      by: "t",
    };
    await publish(
      s.bus,
      change("w1", [awaiting, resolved, { kind: "invoices_issued", invoices: [], by: "t" }]),
    );
    await publish(s.bus, change("w1", [charged(first)]));
    await s.projector.idle();
    assert.equal(await watermark("w1"), 5);
    assert.equal(await watermark("w2"), 0, "each account its own");
  });
});
