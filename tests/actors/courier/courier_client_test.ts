import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type BookingChargeReply,
  type ClientSettings,
  type CourierClient,
  courierClientActor,
  type CourierClientCommand,
  type CourierClientEvent,
  type CourierClientReply,
  type CourierClientState,
  isWithdrawn,
  keptClientReply,
} from "../../../actors/courier/courier_client.ts";
import {
  accountBalances,
  balancesOf,
  entryAsk,
  type OriginalEntry,
} from "../../../actors/courier/client_ledger.ts";
import {
  ageing,
  balanceOf,
  COD_AWAITING_MAX,
  type EntryStatus,
  isOpen,
  type LedgerEntry,
  NOTES_IN_FLIGHT_MAX,
  OPEN_INVOICES_MAX,
  owedMinor,
  PERIODS_KEPT_MAX,
  REFERENCE_CHARS_MAX,
  uninvoicedMinor,
  UNRESOLVED_FX_MAX,
} from "../../../src/courier/rules/ledger.ts";
import { NOTE_ADJUSTMENTS_MAX, STATE_BYTES_MAX } from "../../../src/limits.ts";
import type { Rejection } from "../../../src/runtime/actor.ts";
import { MemoryBus } from "../../../src/bus/memory_bus.ts";
import { ManualClock } from "../../../src/runtime/clock.ts";
import { KvActorStore } from "../../../src/runtime/kv_store.ts";
import { ActorRuntime } from "../../../src/runtime/runtime.ts";

const T0 = Date.parse("2026-10-12T09:00:00Z");
const DAY = 24 * 60 * 60 * 1000;

type Answer =
  | { readonly ok: true; readonly reply: CourierClientReply; readonly events: CourierClientEvent[] }
  | Rejection;

/** One client account driven through the actor's pure decide and evolve: no KV, no HTTP. */
class Account {
  state: CourierClientState = null;
  now = T0;
  /** Every event the account accepted, in order. */
  readonly events: CourierClientEvent[] = [];
  #ids = 0;

  constructor(settings: Partial<ClientSettings> = {}) {
    this.must({ kind: "create", client: newClient("cli_1", "biz_1", settings), by: "test" });
  }

  get client(): CourierClient {
    assert.ok(this.state);
    return this.state;
  }

  send(command: CourierClientCommand): Answer {
    const ctx = { now: this.now, newId: (p: string) => `${p}_${++this.#ids}` };
    const d = courierClientActor.decide(this.state, command, ctx);
    if (!d.ok) return d;
    let next = this.state;
    for (const e of d.events) next = courierClientActor.evolve(next, e);
    this.state = next;
    this.events.push(...d.events);
    return { ok: true, reply: d.reply ? d.reply(next) : undefined, events: [...d.events] };
  }

  must(command: CourierClientCommand): CourierClientReply {
    const a = this.send(command);
    if (!a.ok) throw new Error(`${command.kind} refused: ${a.code}: ${a.message}`);
    return a.reply;
  }

  refused(command: CourierClientCommand): string {
    const a = this.send(command);
    assert.equal(a.ok, false, `${command.kind} should be refused`);
    return a.ok ? "" : a.code;
  }

  charge(fields: Partial<Extract<CourierClientCommand, { kind: "post_charge" }>> = {}) {
    const reference = fields.reference ?? `CH-${this.events.length + 1}`;
    return this.send({
      kind: "post_charge",
      reference,
      entry_kind: "customs_admin",
      amount_minor: 7_500,
      currency: "BWP",
      reason: "customs administration",
      evidence_path: null,
      source_event: `customs.cleared:${reference}`,
      shipment: "WB1",
      recoverable: false,
      by: "test",
      ...fields,
    });
  }

  /** The entry that `reference` was last posted or resolved as. */
  entry(reference: string): LedgerEntry {
    const e = postedEntries(this.events).find((x) => x.reference === reference);
    assert.ok(e, `no entry ${reference}`);
    return e;
  }
}

function newClient(id: string, business: string, settings: Partial<ClientSettings>) {
  return {
    id,
    business_id: business,
    name: "Molapo Pharmacy",
    code: "MOLAPO",
    email: "accounts@molapo.example",
    settings: {
      settlement_mode: "credit" as const,
      credit_limit_minor: 500_000,
      payment_days: 30,
      billing_currency: "BWP",
      external_system: null,
      unique_external_reference: false,
      rate_card_id: null,
      ...settings,
    },
    api_key: { hash: `hash-${id}`, hint: "abcd", created_at: T0 },
    users: [],
  };
}

/** Every entry the events carry, resolutions replacing what they resolve. */
function postedEntries(events: readonly CourierClientEvent[]): LedgerEntry[] {
  const byRef = new Map<string, LedgerEntry>();
  for (const e of events) {
    switch (e.kind) {
      case "booking_charged":
      case "topped_up":
        if (e.entry) byRef.set(e.entry.reference, e.entry);
        break;
      case "entry_posted":
      case "payment_received":
      case "cod_remitted":
        byRef.set(e.entry.reference, e.entry);
        break;
      case "fx_resolved": {
        const before = byRef.get(e.resolution.reference);
        assert.ok(before);
        byRef.set(e.resolution.reference, { ...before, ...e.resolution });
        break;
      }
    }
  }
  return [...byRef.values()];
}

function sumOf(entries: readonly LedgerEntry[], status: EntryStatus = "posted"): number {
  return entries.filter((e) => e.status === status).reduce((n, e) => n + e.amount_minor, 0);
}

function original(a: Account, reference: string): OriginalEntry {
  const e = a.entry(reference);
  const notes = postedEntries(a.events).filter((x) => x.corrects === reference);
  return {
    reference: e.reference,
    kind: e.kind,
    amount_minor: e.amount_minor,
    currency: e.currency,
    status: e.status,
    recoverable: e.recoverable,
    shipment: e.shipment,
    net_minor: e.amount_minor + notes.reduce((n, x) => n + x.amount_minor, 0),
  };
}

function invoices(reply: CourierClientReply) {
  assert.ok(reply && "invoices" in reply);
  return reply.invoices;
}

Deno.test("client account: a later charge posts as its own entry with payer, reason and source event", () => {
  const a = new Account();
  const r = a.charge({ reference: "CUS-1", evidence_path: "s3://evidence/cus-1.pdf" });
  assert.ok(r.ok);
  const e = a.entry("CUS-1");
  assert.equal(e.kind, "customs_admin");
  assert.equal(e.payer, "client");
  assert.equal(e.status, "posted");
  assert.equal(e.source_event, "customs.cleared:CUS-1");
  assert.equal(e.reason, "customs administration");
  assert.equal(e.period, "2026-10");
  assert.equal(e.seq, 1);
  assert.equal(a.client.money.receivable_minor, 7_500);
  assert.equal(
    a.refused({
      kind: "post_charge",
      reference: "X",
      entry_kind: "waiting",
      amount_minor: 0,
      currency: "BWP",
      reason: "waiting",
      evidence_path: null,
      source_event: "run.waiting:1",
      shipment: null,
      recoverable: false,
      by: "test",
    }),
    "invalid_amount",
  );
});

Deno.test("client account: duties are recoverable, kept apart from the receivable and need evidence", () => {
  const a = new Account();
  a.charge({ reference: "CUS-1" });
  assert.equal(
    a.charge({ reference: "DUT-1", entry_kind: "duties", recoverable: true }).ok,
    false,
    "duties without evidence are refused",
  );
  assert.ok(
    a.charge({
      reference: "DUT-1",
      entry_kind: "duties",
      recoverable: true,
      amount_minor: 20_000,
      evidence_path: "s3://evidence/duties-1.pdf",
    }).ok,
  );
  const b = accountBalances(a.client);
  assert.equal(b.receivable_minor, 7_500, "duties are not revenue");
  assert.equal(b.recoverable_minor, 20_000);
  assert.equal(b.available_minor, 500_000 - 27_500, "yet owed: they use credit");
  assert.equal(b.owed_minor, 27_500);
  assert.equal(a.entry("DUT-1").recoverable, true);
});

Deno.test("client account: a charge in another currency with a rate records the conversion", () => {
  const a = new Account();
  a.charge({
    reference: "DUT-ZA",
    entry_kind: "duties",
    recoverable: true,
    evidence_path: "s3://e.pdf",
    amount_minor: 123_456, // 1,234.56 ZAR
    currency: "ZAR",
    fx: { rate: "0.75250000", source: "Bank of Botswana 2026-10-12" },
  });
  const e = a.entry("DUT-ZA");
  assert.equal(e.currency, "BWP");
  assert.equal(e.amount_minor, 92_901); // 1,234.56 x 0.7525 = 929.0064 -> 929.01
  assert.equal(e.original_amount_minor, 123_456);
  assert.equal(e.original_currency, "ZAR");
  assert.equal(e.fx_rate, "0.7525");
  assert.equal(e.fx_source, "Bank of Botswana 2026-10-12");
  assert.equal(a.client.ledger.recoverable_minor, 92_901);
});

Deno.test("client account: a charge whose rate converts it to nothing is refused, never posted as 0.00", () => {
  const a = new Account();
  const sent = a.send({
    kind: "post_charge",
    reference: "CUS-ZA",
    entry_kind: "customs_admin",
    amount_minor: 10_000, // 100.00 ZAR at 0.0000001: 0.00001 BWP
    currency: "ZAR",
    reason: "customs administration",
    evidence_path: null,
    source_event: "customs.cleared:CUS-ZA",
    shipment: null,
    recoverable: false,
    fx: { rate: "0.0000001", source: "Bank of Botswana" },
    by: "t",
  });
  assert.equal(sent.ok ? "" : sent.code, "invalid_fx_rate");
  assert.match(sent.ok ? "" : sent.message, /^fx\.rate: /);
  assert.equal(a.client.ledger.seq, 0, "nothing booked");
});

Deno.test("client account: without a rate a charge is unresolved_fx, out of balances, then resolved", () => {
  const a = new Account();
  a.charge({ reference: "CUS-ZA", amount_minor: 10_000, currency: "ZAR" });
  const e = a.entry("CUS-ZA");
  assert.equal(e.status, "unresolved_fx");
  assert.equal(e.currency, "ZAR");
  assert.equal(e.amount_minor, 10_000, "kept in its own currency, never one-to-one");
  assert.equal(a.client.money.receivable_minor, 0);
  assert.equal(owedMinor(balancesOf(a.client)), 0);
  assert.deepEqual(a.client.ledger.unresolved.map((u) => u.reference), ["CUS-ZA"]);
  assert.equal(uninvoicedMinor(a.client.ledger, "BWP"), 0);
  assert.equal(
    a.refused({ kind: "issue_invoice", period: "2026-10", by: "t" }),
    "nothing_to_invoice",
  );

  assert.equal(
    a.refused({
      kind: "resolve_fx",
      reference: "CUS-ZA",
      rate: "0.1234567891",
      source: "x",
      by: "t",
    }),
    "invalid_fx_rate",
  );
  assert.equal(
    a.refused({ kind: "resolve_fx", reference: "NOPE", rate: "0.75", source: "x", by: "t" }),
    "not_found",
  );
  a.now += 40 * DAY; // resolved in November: booked in November, arose in October
  a.must({ kind: "resolve_fx", reference: "CUS-ZA", rate: "0.7525", source: "BoB", by: "t" });
  const resolved = a.entry("CUS-ZA");
  assert.equal(resolved.status, "posted");
  assert.equal(resolved.amount_minor, 7_525);
  assert.equal(resolved.currency, "BWP");
  assert.equal(resolved.original_amount_minor, 10_000);
  assert.equal(resolved.period, "2026-11");
  assert.equal(resolved.created_at, a.now);
  assert.equal(resolved.charged_at, T0);
  assert.equal(a.client.money.receivable_minor, 7_525);
  assert.deepEqual(a.client.ledger.unresolved, []);
  assert.equal(a.client.ledger.periods["2026-11|BWP"]?.uninvoiced_minor, 7_525);
  assert.equal(a.client.ledger.periods["2026-10|BWP"], undefined, "October is left as it was");
  assert.equal(
    a.refused({ kind: "resolve_fx", reference: "CUS-ZA", rate: "0.75", source: "x", by: "t" }),
    "not_found",
    "a conversion resolves once",
  );
});

Deno.test("client account: charges awaiting a rate are bounded and refused beyond with a clear code", () => {
  const a = new Account();
  for (let i = 0; i < UNRESOLVED_FX_MAX; i++) {
    assert.ok(a.charge({ reference: `U-${i}`, currency: "USD" }).ok);
  }
  const r = a.charge({ reference: "U-over", currency: "USD" });
  assert.equal(r.ok ? "" : r.code, "unresolved_fx_limit");
  // A charge with its rate still posts.
  assert.ok(
    a.charge({ reference: "U-rated", currency: "USD", fx: { rate: "13.6", source: "x" } }).ok,
  );
});

Deno.test("client account: a correction is a debit or credit note pointing at the original", () => {
  const a = new Account();
  a.charge({ reference: "W-1", entry_kind: "waiting", amount_minor: 5_000 });
  const credit = a.must({
    kind: "correct",
    original: original(a, "W-1"),
    seen_seq: a.client.ledger.seq,
    amount_minor: -2_000,
    reason: "waiting time was 20 minutes, not 50",
    by: "t",
  });
  assert.ok(credit && "entry" in credit);
  assert.equal(credit.entry.kind, "credit_note");
  assert.equal(credit.entry.corrects, "W-1");
  assert.equal(credit.entry.amount_minor, -2_000);
  assert.equal(credit.entry.source_event, `credit_note.issued:${credit.entry.reference}`);
  assert.equal(a.client.money.receivable_minor, 3_000);
  assert.equal(
    a.refused({
      kind: "correct",
      original: original(a, "W-1"),
      seen_seq: a.client.ledger.seq,
      amount_minor: -3_001,
      reason: "too much",
      by: "t",
    }),
    "correction_exceeds_entry",
  );
  const debit = a.must({
    kind: "correct",
    original: original(a, "W-1"),
    seen_seq: a.client.ledger.seq,
    amount_minor: 1_000,
    reason: "second wait",
    reference: "DN-7",
    by: "t",
  });
  assert.ok(debit && "entry" in debit);
  assert.equal(debit.entry.kind, "debit_note");
  assert.equal(debit.entry.reference, "DN-7");
  assert.equal(a.client.money.receivable_minor, 4_000);
  // The original entry is untouched: still 50.00.
  assert.equal(a.entry("W-1").amount_minor, 5_000);
});

Deno.test("client account: a note is judged with the notes Postgres had not seen when it was read", () => {
  const a = new Account();
  a.charge({ reference: "W-1", entry_kind: "waiting", amount_minor: 5_000 });
  // Postgres held the charge (seq 1) and no note when both notes were read.
  const stale = { ...original(a, "W-1"), net_minor: 5_000 };
  const note = (amount: number, seen: number) =>
    a.send({
      kind: "correct",
      original: stale,
      seen_seq: seen,
      amount_minor: amount,
      reason: "refund",
      by: "t",
    });
  assert.ok(note(-4_000, 1).ok);
  const second = note(-4_000, 1);
  assert.equal(second.ok ? "" : second.code, "correction_exceeds_entry");
  assert.ok(note(-1_000, 1).ok, "up to zero");
  assert.equal(a.client.ledger.notes?.pending.length, 2);
  // A read that saw both notes (seq 3) lets the account drop them; an older read is read again.
  const seen = a.send({
    kind: "correct",
    original: { ...stale, net_minor: 0 },
    seen_seq: 3,
    amount_minor: 500,
    reason: "debit",
    by: "t",
  });
  assert.ok(seen.ok);
  assert.deepEqual(a.client.ledger.notes, {
    seen_seq: 3,
    pending: [
      { corrects: "W-1", corrects_kind: "waiting", seq: 4, amount_minor: 500, shipment: "WB1" },
    ],
  });
  const old = note(-100, 2);
  assert.equal(old.ok ? "" : old.code, "ledger_catching_up");
});

Deno.test("client account: a note joins fewer than NOTE_ADJUSTMENTS_MAX adjustments of its shipment, those in flight counted", () => {
  const a = new Account();
  a.charge({ reference: "W-1", entry_kind: "waiting", amount_minor: 5_000, shipment: "WB1" });
  a.charge({ reference: "W-2", entry_kind: "waiting", amount_minor: 5_000, shipment: "WB2" });
  // spec: courier 2.7: Postgres held one short of the bound on WB1 when the entry was read.
  const full = { ...original(a, "W-1"), shipment_adjustments: NOTE_ADJUSTMENTS_MAX - 1 };
  const note = (o: OriginalEntry) =>
    a.send({ kind: "correct", original: o, seen_seq: 2, amount_minor: 1, reason: "d", by: "t" });
  assert.ok(note(full).ok);
  const refused = note(full);
  assert.equal(refused.ok ? "" : refused.code, "adjustments_limit");
  assert.ok(note({ ...original(a, "W-2"), shipment_adjustments: 1 }).ok, "another shipment's");
});

Deno.test("client account: notes awaiting Postgres are bounded; a later read makes room", () => {
  const a = new Account();
  a.charge({ reference: "W-1", entry_kind: "waiting", amount_minor: 5_000 });
  const o = original(a, "W-1");
  const debit = (seen: number) =>
    a.send({ kind: "correct", original: o, seen_seq: seen, amount_minor: 1, reason: "d", by: "t" });
  for (let i = 0; i < NOTES_IN_FLIGHT_MAX; i++) assert.ok(debit(1).ok);
  const full = debit(1);
  assert.equal(full.ok ? "" : full.code, "ledger_catching_up");
  assert.ok(debit(1 + NOTES_IN_FLIGHT_MAX).ok, "Postgres caught up: the old notes are let go");
  assert.equal(a.client.ledger.notes?.pending.length, 1);
  assert.ok(JSON.stringify(a.client).length < STATE_BYTES_MAX);
});

Deno.test("client account: entries after an invoice go on a supplementary invoice of the period", () => {
  const a = new Account({ payment_days: 14 });
  a.charge({ reference: "A", amount_minor: 1_000 });
  a.charge({ reference: "B", amount_minor: 2_000 });
  const [first, ...others] = invoices(
    a.must({ kind: "issue_invoice", period: "2026-10", by: "t" }),
  );
  assert.equal(others.length, 0);
  assert.equal(first!.amount_minor, 3_000);
  assert.equal(first!.supplementary, false);
  assert.equal(first!.watermark, 2);
  assert.equal(first!.entries, 2);
  assert.equal(first!.due_on, "2026-10-26");
  assert.equal(
    a.refused({ kind: "issue_invoice", period: "2026-10", by: "t" }),
    "nothing_to_invoice",
  );

  a.now += 3 * DAY;
  a.charge({ reference: "LATE", amount_minor: 500 });
  const [late] = invoices(a.must({ kind: "issue_invoice", period: "2026-10", by: "t" }));
  assert.equal(late!.supplementary, true);
  assert.equal(late!.amount_minor, 500);
  assert.equal(late!.watermark, 3);
  // The first invoice was not rewritten.
  assert.equal(a.client.ledger.invoices.find((i) => i.id === first!.id)?.amount_minor, 3_000);
  assert.equal(a.refused({ kind: "issue_invoice", period: "2026-13", by: "t" }), "invalid_period");
});

Deno.test("client account: payments pay invoices; what is left is credit on account for the next one", () => {
  const a = new Account();
  a.charge({ reference: "A", amount_minor: 10_000 });
  const [inv] = invoices(a.must({ kind: "issue_invoice", period: "2026-10", by: "t" }));
  const pay = (amount_minor: number, reference: string, allocations = [{
    invoice_id: inv!.id,
    amount_minor,
  }]) => ({
    kind: "payment" as const,
    amount_minor,
    currency: "BWP",
    reference,
    allocations,
    by: "t",
  });
  assert.equal(a.refused(pay(10_001, "P0")), "allocation_exceeds_invoice");
  assert.equal(
    a.refused({ ...pay(5_000, "P0"), allocations: [{ invoice_id: inv!.id, amount_minor: 6_000 }] }),
    "allocations_exceed_payment",
  );
  assert.equal(a.refused({ ...pay(1_000, "P0"), currency: "ZAR" }), "currency_mismatch");
  a.must(pay(4_000, "P1"));
  assert.equal(a.client.ledger.invoices[0]!.paid_minor, 4_000);
  assert.equal(a.client.money.receivable_minor, 6_000);
  a.must({ ...pay(9_000, "P2"), allocations: [] });
  assert.equal(isOpen(a.client.ledger.invoices[0]!), false);
  assert.equal(a.client.ledger.unallocated.BWP, 3_000);
  assert.equal(a.client.money.receivable_minor, -3_000, "credit on account");
  a.charge({ reference: "B", amount_minor: 2_000 });
  const [next] = invoices(a.must({ kind: "issue_invoice", period: "2026-10", by: "t" }));
  assert.equal(next!.paid_minor, 2_000, "the credit paid the next invoice");
  assert.equal(a.client.ledger.unallocated.BWP, 1_000);
});

Deno.test("client account: a credit invoice's credit pays the open invoices at issue, oldest first", () => {
  const a = new Account();
  a.charge({ reference: "A", amount_minor: 10_000 });
  const [first] = invoices(a.must({ kind: "issue_invoice", period: "2026-10", by: "t" }));
  a.now += DAY;
  a.must({
    kind: "correct",
    original: original(a, "A"),
    seen_seq: 0,
    amount_minor: -3_000,
    reason: "overcharged",
    by: "t",
  });
  const [credit] = invoices(a.must({ kind: "issue_invoice", period: "2026-10", by: "t" }));
  assert.deepEqual([credit!.amount_minor, credit!.paid_minor, isOpen(credit!)], [
    -3_000,
    -3_000,
    false,
  ]);
  const issued = a.events.at(-1)!;
  assert.ok(issued.kind === "invoices_issued");
  assert.deepEqual(issued.allocations, [
    { invoice_id: first!.id, amount_minor: 3_000, paid_minor: 3_000 },
  ]);
  // spec: courier 2.6 rule 5: the first invoice's amount is not rewritten, it is paid.
  const inv = a.client.ledger.invoices.find((i) => i.id === first!.id)!;
  assert.deepEqual([inv.amount_minor, inv.paid_minor], [10_000, 3_000]);
  assert.deepEqual(a.client.ledger.unallocated, {});
  a.must({ kind: "payment", amount_minor: 7_000, currency: "BWP", reference: "P1", by: "t" });
  assert.equal(a.client.ledger.invoices.some(isOpen), false, "paid in full: nothing open");
  assert.equal(owedMinor(balancesOf(a.client)), 0);
});

Deno.test("client account: at the open-invoice bound a credit invoice is still issued and pays the oldest", () => {
  const a = new Account();
  for (let n = 0; n < OPEN_INVOICES_MAX; n++) {
    a.charge({ reference: `C${n}`, amount_minor: 1_000 });
    a.must({ kind: "issue_invoice", period: "2026-10", by: "t" });
  }
  a.charge({ reference: "MORE", amount_minor: 1_000 });
  assert.equal(
    a.refused({ kind: "issue_invoice", period: "2026-10", by: "t" }),
    "open_invoices_limit",
    "another open invoice is refused",
  );
  a.must({
    kind: "correct",
    original: original(a, "C0"),
    seen_seq: 0,
    amount_minor: -1_000,
    reason: "not owed",
    by: "t",
  });
  a.must({
    kind: "correct",
    original: original(a, "C1"),
    seen_seq: 0,
    amount_minor: -1_000,
    reason: "not owed",
    by: "t",
  });
  // spec: courier 2.6 rule 5: the notes go on a supplementary (credit) invoice; it opens nothing,
  // so the bound on open invoices does not hold it back.
  const [credit] = invoices(a.must({ kind: "issue_invoice", period: "2026-10", by: "t" }));
  assert.deepEqual([credit!.amount_minor, isOpen(credit!)], [-1_000, false]);
  assert.equal(a.client.ledger.invoices.filter(isOpen).length, OPEN_INVOICES_MAX - 1);
  assert.equal(a.client.ledger.invoices[0]!.paid_minor, 1_000, "the oldest is paid");
});

Deno.test("client account: credit left on account beside an open invoice (older events) pays it at the next issue", () => {
  const a = new Account();
  a.charge({ reference: "A", amount_minor: 10_000 });
  const [first] = invoices(a.must({ kind: "issue_invoice", period: "2026-10", by: "t" }));
  a.must({
    kind: "correct",
    original: original(a, "A"),
    seen_seq: 0,
    amount_minor: -3_000,
    reason: "overcharged",
    by: "t",
  });
  // A credit invoice booked by an event written before allocations were recorded.
  a.state = courierClientActor.evolve(a.state, {
    kind: "invoices_issued",
    invoices: [{ ...first!, id: "inv_old", amount_minor: -3_000, paid_minor: -3_000, entries: 1 }],
    by: "t",
  });
  assert.equal(a.client.ledger.unallocated.BWP, 3_000);
  a.now += DAY;
  a.charge({ reference: "B", amount_minor: 2_000 });
  const [next] = invoices(a.must({ kind: "issue_invoice", period: "2026-10", by: "t" }));
  assert.equal(next!.paid_minor, 0, "the older invoice is paid first");
  assert.equal(a.client.ledger.invoices.find((i) => i.id === first!.id)!.paid_minor, 3_000);
  assert.deepEqual(a.client.ledger.unallocated, {});
});

Deno.test("client account: COD reduces what the client owes only once it is remitted", () => {
  const a = new Account();
  a.charge({ reference: "A", amount_minor: 10_000 });
  a.must({ kind: "cod_collected", waybill: "WB1", amount_minor: 25_000, currency: "BWP", by: "d" });
  assert.equal(a.client.money.receivable_minor, 10_000, "collected is not yet remitted");
  assert.equal(a.client.ledger.cod.length, 1);
  assert.equal(
    a.refused({ kind: "cod_remitted", waybill: "WB2", evidence_path: "x", by: "t" }),
    "cod_not_collected",
  );
  a.must({ kind: "cod_remitted", waybill: "WB1", evidence_path: "s3://slip.pdf", by: "t" });
  const e = a.entry("cod:WB1");
  assert.equal(e.kind, "cod_remitted");
  assert.equal(e.amount_minor, -25_000);
  assert.equal(e.evidence_path, "s3://slip.pdf");
  assert.equal(a.client.money.receivable_minor, -15_000);
  assert.deepEqual(a.client.ledger.cod, []);
});

Deno.test("client account: COD remitted ahead of the invoice recovers only the duties that invoice's payment covers", () => {
  // spec: courier 2.6: duties are recoverable, kept apart from charges; rule 6: COD reduces what
  // is owed once remitted. 100.00 charges and 50.00 duties, 120.00 COD remitted before invoicing:
  // the invoice's charges are paid, then 20.00 of its duties; 30.00 duties stay unrecovered.
  for (const received of ["cod", "payment"] as const) {
    const a = new Account();
    a.charge({ reference: "A", amount_minor: 10_000 });
    a.charge({
      reference: "DUT-1",
      entry_kind: "duties",
      amount_minor: 5_000,
      recoverable: true,
      evidence_path: "s3://duty.pdf",
      source_event: "customs.duties:xing_1",
    });
    if (received === "cod") {
      a.must({
        kind: "cod_collected",
        waybill: "WB1",
        amount_minor: 12_000,
        currency: "BWP",
        by: "d",
      });
      a.must({ kind: "cod_remitted", waybill: "WB1", evidence_path: "s3://slip.pdf", by: "t" });
    } else {
      a.must({ kind: "payment", amount_minor: 12_000, currency: "BWP", reference: "P1", by: "t" });
    }
    assert.equal(owedMinor(balancesOf(a.client)), 3_000, received);
    const [inv] = invoices(a.must({ kind: "issue_invoice", period: "2026-10", by: "t" }));
    assert.deepEqual([inv!.amount_minor, inv!.paid_minor, inv!.recoverable_minor], [
      15_000,
      12_000,
      5_000,
    ]);
    // What the invoice still owes is duties only: none of it is a charge.
    assert.deepEqual(balancesOf(a.client), {
      prepaid_minor: 0,
      receivable_minor: 0,
      recoverable_minor: 3_000,
    }, received);
  }
});

Deno.test("client account: external settlement records entries but posts no receivable", () => {
  const a = new Account({ settlement_mode: "external" });
  a.must({ kind: "charge_booking", waybill: "WB1", amount_minor: 8_892, currency: "BWP", by: "t" });
  a.charge({ reference: "CUS-1" });
  assert.equal(a.entry("WB1").status, "external");
  assert.equal(a.entry("CUS-1").status, "external");
  assert.deepEqual(balancesOf(a.client), {
    prepaid_minor: 0,
    receivable_minor: 0,
    recoverable_minor: 0,
  });
  assert.equal(
    a.refused({ kind: "issue_invoice", period: "2026-10", by: "t" }),
    "external_settlement",
  );
  assert.equal(
    a.refused({ kind: "payment", amount_minor: 1, currency: "BWP", reference: "P", by: "t" }),
    "external_settlement",
  );
  assert.deepEqual(a.client.ledger.periods, {});
});

Deno.test("client account: prepaid spends funds on later charges, past zero; payments are refused", () => {
  const a = new Account({ settlement_mode: "prepaid" });
  a.must({ kind: "top_up", amount_minor: 10_000, currency: "BWP", reference: "T1", by: "t" });
  assert.equal(a.entry("T1").amount_minor, -10_000);
  a.must({ kind: "charge_booking", waybill: "WB1", amount_minor: 8_892, currency: "BWP", by: "t" });
  a.charge({ reference: "R-1", entry_kind: "redelivery", amount_minor: 3_000 });
  assert.equal(a.client.money.prepaid_minor, -1_892);
  assert.equal(owedMinor(balancesOf(a.client)), sumOf(postedEntries(a.events)));
  assert.equal(
    a.refused({ kind: "payment", amount_minor: 1, currency: "BWP", reference: "P", by: "t" }),
    "not_credit",
  );
  assert.equal(
    a.refused({ kind: "issue_invoice", period: "2026-10", by: "t" }),
    "nothing_to_invoice",
  );
  assert.equal(
    a.refused({ kind: "change_settings", changes: { billing_currency: "ZAR" }, by: "t" }),
    "balance_not_settled",
  );
});

Deno.test("client settings: a new billing currency needs the credit limit again, in that currency", () => {
  const a = new Account(); // credit, 5,000.00 BWP, nothing owed
  const bare = a.send({ kind: "change_settings", changes: { billing_currency: "JPY" }, by: "t" });
  assert.equal(bare.ok, false);
  assert.equal(!bare.ok && bare.code, "validation_failed");
  assert.deepEqual(
    !bare.ok && (bare.details?.errors as { path: string }[]).map((e) => e.path),
    ["credit_limit"],
  );
  assert.deepEqual(a.client.settings, newClient("cli_1", "biz_1", {}).settings);
  a.must({
    kind: "change_settings",
    changes: { billing_currency: "JPY", credit_limit_minor: 5_000 },
    by: "t",
  });
  assert.equal(a.client.settings.billing_currency, "JPY");
  assert.equal(a.client.settings.credit_limit_minor, 5_000);
  // Without a credit limit there is no amount to name again.
  const none = new Account({ credit_limit_minor: 0 });
  none.must({ kind: "change_settings", changes: { billing_currency: "ZAR" }, by: "t" });
  assert.equal(none.client.settings.billing_currency, "ZAR");
});

Deno.test("client settings: a change checked against a currency or rate card that moved since is refused", () => {
  const a = new Account({ rate_card_id: "rc_1" });
  const basis = { billing_currency: "BWP", rate_card_id: "rc_1" };
  a.must({ kind: "change_settings", changes: { rate_card_id: "rc_2" }, basis, by: "t" });
  assert.equal(
    a.refused({ kind: "change_settings", changes: { payment_days: 10 }, basis, by: "t" }),
    "settings_changed",
  );
  assert.equal(a.client.settings.payment_days, 30);
  a.must({
    kind: "change_settings",
    changes: { payment_days: 10 },
    basis: { ...basis, rate_card_id: "rc_2" },
    by: "t",
  });
  assert.equal(a.client.settings.payment_days, 10);
});

Deno.test("client account: at every bound the state stays under STATE_BYTES_MAX", () => {
  const a = new Account();
  const long = (p: string, i: number) => `${p}${i}`.padEnd(REFERENCE_CHARS_MAX, "x");
  // Invoices: one per month for long enough that settled ones and periods are pruned.
  const months = OPEN_INVOICES_MAX + PERIODS_KEPT_MAX + 6;
  for (let m = 0; m < months; m++) {
    a.now = Date.UTC(2020, m, 3);
    assert.ok(a.charge({ reference: long("M", m), amount_minor: 100_000_000 }).ok);
    a.must({ kind: "issue_invoice", period: new Date(a.now).toISOString().slice(0, 7), by: "t" });
    if (m < months - OPEN_INVOICES_MAX) {
      a.must({
        kind: "payment",
        amount_minor: 100_000_000,
        currency: "BWP",
        reference: long("P", m),
        by: "t",
      });
    }
  }
  assert.equal(a.client.ledger.invoices.filter(isOpen).length, OPEN_INVOICES_MAX);
  a.charge({ reference: "ONE-MORE", amount_minor: 1 });
  assert.equal(
    a.refused({ kind: "issue_invoice", period: "2024-06", by: "t" }),
    "open_invoices_limit",
  );
  for (let i = 0; i < UNRESOLVED_FX_MAX; i++) {
    assert.ok(
      a.charge({ reference: long("U", i), entry_kind: "failed_collection", currency: "USD" }).ok,
    );
  }
  for (let i = 0; i < COD_AWAITING_MAX; i++) {
    a.must({
      kind: "cod_collected",
      waybill: long("W", i),
      amount_minor: 99_999_999,
      currency: "BWP",
      by: "t",
    });
  }
  assert.equal(
    a.refused({
      kind: "cod_collected",
      waybill: "W-over",
      amount_minor: 1,
      currency: "BWP",
      by: "t",
    }),
    "cod_awaiting_limit",
  );
  assert.ok(Object.keys(a.client.ledger.periods).length <= PERIODS_KEPT_MAX + 1);
  const bytes = JSON.stringify({ v: 2, tenant: "biz_1", state: a.client, seq: 99_999 }).length;
  assert.ok(bytes < STATE_BYTES_MAX * 0.85, `state at its bounds: ${bytes} bytes`);
});

Deno.test("client account: a stored version-1 client loads with an empty ledger", () => {
  const a = new Account();
  const { ledger: _, ...v1 } = a.client;
  const loaded = courierClientActor.load!(v1, 1);
  assert.ok(loaded);
  assert.deepEqual(loaded.ledger.invoices, []);
  assert.equal(loaded.ledger.seq, 0);
});

type Step =
  | { op: "charge"; amount: number; recoverable: boolean; foreign: boolean }
  | { op: "resolve"; pick: number; rate: number }
  | { op: "payment"; amount: number; allocate: boolean }
  | { op: "note"; pick: number; amount: number }
  | { op: "invoice" }
  | { op: "days"; days: number }
  | { op: "cod"; amount: number; remit: boolean }
  | { op: "top_up"; amount: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    op: fc.constant("charge" as const),
    amount: fc.integer({ min: 1, max: 5_000_000 }),
    recoverable: fc.boolean(),
    foreign: fc.boolean(),
  }),
  fc.record({
    op: fc.constant("resolve" as const),
    pick: fc.nat(),
    rate: fc.integer({ min: 1, max: 2_000_000_000 }),
  }),
  fc.record({
    op: fc.constant("payment" as const),
    amount: fc.integer({ min: 1, max: 5_000_000 }),
    allocate: fc.boolean(),
  }),
  fc.record({
    op: fc.constant("note" as const),
    pick: fc.nat(),
    amount: fc.integer({ min: -5_000_000, max: 5_000_000 }).filter((n) => n !== 0),
  }),
  fc.record({ op: fc.constant("invoice" as const) }),
  fc.record({ op: fc.constant("days" as const), days: fc.integer({ min: 1, max: 45 }) }),
  fc.record({
    op: fc.constant("cod" as const),
    amount: fc.integer({ min: 1, max: 1_000_000 }),
    remit: fc.boolean(),
  }),
  fc.record({ op: fc.constant("top_up" as const), amount: fc.integer({ min: 1, max: 5_000_000 }) }),
);

function play(a: Account, step: Step, n: number): void {
  const refs = postedEntries(a.events);
  switch (step.op) {
    case "charge":
      a.charge({
        reference: `C${n}`,
        amount_minor: step.amount,
        recoverable: step.recoverable,
        ...(step.recoverable ? { entry_kind: "duties", evidence_path: "e.pdf" } : {}),
        ...(step.foreign ? { currency: "JPY" } : {}),
      });
      return;
    case "resolve": {
      const u = a.client.ledger.unresolved;
      if (u.length === 0) return;
      const rate = `${Math.floor(step.rate / 1e8)}.${String(step.rate % 1e8).padStart(8, "0")}`;
      const r = a.send({
        kind: "resolve_fx",
        reference: u[step.pick % u.length]!.reference,
        rate,
        source: "p",
        by: "t",
      });
      // spec: courier 2.6 rules 1, 4: only a rate that rounds the charge to nothing is refused.
      if (!r.ok) assert.equal(r.code, "invalid_fx_rate", r.message);
      return;
    }
    case "payment": {
      const open = a.client.ledger.invoices.find(isOpen);
      const allocations = step.allocate && open
        ? [{ invoice_id: open.id, amount_minor: Math.min(balanceOf(open), step.amount) }]
        : [];
      a.send({
        kind: "payment",
        amount_minor: step.amount,
        currency: "BWP",
        reference: `P${n}`,
        allocations,
        by: "t",
      });
      return;
    }
    case "note": {
      const charges = refs.filter((e) => e.kind === "customs_admin" || e.kind === "duties");
      if (charges.length === 0) return;
      const target = charges[step.pick % charges.length]!;
      a.send({
        kind: "correct",
        original: original(a, target.reference),
        seen_seq: a.client.ledger.seq,
        amount_minor: step.amount,
        reason: "r",
        by: "t",
      });
      return;
    }
    case "invoice":
      a.send({ kind: "issue_invoice", period: new Date(a.now).toISOString().slice(0, 7), by: "t" });
      return;
    case "days":
      a.now += step.days * DAY;
      return;
    case "cod":
      a.send({
        kind: "cod_collected",
        waybill: `WB${n}`,
        amount_minor: step.amount,
        currency: "BWP",
        by: "d",
      });
      if (step.remit) {
        a.must({ kind: "cod_remitted", waybill: `WB${n}`, evidence_path: "slip", by: "t" });
      }
      return;
    case "top_up":
      a.send({
        kind: "top_up",
        amount_minor: step.amount,
        currency: "BWP",
        reference: `T${n}`,
        by: "t",
      });
      return;
  }
}

for (const mode of ["credit", "prepaid"] as const) {
  Deno.test(
    `client account (${mode}): for any sequence of charges, payments and notes the balances equal the posted entries, and ageing adds up to what is owed`,
    () => {
      fc.assert(
        fc.property(fc.array(stepArb, { maxLength: 80, size: "max" }), (steps) => {
          const a = new Account({ settlement_mode: mode });
          steps.forEach((s, n) => {
            play(a, s, n);
            const entries = postedEntries(a.events);
            const owed = owedMinor(balancesOf(a.client));
            assert.equal(owed, sumOf(entries));
            // Unresolved conversions stay out of the balances and in the queue.
            assert.equal(
              a.client.ledger.unresolved.length,
              entries.filter((e) => e.status === "unresolved_fx").length,
            );
            if (mode === "credit") {
              const book = a.client.ledger;
              const open = book.invoices.filter(isOpen).reduce((x, i) => x + balanceOf(i), 0);
              assert.equal(open + uninvoicedMinor(book, "BWP") - (book.unallocated.BWP ?? 0), owed);
              // spec: courier 4.2: credit on account never waits beside an open invoice, and the
              // ageing buckets add up to what is owed, none below zero.
              if ((book.unallocated.BWP ?? 0) > 0) assert.equal(book.invoices.some(isOpen), false);
              const aged = Object.values(ageing(book, "BWP", a.now));
              assert.ok(aged.every((x) => x >= 0), String(aged));
              assert.equal(aged.reduce((x, y) => x + y, 0), Math.max(owed, 0));
            } else {
              // Prepaid funds taken below zero by later charges are owed now (courier 4.2).
              const prepaid = balancesOf(a.client).prepaid_minor;
              const aged = ageing(a.client.ledger, "BWP", a.now, prepaid);
              assert.deepEqual(aged, { ...aged, current: Math.max(owed, 0) }, String(prepaid));
            }
          });
        }),
        { numRuns: 200 },
      );
    },
  );
}

Deno.test("client account runtime: the same source event books once, even asked concurrently", async () => {
  const store = await KvActorStore.open(":memory:");
  const bus = new MemoryBus();
  const clock = new ManualClock(T0);
  const runtime = new ActorRuntime({
    env: "test",
    store,
    bus,
    clock,
    definitions: [courierClientActor],
    onError: () => {},
  });
  await runtime.start();
  try {
    const created = await runtime.ask(courierClientActor, "biz_1", "cli_1", {
      kind: "create",
      client: newClient("cli_1", "biz_1", {}),
      by: "test",
    });
    assert.ok(created.ok);
    const charge = (reference: string): CourierClientCommand => ({
      kind: "post_charge",
      reference,
      entry_kind: "customs_admin",
      amount_minor: 7_500,
      currency: "BWP",
      reason: "customs administration",
      evidence_path: null,
      source_event: "customs.cleared:crs_1",
      shipment: "WB1",
      recoverable: false,
      by: "test",
    });
    const options = entryAsk("customs.cleared:crs_1");
    assert.deepEqual(options, { idempotencyKey: "entry:customs.cleared:crs_1", permanent: true });
    const answers = await Promise.all(
      Array.from(
        { length: 10 },
        () => runtime.ask(courierClientActor, "biz_1", "cli_1", charge("CUS-1"), options),
      ),
    );
    assert.ok(answers.every((r) => r.ok));
    assert.equal(answers.filter((r) => r.ok && !r.replayed).length, 1);
    // Sent again much later, under another reference even: still booked once.
    clock.advanceBy(30 * DAY);
    const late = await runtime.ask(
      courierClientActor,
      "biz_1",
      "cli_1",
      charge("CUS-1-again"),
      options,
    );
    assert.ok(late.ok && late.replayed);
    const got = await runtime.ask(courierClientActor, "biz_1", "cli_1", { kind: "get" });
    assert.ok(got.ok && got.reply && "money" in got.reply);
    assert.equal(got.reply.money.receivable_minor, 7_500);
    const kinds: string[] = [];
    for await (const e of runtime.events(courierClientActor, "cli_1")) {
      kinds.push((e.event as CourierClientEvent).kind);
    }
    assert.deepEqual(kinds, ["client_created", "entry_posted"]);
    // Another courier's client does not exist for this tenant.
    const other = await runtime.ask(
      courierClientActor,
      "biz_2",
      "cli_1",
      charge("X"),
      entryAsk("x"),
    );
    assert.equal(other.ok ? "" : other.code, "not_found");
  } finally {
    await runtime.close();
    await bus.flush();
    store.close();
  }
});

Deno.test("client account runtime: a booking's charge and its withdrawal under one key: the first to commit answers both", async () => {
  const store = await KvActorStore.open(":memory:");
  const bus = new MemoryBus();
  const runtime = new ActorRuntime({
    env: "test",
    store,
    bus,
    clock: new ManualClock(T0),
    definitions: [courierClientActor],
    onError: () => {},
  });
  await runtime.start();
  try {
    const created = await runtime.ask(courierClientActor, "biz_1", "cli_1", {
      kind: "create",
      client: newClient("cli_1", "biz_1", {}),
      by: "test",
    });
    assert.ok(created.ok);
    const key = (waybill: string) => ({ idempotencyKey: `charge:${waybill}`, permanent: true });
    const charge = (waybill: string) =>
      runtime.ask(courierClientActor, "biz_1", "cli_1", {
        kind: "charge_booking",
        waybill,
        amount_minor: 8_892,
        currency: "BWP",
        by: "t",
      }, key(waybill));
    const withdraw = (waybill: string) =>
      runtime.ask(
        courierClientActor,
        "biz_1",
        "cli_1",
        { kind: "withdraw_booking", waybill },
        key(waybill),
      );
    // Withdrawn first: the late charge is answered the withdrawal and takes nothing.
    const fenced = await withdraw("WB1");
    assert.ok(fenced.ok && isWithdrawn(fenced.reply));
    const late = await charge("WB1");
    assert.ok(late.ok && late.replayed && isWithdrawn(late.reply));
    // Charged first: the withdrawal is answered the charge, which stands.
    const charged = await charge("WB2");
    assert.ok(charged.ok && !isWithdrawn(charged.reply));
    const after = await withdraw("WB2");
    assert.ok(after.ok && after.replayed && !isWithdrawn(after.reply));
    // The charge as kept under the key: what completing the booking reads of it.
    assert.ok(charged.ok && charged.reply);
    assert.deepEqual(after.reply, keptClientReply(charged.reply));
    // Sent together, one of them commits first and the other is answered its reply.
    const both = await Promise.all([charge("WB3"), withdraw("WB3")]);
    assert.equal(new Set(both.map((r) => r.ok && isWithdrawn(r.reply))).size, 1);
    const got = await runtime.ask(courierClientActor, "biz_1", "cli_1", { kind: "get" });
    assert.ok(got.ok && got.reply && "money" in got.reply);
    // WB2's charge, and WB3's unless its withdrawal came first; never WB1's.
    const charges = both[0]!.ok && isWithdrawn(both[0]!.reply) ? 1 : 2;
    assert.equal(got.reply.money.receivable_minor, charges * 8_892);
  } finally {
    await runtime.close();
    await bus.flush();
    store.close();
  }
});

Deno.test("client account: a booking's charge is kept small under its key, and its replay reads what completing the booking needs", async () => {
  const store = await KvActorStore.open(":memory:");
  const bus = new MemoryBus();
  const runtime = new ActorRuntime({
    env: "test",
    store,
    bus,
    clock: new ManualClock(T0),
    definitions: [courierClientActor],
    onError: () => {},
  });
  await runtime.start();
  try {
    await runtime.ask(courierClientActor, "biz_1", "cli_1", {
      kind: "create",
      client: newClient("cli_1", "biz_1", {}),
      by: "test",
    });
    const booking = { prices_reference: "prc_1", dangerous_goods_confirmed: false, by: "u" };
    const charge = () =>
      runtime.ask(courierClientActor, "biz_1", "cli_1", {
        kind: "charge_booking",
        waybill: "WB1",
        amount_minor: 8_892,
        currency: "BWP",
        service_level: "express",
        references: {
          external_customer_code: "C-1",
          external_billing_reference: null,
          client_order_reference: "PO-1",
        },
        booking,
        by: "u",
      }, { idempotencyKey: "charge:WB1", permanent: true });
    const first = await charge();
    assert.ok(first.ok && !first.replayed);
    const whole = first.reply as BookingChargeReply;
    assert.equal(whole.entry.reference, "WB1", "the first answer is the whole charge");
    const replay = await charge();
    assert.ok(replay.ok && replay.replayed);
    assert.deepEqual(replay.reply, {
      entry: { created_at: T0 },
      balances: { settlement_mode: whole.balances.settlement_mode },
      service_level: "express",
      booking,
    });
    const kept = await runtime.replyUnder(courierClientActor, "cli_1", "charge:WB1");
    assert.deepEqual(kept?.reply, replay.reply);
    const keptBytes = JSON.stringify(kept?.reply).length;
    assert.ok(keptBytes < 200, `kept ${keptBytes} bytes`);
    assert.ok(JSON.stringify(whole).length > 3 * keptBytes);
  } finally {
    await runtime.close();
    await bus.flush();
    store.close();
  }
});

Deno.test("client account: replies other than a booking's charge are kept whole", () => {
  const withdrawn = { withdrawn: "WB2" };
  assert.equal(keptClientReply(withdrawn), withdrawn);
  assert.equal(keptClientReply(undefined), undefined);
});

Deno.test("client settings: the settlement mode changes only with the balances settled", () => {
  // Credit with an unpaid receivable: as prepaid or external it could never be paid.
  const credit = new Account();
  credit.charge({ reference: "A", amount_minor: 10_000 });
  for (const mode of ["prepaid", "external"] as const) {
    assert.equal(
      credit.refused({ kind: "change_settings", changes: { settlement_mode: mode }, by: "t" }),
      "balance_not_settled",
    );
  }
  assert.equal(credit.client.settings.settlement_mode, "credit");
  credit.must({ kind: "issue_invoice", period: "2026-10", by: "t" });
  credit.must({ kind: "payment", amount_minor: 10_000, currency: "BWP", reference: "P", by: "t" });
  credit.must({ kind: "change_settings", changes: { settlement_mode: "prepaid" }, by: "t" });
  assert.equal(credit.client.settings.settlement_mode, "prepaid");
  // Prepaid funds would be stranded: neither spendable on credit nor refundable.
  const prepaid = new Account({ settlement_mode: "prepaid" });
  prepaid.must({ kind: "top_up", amount_minor: 5_000, currency: "BWP", reference: "T", by: "t" });
  assert.equal(
    prepaid.refused({ kind: "change_settings", changes: { settlement_mode: "credit" }, by: "t" }),
    "balance_not_settled",
  );
  assert.equal(prepaid.client.money.prepaid_minor, 5_000);
  // The same mode again, or other settings, change nothing owed: allowed.
  prepaid.must({ kind: "change_settings", changes: { settlement_mode: "prepaid" }, by: "t" });
  prepaid.must({ kind: "change_settings", changes: { payment_days: 14 }, by: "t" });
});

Deno.test("client settings: the settlement mode stays while a conversion awaits its rate", () => {
  // Charged under external settlement, it would post as a receivable once resolved under credit.
  const a = new Account({ settlement_mode: "external" });
  a.charge({ reference: "CUS-ZA", currency: "ZAR" });
  assert.equal(a.client.ledger.unresolved.length, 1);
  assert.equal(
    a.refused({ kind: "change_settings", changes: { settlement_mode: "credit" }, by: "t" }),
    "balance_not_settled",
  );
  a.must({ kind: "resolve_fx", reference: "CUS-ZA", rate: "0.74", source: "BoB", by: "t" });
  assert.equal(a.entry("CUS-ZA").status, "external");
  a.must({ kind: "change_settings", changes: { settlement_mode: "credit" }, by: "t" });
  assert.equal(a.client.money.receivable_minor, 0);
});

Deno.test("client account: a note on a note is refused: a correction points at the original entry", () => {
  // spec: courier 2.6 rule 5. Chained, a credit note on a debit note and a credit note on the
  // charge each stayed within "their" entry, yet credited the client more than it was charged.
  const a = new Account();
  a.charge({ reference: "W-1", entry_kind: "waiting", amount_minor: 5_000 });
  a.must({
    kind: "correct",
    original: original(a, "W-1"),
    seen_seq: a.client.ledger.seq,
    amount_minor: 1_000,
    reason: "second wait",
    reference: "DN-1",
    by: "t",
  });
  assert.equal(
    a.refused({
      kind: "correct",
      original: original(a, "DN-1"),
      seen_seq: a.client.ledger.seq,
      amount_minor: -1_000,
      reason: "second wait was not charged",
      by: "t",
    }),
    "not_correctable",
  );
  a.must({
    kind: "correct",
    original: original(a, "W-1"),
    seen_seq: a.client.ledger.seq,
    amount_minor: -6_000,
    reason: "no wait at all",
    by: "t",
  });
  assert.equal(a.client.money.receivable_minor, 0, "never below what was charged");
  assert.equal(sumOf(postedEntries(a.events)), 0);
});

type Move =
  | { op: "book"; amount: number }
  | { op: "charge"; amount: number; recoverable: boolean; currency: "BWP" | "JPY" | "KWD" }
  | { op: "resolve"; pick: number; rate: number }
  | { op: "payment"; amount: number; share: number; pick: number }
  | { op: "note"; pick: number; amount: number }
  | { op: "invoice"; back: boolean }
  | { op: "days"; days: number }
  | { op: "cod"; amount: number; remit: boolean; twice: boolean }
  | { op: "top_up"; amount: number }
  | { op: "limit"; limit: number };

const moveArb: fc.Arbitrary<Move> = fc.oneof(
  fc.record({ op: fc.constant("book" as const), amount: fc.integer({ min: 1, max: 400_000 }) }),
  fc.record({
    op: fc.constant("charge" as const),
    amount: fc.integer({ min: 1, max: 400_000 }),
    recoverable: fc.boolean(),
    currency: fc.constantFrom("BWP" as const, "JPY" as const, "KWD" as const),
  }),
  fc.record({
    op: fc.constant("resolve" as const),
    pick: fc.nat(),
    rate: fc.integer({ min: 1, max: 2_000_000_000 }),
  }),
  fc.record({
    op: fc.constant("payment" as const),
    amount: fc.integer({ min: 1, max: 600_000 }),
    share: fc.integer({ min: 0, max: 120 }),
    pick: fc.nat(),
  }),
  fc.record({
    op: fc.constant("note" as const),
    pick: fc.nat(),
    amount: fc.integer({ min: -400_000, max: 400_000 }).filter((n) => n !== 0),
  }),
  fc.record({ op: fc.constant("invoice" as const), back: fc.boolean() }),
  fc.record({ op: fc.constant("days" as const), days: fc.integer({ min: 1, max: 40 }) }),
  fc.record({
    op: fc.constant("cod" as const),
    amount: fc.integer({ min: 1, max: 300_000 }),
    remit: fc.boolean(),
    twice: fc.boolean(),
  }),
  fc.record({ op: fc.constant("top_up" as const), amount: fc.integer({ min: 1, max: 600_000 }) }),
  fc.record({ op: fc.constant("limit" as const), limit: fc.integer({ min: 0, max: 800_000 }) }),
);

/** Plays one move; answers the command's outcome (null: nothing was sent). */
function playMove(a: Account, m: Move, n: number): { command: string; answer: Answer } | null {
  const send = (command: CourierClientCommand) => ({
    command: command.kind,
    answer: a.send(command),
  });
  const period = (ms: number) => new Date(ms).toISOString().slice(0, 7);
  switch (m.op) {
    case "book":
      return send({
        kind: "charge_booking",
        waybill: `WB${n}`,
        amount_minor: m.amount,
        currency: "BWP",
        by: "t",
      });
    case "charge":
      return {
        command: "post_charge",
        answer: a.charge({
          reference: `C${n}`,
          amount_minor: m.amount,
          currency: m.currency,
          recoverable: m.recoverable,
          ...(m.recoverable ? { entry_kind: "duties", evidence_path: "e.pdf" } : {}),
        }),
      };
    case "resolve": {
      const u = a.client.ledger.unresolved;
      if (u.length === 0) return null;
      const rate = `${Math.floor(m.rate / 1e8)}.${String(m.rate % 1e8).padStart(8, "0")}`;
      return send({
        kind: "resolve_fx",
        reference: u[m.pick % u.length]!.reference,
        rate,
        source: "p",
        by: "t",
      });
    }
    case "payment": {
      const open = a.client.ledger.invoices.filter(isOpen);
      const inv = open.length === 0 ? null : open[m.pick % open.length]!;
      // Shares above 100 % ask for more than the invoice's balance: refused, never booked.
      const amount = inv ? Math.max(1, Math.floor(balanceOf(inv) * m.share / 100)) : 0;
      return send({
        kind: "payment",
        amount_minor: m.amount,
        currency: "BWP",
        reference: `P${n}`,
        allocations: inv && m.share > 0 ? [{ invoice_id: inv.id, amount_minor: amount }] : [],
        by: "t",
      });
    }
    case "note": {
      const all = postedEntries(a.events);
      if (all.length === 0) return null;
      const target = all[m.pick % all.length]!;
      return send({
        kind: "correct",
        original: original(a, target.reference),
        seen_seq: a.client.ledger.seq,
        amount_minor: m.amount,
        reason: "r",
        by: "t",
      });
    }
    case "invoice":
      return send({
        kind: "issue_invoice",
        period: period(m.back ? a.now - 31 * DAY : a.now),
        by: "t",
      });
    case "days":
      a.now += m.days * DAY;
      return null;
    case "cod": {
      const first = send({
        kind: "cod_collected",
        waybill: `WB${n}`,
        amount_minor: m.amount,
        currency: "BWP",
        by: "d",
      });
      if (!m.remit) return first;
      const remit = send({ kind: "cod_remitted", waybill: `WB${n}`, evidence_path: "s", by: "t" });
      if (m.twice) {
        const again = a.send({
          kind: "cod_remitted",
          waybill: `WB${n}`,
          evidence_path: "s",
          by: "t",
        });
        assert.equal(again.ok ? "" : again.code, "cod_not_collected", "remitted COD books once");
      }
      return remit;
    }
    case "top_up":
      return send({
        kind: "top_up",
        amount_minor: m.amount,
        currency: "BWP",
        reference: `T${n}`,
        by: "t",
      });
    case "limit":
      return send({ kind: "change_settings", changes: { credit_limit_minor: m.limit }, by: "t" });
  }
}

for (const mode of ["credit", "prepaid", "external"] as const) {
  Deno.test(
    `client account (${mode}): no sequence of bookings, charges, notes, payments, COD and invoices breaks the money invariants`,
    () => {
      fc.assert(
        fc.property(fc.array(moveArb, { maxLength: 60, size: "max" }), (moves) => {
          const a = new Account({ settlement_mode: mode, credit_limit_minor: 500_000 });
          /** Each invoice as first issued: amount and lines never change (courier 2.6 rule 5). */
          const issued = new Map<string, unknown>();
          const paidBefore = new Map<string, number>();
          moves.forEach((m, n) => {
            const before = a.client;
            const played = playMove(a, m, n);
            const c = a.client;
            const b = balancesOf(c);
            const entries = postedEntries(a.events);
            // 1. Balances equal the posted entries; unresolved conversions are left out.
            assert.equal(owedMinor(b), sumOf(entries));
            assert.equal(
              c.ledger.unresolved.length,
              entries.filter((e) => e.status === "unresolved_fx").length,
            );
            assert.ok(entries.every((e) => e.status === "unresolved_fx" || e.currency === "BWP"));
            // A refused command changes nothing.
            if (played && !played.answer.ok) assert.deepEqual(c, before, played.command);
            // 4. A credit note never takes an entry below zero with the notes on it.
            for (const e of entries.filter((x) => x.corrects === null && x.amount_minor > 0)) {
              const notes = entries.filter((x) => x.corrects === e.reference);
              assert.ok(notes.every((x) => x.kind === "debit_note" || x.kind === "credit_note"));
              assert.ok(e.amount_minor + notes.reduce((s, x) => s + x.amount_minor, 0) >= 0);
            }
            assert.ok(
              entries.every((x) =>
                x.corrects === null ||
                entries.some((o) => o.reference === x.corrects && o.corrects === null)
              ),
              "a note points at an original entry",
            );
            // 6. Available is never negative; a booking never takes credit past the limit.
            const av = accountBalances(c).available_minor;
            assert.ok(av === null || av >= 0);
            if (played?.command === "charge_booking" && played.answer.ok && mode === "credit") {
              // Recoverable duties owed use the same credit; duties owed back offset it.
              assert.ok(
                c.money.receivable_minor + c.ledger.recoverable_minor <=
                  c.settings.credit_limit_minor,
              );
            }
            if (played?.command === "charge_booking" && played.answer.ok && mode === "prepaid") {
              assert.ok(c.money.prepaid_minor >= 0);
            }
            if (mode === "external") {
              assert.deepEqual(b, { prepaid_minor: 0, receivable_minor: 0, recoverable_minor: 0 });
              assert.deepEqual(c.ledger.invoices, []);
              assert.deepEqual(c.ledger.unallocated, {});
              if (played?.command === "payment" || played?.command === "issue_invoice") {
                assert.equal(played.answer.ok ? "" : played.answer.code, "external_settlement");
              }
            }
            if (mode !== "credit") assert.deepEqual(c.ledger.invoices, []);
            // 3. Invoices are never rewritten; paid only grows, never past the amount; one per
            // currency and period at each issue.
            for (const i of c.ledger.invoices) {
              const { paid_minor, ...lines } = i;
              if (!issued.has(i.id)) issued.set(i.id, lines);
              assert.deepEqual(lines, issued.get(i.id));
              assert.ok(paid_minor >= (paidBefore.get(i.id) ?? paid_minor));
              assert.ok(
                i.amount_minor <= 0 ? paid_minor === i.amount_minor : paid_minor <= i.amount_minor,
              );
              assert.ok(paid_minor >= Math.min(0, i.amount_minor));
              paidBefore.set(i.id, paid_minor);
            }
            if (played?.command === "issue_invoice" && played.answer.ok) {
              const got = invoices(played.answer.reply);
              assert.equal(new Set(got.map((i) => `${i.period}|${i.currency}`)).size, got.length);
            }
            // 7. Ageing adds up to what is owed, none below zero.
            const aged = Object.values(ageing(c.ledger, "BWP", a.now, b.prepaid_minor));
            assert.ok(aged.every((x) => x >= 0), String(aged));
            if (mode !== "external") {
              assert.equal(aged.reduce((x, y) => x + y, 0), Math.max(owedMinor(b), 0));
            }
          });
        }),
        { numRuns: 300 },
      );
    },
  );
}

Deno.test("client settings: the billing currency stays while a conversion awaits its rate", () => {
  // Moved to the charge's own currency, a "conversion" ZAR to ZAR at 0.5 booked half the charge.
  const a = new Account({ credit_limit_minor: 0 });
  a.charge({ reference: "CUS-ZA", currency: "ZAR", amount_minor: 10_000 });
  assert.equal(
    a.refused({ kind: "change_settings", changes: { billing_currency: "ZAR" }, by: "t" }),
    "balance_not_settled",
  );
  assert.equal(a.client.settings.billing_currency, "BWP");
  a.must({ kind: "resolve_fx", reference: "CUS-ZA", rate: "0.74", source: "BoB", by: "t" });
  assert.equal(a.entry("CUS-ZA").amount_minor, 7_400);
  a.must({ kind: "issue_invoice", period: "2026-10", by: "t" });
  a.must({ kind: "payment", amount_minor: 7_400, currency: "BWP", reference: "P", by: "t" });
  a.must({ kind: "change_settings", changes: { billing_currency: "ZAR" }, by: "t" });
  assert.equal(a.client.settings.billing_currency, "ZAR");
});
