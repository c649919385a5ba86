import assert from "node:assert/strict";
import type { KyselyPlugin } from "kysely";
import type { ActorChange } from "../../../src/bus/bus.ts";
import { subjectOf } from "../../../src/bus/bus.ts";
import { MemoryBus } from "../../../src/bus/memory_bus.ts";
import { entryOf, type LedgerEntry } from "../../../src/courier/rules/ledger.ts";
import { LedgerProjector } from "../../../src/courier/reactors/ledger_projection.ts";
import { syncSubject } from "../../../src/db/sync.ts";
import {
  blockTable,
  macrotask,
  openTestDatabase,
  settled,
  type TestDatabase,
} from "../../db/helpers.ts";

const TENANT = "ten";
const JAN = Date.UTC(2026, 0, 10);

function entry(reference: string, seq: number, fields: Partial<LedgerEntry> = {}): LedgerEntry {
  return entryOf({
    reference,
    seq,
    kind: "shipment",
    amount_minor: 1_000 + seq,
    currency: "BWP",
    status: "posted",
    created_at: JAN + seq,
    source_event: `booked:${reference}`,
    ...fields,
  });
}

/** A credit booking's charge: posted and invoiceable. */
function charged(e: LedgerEntry) {
  return {
    kind: "booking_charged",
    waybill: `WB-${e.reference}`,
    amount_minor: e.amount_minor,
    currency: e.currency,
    settlement_mode: "credit",
    posted: true,
    by: "test",
    entry: e,
  };
}

let version = 0;

function change(client: string, events: readonly unknown[]): ActorChange {
  const first = version + 1;
  version += events.length;
  return {
    env: "live",
    tenant: TENANT,
    type: "courier_client",
    id: client,
    version,
    events: events.map((event, i) => ({ seq: first + i, at: JAN, event })),
  };
}

function subjectOfChange(c: ActorChange): string {
  return subjectOf("live", c.tenant, c.type, c.id);
}

function publish(bus: MemoryBus, c: ActorChange): Promise<void> {
  return bus.publish(subjectOfChange(c), c);
}

/** Counts the statements Kysely runs (BEGIN and COMMIT are not compiled queries). */
function counting() {
  const counts: Record<string, number> = {};
  const plugin: KyselyPlugin = {
    transformQuery(args) {
      counts[args.node.kind] = (counts[args.node.kind] ?? 0) + 1;
      return args.node;
    },
    transformResult(args) {
      return Promise.resolve(args.result);
    },
  };
  return {
    plugin,
    counts,
    reset: () => Object.keys(counts).forEach((k) => delete counts[k]),
  };
}

interface Setup {
  readonly t: TestDatabase;
  readonly bus: MemoryBus;
  readonly projector: LedgerProjector;
  readonly errors: [string, string][];
  readonly counter: ReturnType<typeof counting>;
}

async function withProjector(run: (s: Setup) => Promise<void>): Promise<void> {
  await using t = await openTestDatabase();
  const bus = new MemoryBus();
  const errors: [string, string][] = [];
  const counter = counting();
  const projector = new LedgerProjector({
    bus,
    db: t.db.withPlugin(counter.plugin),
    env: "live",
    onError: (e, subject) => errors.push([e instanceof Error ? e.message : String(e), subject]),
    // asOneBatch lets its first change's write start alone: no pace merges it into the batch.
    paceMs: 0,
  });
  try {
    await run({ t, bus, projector, errors, counter });
  } finally {
    await projector.stop();
    await bus.drain();
  }
}

/**
 * Publishes `first` and lets its write start (and wait on the lock), then the rest, which queue
 * behind it and so are written together in one batch once the lock is released.
 */
async function asOneBatch(s: Setup, first: ActorChange, rest: readonly ActorChange[]) {
  const block = await blockTable(s.t, "ledger_entries");
  try {
    await publish(s.bus, first);
    for (const c of rest) await publish(s.bus, c);
  } finally {
    await block.release();
  }
  await s.projector.idle();
}

function rowsOf(t: TestDatabase, client: string) {
  return t.db.selectFrom("ledger_entries").selectAll()
    .where("tenant", "=", TENANT).where("client_id", "=", client).orderBy("seq").execute();
}

Deno.test("LedgerProjector: a batch of many entries is one INSERT; a replay is silent, a reused reference reported", async () => {
  await withProjector(async (s) => {
    const original = entry("r-0", 1);
    const reused = entry("r-1", 2);
    await publish(s.bus, change("c1", [charged(original), charged(reused)]));
    await s.projector.idle();
    s.counter.reset();

    const many = Array.from({ length: 300 }, (_, i) => entry(`r-${100 + i}`, 10 + i));
    const filler = change("c2", [charged(entry("f-1", 1))]);
    const hot = change("c1", [
      ...many.slice(0, 150).map(charged),
      charged(original), // the same entry replayed
      charged(entry("r-1", 500, { created_at: JAN + 500, source_event: "other" })), // another fact
      ...many.slice(150).map(charged),
    ]);
    const duplicate = change("c1", [charged(many[7]!)]); // a change delivered twice, in the batch
    const otherClient = change("c2", [charged(entry("r-100", 2))]); // its own key: no conflict
    await asOneBatch(s, filler, [hot, duplicate, otherClient]);

    assert.deepEqual(s.errors, [
      ["another entry of client c1 holds reference r-1", subjectOfChange(hot)],
    ]);
    const c1 = await rowsOf(s.t, "c1");
    assert.equal(c1.length, 302);
    const r1 = c1.find((r) => r.reference === "r-1");
    assert.equal(r1?.seq, 2, "the reused reference keeps the first fact");
    assert.equal(r1?.source_event, "booked:r-1");
    const r105 = c1.find((r) => r.reference === "r-105");
    assert.equal(r105?.invoiceable, true);
    assert.equal(Number(r105?.amount_minor), 1_015);
    assert.equal(r105?.created_at.getTime(), JAN + 15);
    assert.equal(typeof r105?.event_id, "string", "a shipment charge gets its billing event id");
    assert.deepEqual((await rowsOf(s.t, "c2")).map((r) => r.reference), ["f-1", "r-100"]);
    // The filler's INSERT and its watermarks', then the batch's one INSERT, its watermarks' and
    // one SELECT for the references held (it was 304 INSERTs and 3 SELECTs when each entry was
    // written on its own).
    assert.deepEqual(s.counter.counts, { InsertQueryNode: 4, SelectQueryNode: 1 });
  });
});

Deno.test("LedgerProjector: an FX resolution, invoice and payment see the entries before them in the batch", async () => {
  await withProjector(async (s) => {
    const fx = entry("fx-1", 1, {
      status: "unresolved_fx",
      amount_minor: 0,
      original_amount_minor: 2_000,
      original_currency: "USD",
    });
    const resolution = {
      reference: "fx-1",
      seq: 3,
      period: fx.period,
      kind: fx.kind,
      amount_minor: 27_000,
      currency: "BWP",
      status: "posted",
      recoverable: false,
      original_amount_minor: 2_000,
      original_currency: "USD",
      fx_rate: "13.5",
      fx_source: "test",
      created_at: fx.created_at,
    };
    const invoice = {
      id: "inv-1",
      period: fx.period,
      currency: "BWP",
      amount_minor: 28_002,
      paid_minor: 0,
      supplementary: false,
      issued_at: JAN + 10_000,
      due_on: "2026-02-15",
      watermark: 3,
      entries: 2,
    };
    const pay = entry("pay-1", 5, { kind: "payment", amount_minor: -500, source_event: "pay:1" });
    await asOneBatch(s, change("c0", [charged(entry("f-1", 1))]), [
      change("c1", [
        { kind: "entry_posted", entry: fx, effect: {}, invoiceable: false, by: "t" },
        charged(entry("b-1", 2)),
      ]),
      change("c1", [
        { kind: "fx_resolved", resolution, effect: {}, invoiceable: true, by: "t" },
        { kind: "invoices_issued", invoices: [invoice], by: "t" },
        charged(entry("b-2", 4)), // after the invoice's watermark: not on it
        {
          kind: "payment_received",
          entry: pay,
          effect: {},
          allocations: [{ invoice_id: "inv-1", amount_minor: 500, paid_minor: 500 }],
          unallocated_minor: 0,
          by: "t",
        },
      ]),
      // Within one change too: the resolution follows its entry's insert.
      change("c2", [
        {
          kind: "entry_posted",
          entry: { ...fx, reference: "fx-2" },
          effect: {},
          invoiceable: false,
          by: "t",
        },
        {
          kind: "fx_resolved",
          resolution: { ...resolution, reference: "fx-2" },
          effect: {},
          invoiceable: true,
          by: "t",
        },
      ]),
    ]);

    assert.deepEqual(s.errors, []);
    const c1 = await rowsOf(s.t, "c1");
    assert.deepEqual(
      c1.map((r) => [r.reference, r.seq, r.status, Number(r.amount_minor), r.invoice_id]),
      [
        ["b-1", 2, "posted", 1_002, "inv-1"],
        ["fx-1", 3, "posted", 27_000, "inv-1"],
        ["b-2", 4, "posted", 1_004, null],
        ["pay-1", 5, "posted", -500, null],
      ],
    );
    const inv = await s.t.db.selectFrom("invoices").selectAll().executeTakeFirstOrThrow();
    assert.equal(Number(inv.paid_minor), 500);
    const fx2 = (await rowsOf(s.t, "c2"))[0];
    assert.deepEqual([fx2?.reference, fx2?.status, fx2?.invoiceable], ["fx-2", "posted", true]);
  });
});

Deno.test("LedgerProjector: a resolution books its entry at its own time and period, keeping when the charge arose; the placeholder replayed is silent", async () => {
  await withProjector(async (s) => {
    const fx = entry("fx-1", 1, {
      kind: "duties",
      status: "unresolved_fx",
      amount_minor: 10_000,
      currency: "ZAR",
      source_event: "customs.duties:xing_1",
    });
    const posted = { kind: "entry_posted", entry: fx, effect: {}, invoiceable: false, by: "t" };
    const FEB = Date.UTC(2026, 1, 3);
    const resolution = {
      reference: "fx-1",
      seq: 2,
      period: "2026-02",
      kind: "duties",
      amount_minor: 7_525,
      currency: "BWP",
      status: "posted",
      recoverable: false,
      original_amount_minor: 10_000,
      original_currency: "ZAR",
      fx_rate: "0.7525",
      fx_source: "test",
      created_at: FEB,
      charged_at: fx.created_at,
    };
    await publish(s.bus, change("c1", [posted]));
    await publish(
      s.bus,
      change("c1", [{
        kind: "fx_resolved",
        resolution,
        effect: {},
        invoiceable: true,
        by: "t",
      }]),
    );
    // The placeholder's change delivered again after its resolution: the same fact.
    await publish(s.bus, change("c1", [posted]));
    await s.projector.idle();
    assert.deepEqual(s.errors, []);
    const [row] = await rowsOf(s.t, "c1");
    assert.deepEqual(
      [row?.period, row?.created_at.getTime(), row?.charged_at?.getTime(), row?.source_event],
      ["2026-02", FEB, fx.created_at, "customs.duties:xing_1"],
    );
    assert.deepEqual([row?.status, Number(row?.amount_minor), row?.currency], [
      "posted",
      7_525,
      "BWP",
    ]);
  });
});

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

Deno.test("LedgerProjector: credit on account an invoice issue applies to an earlier invoice is its paid total", async () => {
  await withProjector(async (s) => {
    const invoice = (id: string, amount: number, watermark: number) => ({
      id,
      period: "2026-01",
      currency: "BWP",
      amount_minor: amount,
      paid_minor: Math.min(amount, 0),
      supplementary: id !== "inv-1",
      issued_at: JAN + 10_000,
      due_on: "2026-02-15",
      watermark,
      entries: 1,
    });
    const note = entry("cn-1", 2, {
      kind: "credit_note",
      amount_minor: -300,
      corrects: "b-1",
      source_event: "credit_note.issued:cn-1",
    });
    const credited = change("c1", [
      { kind: "entry_posted", entry: note, effect: {}, invoiceable: true, by: "t" },
      {
        kind: "invoices_issued",
        invoices: [invoice("inv-2", -300, 2)],
        allocations: [{ invoice_id: "inv-1", amount_minor: 300, paid_minor: 300 }],
        by: "t",
      },
    ]);
    await publish(
      s.bus,
      change("c1", [charged(entry("b-1", 1)), {
        kind: "invoices_issued",
        invoices: [invoice("inv-1", 1_001, 1)],
        by: "t",
      }]),
    );
    await publish(s.bus, credited);
    await publish(s.bus, credited); // replayed: changes nothing
    await s.projector.idle();
    assert.deepEqual(s.errors, []);
    const invoices = await s.t.db.selectFrom("invoices").select([
      "id",
      "amount_minor",
      "paid_minor",
    ])
      .orderBy("id").execute();
    assert.deepEqual(
      invoices.map((i) => [i.id, Number(i.amount_minor), Number(i.paid_minor)]),
      [["inv-1", 1_001, 300], ["inv-2", -300, -300]],
    );
  });
});

Deno.test("LedgerProjector: entries of other kinds holding one reference are all stored; a replay is silent", async () => {
  await withProjector(async (s) => {
    const shipment = entry("WB-9", 1);
    // The client pays quoting the waybill; a note is numbered like it, and corrects it.
    const payment = entry("WB-9", 2, { kind: "payment", amount_minor: -500, source_event: "p" });
    const note = entry("WB-9", 3, {
      kind: "credit_note",
      amount_minor: -100,
      source_event: "credit_note.issued:WB-9",
      corrects: "WB-9",
      corrects_kind: "shipment",
    });
    const posted = (e: LedgerEntry) => ({
      kind: "entry_posted",
      entry: e,
      effect: {},
      invoiceable: false,
      by: "t",
    });
    await publish(s.bus, change("c9", [charged(shipment), posted(payment), posted(note)]));
    await s.projector.idle();
    // Delivered again, in one batch with the same entries again: nothing reported, nothing added.
    await asOneBatch(s, change("c9", [posted(payment)]), [
      change("c9", [charged(shipment), posted(note), posted(note)]),
    ]);
    assert.equal(s.errors.length, 0, JSON.stringify(s.errors));
    const stored = await rowsOf(s.t, "c9");
    assert.deepEqual(stored.map((r) => [r.kind, r.reference, r.amount_minor, r.corrects_kind]), [
      ["shipment", "WB-9", 1_001, null],
      ["payment", "WB-9", -500, null],
      ["credit_note", "WB-9", -100, "shipment"],
    ]);
    // Another fact of the same kind under the reference is still a conflict, reported.
    await publish(s.bus, change("c9", [posted(entry("WB-9", 4, { kind: "payment" }))]));
    await s.projector.idle();
    assert.deepEqual(s.errors.map(([m]) => m), ["another entry of client c9 holds reference WB-9"]);
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
