/**
 * Model-based property of client billing (courier 2.5, 2.6, 3.1, 4.2, 4.3): a credit client and
 * a prepaid client are driven over HTTP through random sequences of bookings, later charges (in
 * another currency, with and without a rate), top-ups, payments, notes, COD, FX resolutions,
 * invoices and month ends; after each run the actor's balances, the Postgres rows, the statement,
 * the invoices, the export and the client's own view are checked against a small model kept here.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { parse } from "csv-parse/sync";
import { courierClientActor } from "../../../actors/courier/courier_client.ts";
import { entryAsk } from "../../../actors/courier/client_ledger.ts";
import { periodOf } from "../../../src/courier/rules/ledger.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  billingAction,
  type Client,
  clientKey,
  type Courier,
  DOMESTIC,
  grantScopes,
  newClient,
  newCourier,
} from "../../helpers/courier.ts";

const DAY = 24 * 60 * 60 * 1000;
const HOUR = 60 * 60 * 1000;
/** The express price of DOMESTIC on the standard rate card (courier 2.1), in thebe. */
const BOOKING_MINOR = 8_892;
const CREDIT_LIMIT_MINOR = 50_000;
const RATES = ["0.75", "1.33333333", "0.0734"] as const;
const CHARGE_KINDS = {
  CUS: "customs_admin",
  DUT: "duties",
  WAI: "waiting",
} as const;
type Prefix = keyof typeof CHARGE_KINDS;
type Who = "credit" | "prepaid";

// ---- The model: what an accountant would write down.

interface MEntry {
  kind: string;
  reference: string;
  amount: number;
  currency: string;
  status: "posted" | "unresolved_fx";
  period: string;
  invoice: string | null;
  /** Amount with the notes on it (correctable entries). */
  net: number;
  /** Duties paid for the client, and notes on them: not revenue (courier 2.6). */
  recoverable?: boolean;
  /** A charge awaiting its rate: its own amount and currency. */
  original?: { amount: number; currency: string; rate?: string };
}

interface MInvoice {
  id: string;
  period: string;
  amount: number;
  paid: number;
  supplementary: boolean;
  issued_at: number;
}

interface Model {
  who: Who;
  client: Client;
  /** The credit limit (credit client). */
  limit: number;
  entries: MEntry[];
  invoices: MInvoice[];
  unallocated: number;
  waybills: string[];
  /** COD recorded per waybill, and whether it was remitted. */
  cod: Map<string, { amount: number; remitted: boolean }>;
  charges: Map<string, MEntry>;
  topUps: Map<string, number>;
  payments: Map<string, number>;
  notes: Map<string, { amount: number; corrects: string }>;
}

function owed(m: Model): number {
  return m.entries.reduce((n, e) => e.status === "posted" ? n + e.amount : n, 0);
}

/** Round half away from zero once (courier 2.6 rule 4), as an accountant does by hand. */
function convert(amount: number, rate: string): number {
  const [whole, frac = ""] = rate.split(".");
  const units = BigInt(whole! + frac.padEnd(8, "0"));
  const n = BigInt(amount) * units;
  return Number((n * 2n + 10n ** 8n) / (2n * 10n ** 8n));
}

/** A Money answer (at most 2 places) read back in minor units. */
function minor(x: number): number {
  return Math.round(x * 100) + 0; // never -0
}

function now(t: TestEnv): string {
  return periodOf(t.clock.now());
}

function shiftPeriod(period: string, months: number): string {
  const [y, m] = period.split("-").map(Number) as [number, number];
  const d = new Date(Date.UTC(y, m - 1 + months, 1));
  return d.toISOString().slice(0, 7);
}

/** What goes on invoices: charges and notes; money received pays them instead. */
const RECEIPTS = new Set(["top_up", "payment", "cod_remitted"]);

/** Posted charges and notes of the period not on an invoice yet (credit accounts invoice). */
function uninvoiced(m: Model, period: string): MEntry[] {
  return m.entries.filter((e) =>
    m.who === "credit" && e.status === "posted" && e.currency === "BWP" && e.period === period &&
    e.invoice === null && !RECEIPTS.has(e.kind)
  );
}

/** Oldest open invoice first, within its balance: how credit is applied (courier 4.2). */
function applyCredit(m: Model, amount: number): number {
  let rest = amount;
  for (const inv of m.invoices) {
    if (rest === 0) break;
    const more = Math.min(rest, inv.amount - inv.paid);
    if (more <= 0) continue;
    inv.paid += more;
    rest -= more;
  }
  return rest;
}

/**
 * What is owed by days past due (courier 4.2): open invoices by due date (payment_days 30),
 * uninvoiced charges current; credit is taken off the oldest first.
 */
function ageing(m: Model, at: number): number[] {
  const day = (ms: number) => Math.floor(ms / DAY);
  const open = m.invoices.filter((i) => i.amount > i.paid);
  const out = [0, 0, 0, 0, 0];
  const loose = m.entries.filter((e) =>
    e.status === "posted" && e.invoice === null && !RECEIPTS.has(e.kind)
  ).reduce((n, e) => n + e.amount, 0);
  out[0] = Math.max(loose, 0);
  for (const i of open) {
    const late = day(at) - (day(i.issued_at) + 30);
    const bucket = late <= 0 ? 0 : late <= 30 ? 1 : late <= 60 ? 2 : late <= 90 ? 3 : 4;
    out[bucket]! += i.amount - i.paid;
  }
  let credit = m.unallocated + Math.max(-loose, 0);
  for (let b = 4; b >= 0 && credit > 0; b--) {
    const taken = Math.min(credit, out[b]!);
    out[b]! -= taken;
    credit -= taken;
  }
  return out;
}

// ---- Commands.

type Command =
  | { k: "book"; who: Who }
  | {
    k: "charge";
    who: Who;
    prefix: Prefix;
    n: number;
    amount: number;
    zar: boolean;
    rate: string | null;
  }
  | { k: "top-up"; who: Who; n: number; amount: number }
  | {
    k: "payment";
    who: Who;
    n: number;
    amount: number;
    zar: boolean;
    allocation: { invoice: number | "unknown"; amount: number } | null;
  }
  | { k: "correct"; who: Who; target: number; amount: number; n: number | null }
  | { k: "cod"; who: Who; waybill: number; amount: number }
  | { k: "cod-remitted"; who: Who; waybill: number }
  | { k: "resolve"; who: Who; target: number; rate: string }
  | { k: "invoice"; who: Who; period: "current" | "previous" | "future" | "malformed" }
  | { k: "export" }
  | { k: "limit"; amount: number }
  | { k: "advance"; days: number; hours: number };

const who = fc.constantFrom<Who>("credit", "prepaid");
const amount = fc.oneof(fc.integer({ min: 1, max: 30_000 }), fc.integer({ min: 1, max: 9 }));

const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ k: fc.constant("book" as const), who }) },
  {
    weight: 3,
    arbitrary: fc.record({
      k: fc.constant("charge" as const),
      who,
      prefix: fc.constantFrom<Prefix>("CUS", "DUT", "WAI"),
      n: fc.integer({ min: 1, max: 3 }),
      amount,
      zar: fc.boolean(),
      rate: fc.option(fc.constantFrom(...RATES), { nil: null }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant("top-up" as const),
      who,
      n: fc.integer({ min: 1, max: 2 }),
      amount: fc.integer({ min: 1, max: 40_000 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant("payment" as const),
      who,
      n: fc.integer({ min: 1, max: 3 }),
      amount: fc.integer({ min: 1, max: 40_000 }),
      zar: fc.integer({ min: 0, max: 4 }).map((x) => x === 0),
      allocation: fc.option(
        fc.record({
          invoice: fc.oneof(fc.nat(4), fc.constant("unknown" as const)),
          amount: fc.integer({ min: 1, max: 40_000 }),
        }),
        { nil: null },
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant("correct" as const),
      who,
      target: fc.nat(20),
      amount: fc.integer({ min: -20_000, max: 20_000 }).filter((a) => a !== 0),
      n: fc.option(fc.integer({ min: 1, max: 2 }), { nil: null }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant("cod" as const),
      who,
      waybill: fc.nat(3),
      amount: fc.integer({ min: 1, max: 20_000 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ k: fc.constant("cod-remitted" as const), who, waybill: fc.nat(3) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant("resolve" as const),
      who,
      target: fc.nat(5),
      rate: fc.constantFrom(...RATES),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      k: fc.constant("invoice" as const),
      who,
      period: fc.constantFrom(
        "current",
        "current",
        "previous",
        "future",
        "malformed",
      ) as fc.Arbitrary<
        "current" | "previous" | "future" | "malformed"
      >,
    }),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("export" as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant("limit" as const),
      amount: fc.constantFrom(0, 10_000, 50_000, 100_000),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant("advance" as const),
      days: fc.integer({ min: 0, max: 35 }),
      hours: fc.integer({ min: 0, max: 23 }),
    }),
  },
);

// ---- Running a command: the model's prediction, then the service's answer against it.

interface Run {
  readonly t: TestEnv;
  readonly courier: Courier;
  readonly models: Record<Who, Model>;
}

async function book(r: Run, m: Model): Promise<void> {
  const { t } = r;
  const before = owed(m);
  const can = m.who === "prepaid" ? Math.max(0, -before) : Math.max(0, m.limit - before);
  const p = await t.call("POST", "/client/prices", {
    headers: clientKey(m.client),
    body: DOMESTIC,
  });
  assert.equal(p.status, 200, JSON.stringify(p.body));
  const b = await t.call("POST", "/client/book", {
    headers: clientKey(m.client),
    body: {
      prices_reference: p.body.data.prices_reference,
      service_level: "express",
      dangerous_goods_confirmed: true,
    },
  });
  if (BOOKING_MINOR > can) {
    assert.equal(b.status, 422, JSON.stringify(b.body));
    assert.equal(b.body.code, "insufficient_balance");
    return;
  }
  assert.equal(b.status, 201, JSON.stringify(b.body));
  assert.equal(minor(b.body.data.total), BOOKING_MINOR);
  const waybill: string = b.body.data.waybill;
  m.waybills.push(waybill);
  m.entries.push({
    kind: "shipment",
    reference: waybill,
    amount: BOOKING_MINOR,
    currency: "BWP",
    status: "posted",
    period: now(t),
    invoice: null,
    net: BOOKING_MINOR,
  });
}

async function charge(r: Run, m: Model, c: Extract<Command, { k: "charge" }>): Promise<void> {
  const { t, courier } = r;
  const reference = `${c.prefix}-${c.n}`;
  const kind = CHARGE_KINDS[c.prefix];
  const currency = c.zar ? "ZAR" : "BWP";
  const command = {
    kind: "post_charge" as const,
    reference,
    entry_kind: kind,
    amount_minor: c.amount,
    currency,
    reason: "later charge",
    evidence_path: kind === "duties" ? "s3://evidence/duties.pdf" : null,
    source_event: `model.${kind}:${reference}`,
    shipment: null,
    recoverable: kind === "duties",
    by: "test",
    ...(c.zar && c.rate ? { fx: { rate: c.rate, source: "Bank of Botswana" } } : {}),
  };
  const a = await t.env.runtime.ask(
    courierClientActor,
    courier.business.id,
    m.client.id,
    command,
    entryAsk(command.source_event),
  );
  const kept = m.charges.get(reference);
  if (kept) {
    // spec: courier 2.6 rule 2: the same event books once, whatever is sent with it again.
    assert.ok(a.ok && a.replayed, JSON.stringify(a));
    return;
  }
  const amountBwp = c.zar && c.rate ? convert(c.amount, c.rate) : c.amount;
  if (amountBwp === 0) {
    assert.ok(!a.ok, JSON.stringify(a));
    assert.equal(a.code, "invalid_fx_rate");
    return;
  }
  assert.ok(a.ok && !a.replayed, JSON.stringify(a));
  const unresolved = c.zar && !c.rate;
  const entry: MEntry = {
    kind,
    reference,
    amount: unresolved ? c.amount : amountBwp,
    currency: unresolved ? "ZAR" : "BWP",
    status: unresolved ? "unresolved_fx" : "posted",
    period: now(t),
    invoice: null,
    net: unresolved ? 0 : amountBwp,
    recoverable: kind === "duties",
    ...(unresolved ? { original: { amount: c.amount, currency: "ZAR" } } : {}),
  };
  m.charges.set(reference, entry);
  m.entries.push(entry);
}

async function topUp(r: Run, m: Model, c: Extract<Command, { k: "top-up" }>): Promise<void> {
  const reference = `T-${c.n}`;
  const a = await billingAction(r.t, r.courier, m.client, "top-up", {
    amount: (c.amount / 100).toFixed(2),
    currency: "BWP",
    reference,
  });
  if (m.who !== "prepaid") {
    assert.equal(a.status, 422, JSON.stringify(a.body));
    assert.equal(a.body.code, "not_prepaid");
    return;
  }
  const kept = m.topUps.get(reference);
  if (kept !== undefined) {
    assert.equal(a.status, kept === c.amount ? 200 : 409, JSON.stringify(a.body));
    return;
  }
  assert.equal(a.status, 201, JSON.stringify(a.body));
  m.topUps.set(reference, c.amount);
  m.entries.push({
    kind: "top_up",
    reference,
    amount: -c.amount,
    currency: "BWP",
    status: "posted",
    period: now(r.t),
    invoice: null,
    net: -c.amount,
  });
}

async function payment(r: Run, m: Model, c: Extract<Command, { k: "payment" }>): Promise<void> {
  const reference = `P-${c.n}`;
  const target = c.allocation === null
    ? null
    : c.allocation.invoice === "unknown"
    ? { id: "inv_unknown", inv: undefined }
    : {
      id: m.invoices[c.allocation.invoice]?.id ?? "inv_none",
      inv: m.invoices[c.allocation.invoice],
    };
  const body = {
    amount: (c.amount / 100).toFixed(2),
    currency: c.zar ? "ZAR" : "BWP",
    reference,
    ...(c.allocation && target
      ? { allocations: [{ invoice_id: target.id, amount: (c.allocation.amount / 100).toFixed(2) }] }
      : {}),
  };
  const a = await billingAction(r.t, r.courier, m.client, "payment", body);
  if (m.who !== "credit") {
    assert.equal(a.status, 422, JSON.stringify(a.body));
    assert.equal(a.body.code, "not_credit");
    return;
  }
  if (m.payments.has(reference)) {
    // A reference pays once (courier 2.6 rule 2): a replay or a conflict, never a second payment.
    assert.ok([200, 409, 422].includes(a.status), JSON.stringify(a.body));
    return;
  }
  if (c.zar) {
    assert.equal(a.status, 422, JSON.stringify(a.body));
    return;
  }
  if (c.allocation && target) {
    const inv = target.inv;
    // An invoice the client does not hold answers as one nobody holds (404), as another
    // client's does; one of its own that is settled is not open (422).
    const code = !inv
      ? "not_found"
      : inv.amount - inv.paid <= 0
      ? "invoice_not_open"
      : c.allocation.amount > inv.amount - inv.paid
      ? "allocation_exceeds_invoice"
      : c.allocation.amount > c.amount
      ? "allocations_exceed_payment"
      : null;
    if (code) {
      assert.equal(a.status, code === "not_found" ? 404 : 422, JSON.stringify(a.body));
      assert.equal(a.body.code, code);
      return;
    }
  }
  assert.equal(a.status, 201, JSON.stringify(a.body));
  let rest = c.amount;
  if (c.allocation && target?.inv) {
    target.inv.paid += c.allocation.amount;
    rest -= c.allocation.amount;
  }
  rest = applyCredit(m, rest);
  m.unallocated += rest;
  assert.equal(minor(a.body.data.unallocated), rest);
  m.payments.set(reference, c.amount);
  m.entries.push({
    kind: "payment",
    reference,
    amount: -c.amount,
    currency: "BWP",
    status: "posted",
    period: now(r.t),
    invoice: null,
    net: -c.amount,
  });
}

const CORRECTABLE = new Set(["shipment", ...Object.values(CHARGE_KINDS)]);

async function correct(r: Run, m: Model, c: Extract<Command, { k: "correct" }>): Promise<void> {
  const target = m.entries[c.target % Math.max(m.entries.length, 1)];
  const entryReference = target?.reference ?? "NO-SUCH-ENTRY";
  const reference = c.n === null ? undefined : `N-${c.n}`;
  const a = await billingAction(r.t, r.courier, m.client, "correct", {
    entry_reference: entryReference,
    amount: (c.amount / 100).toFixed(2),
    reason: "price corrected",
    ...(reference ? { reference } : {}),
  });
  const kept = reference === undefined ? undefined : m.notes.get(reference);
  if (kept) {
    const same = kept.amount === c.amount && kept.corrects === entryReference;
    if (same) assert.equal(a.status, 200, JSON.stringify(a.body));
    else assert.ok(a.status >= 400, JSON.stringify(a.body));
    return;
  }
  if (!target) {
    assert.equal(a.status, 404, JSON.stringify(a.body));
    return;
  }
  // A reference several kinds hold (a payment quoting a waybill is not one here).
  const code = !CORRECTABLE.has(target.kind)
    ? "not_correctable"
    : target.status === "unresolved_fx"
    ? "fx_unresolved"
    : target.net + c.amount < 0
    ? "correction_exceeds_entry"
    : null;
  if (code) {
    assert.ok(a.status >= 400, JSON.stringify(a.body));
    assert.equal(a.body.code, code, JSON.stringify(a.body));
    return;
  }
  assert.equal(a.status, 201, JSON.stringify(a.body));
  target.net += c.amount;
  const entry = a.body.data.entry;
  assert.equal(entry.corrects, entryReference);
  assert.equal(minor(entry.amount), c.amount);
  if (reference) m.notes.set(reference, { amount: c.amount, corrects: entryReference });
  m.entries.push({
    kind: c.amount > 0 ? "debit_note" : "credit_note",
    reference: entry.reference,
    ...(target.recoverable ? { recoverable: true } : {}),
    amount: c.amount,
    currency: "BWP",
    status: "posted",
    period: now(r.t),
    invoice: null,
    net: c.amount,
  });
}

async function codCollected(r: Run, m: Model, c: Extract<Command, { k: "cod" }>) {
  const waybill = m.waybills[c.waybill % Math.max(m.waybills.length, 1)];
  if (!waybill) return;
  const a = await r.t.call("POST", `/business/courier/shipments/${waybill}/cod-collected`, {
    key: r.courier.business.api_key,
    body: { amount: (c.amount / 100).toFixed(2), currency: "BWP" },
  });
  const kept = m.cod.get(waybill);
  if (kept) {
    assert.equal(a.status, kept.amount === c.amount ? 200 : 409, JSON.stringify(a.body));
    return;
  }
  assert.equal(a.status, 201, JSON.stringify(a.body));
  m.cod.set(waybill, { amount: c.amount, remitted: false });
}

async function codRemitted(r: Run, m: Model, c: Extract<Command, { k: "cod-remitted" }>) {
  const waybill = m.waybills[c.waybill % Math.max(m.waybills.length, 1)] ?? "CKNONE0000";
  const a = await billingAction(r.t, r.courier, m.client, "cod-remitted", {
    waybill,
    evidence: "remittance slip 42",
  });
  const kept = m.cod.get(waybill);
  if (!kept) {
    // A shipment of the client's with no COD awaiting is refused; a waybill that is none of its
    // shipments answers as one nobody holds.
    const own = m.waybills.includes(waybill);
    assert.equal(a.status, own ? 422 : 404, JSON.stringify(a.body));
    assert.equal(a.body.code, own ? "cod_not_collected" : "not_found");
    return;
  }
  if (kept.remitted) {
    assert.equal(a.status, 200, JSON.stringify(a.body));
    return;
  }
  assert.equal(a.status, 201, JSON.stringify(a.body));
  kept.remitted = true;
  if (m.who === "credit") m.unallocated += applyCredit(m, kept.amount);
  m.entries.push({
    kind: "cod_remitted",
    reference: `cod:${waybill}`,
    amount: -kept.amount,
    currency: "BWP",
    status: "posted",
    period: now(r.t),
    invoice: null,
    net: -kept.amount,
  });
}

async function resolve(r: Run, m: Model, c: Extract<Command, { k: "resolve" }>) {
  const waiting = [...m.charges.values()].filter((e) => e.original !== undefined);
  const target = waiting[c.target % Math.max(waiting.length, 1)];
  const a = await billingAction(r.t, r.courier, m.client, "resolve-fx", {
    entry_reference: target?.reference ?? "NO-SUCH-ENTRY",
    rate: c.rate,
    source: "Bank of Botswana",
  });
  if (!target) {
    assert.equal(a.status, 404, JSON.stringify(a.body));
    return;
  }
  const original = target.original!;
  if (original.rate !== undefined) {
    assert.equal(a.status, original.rate === c.rate ? 200 : 409, JSON.stringify(a.body));
    return;
  }
  const amountBwp = convert(original.amount, c.rate);
  if (amountBwp === 0) {
    assert.equal(a.status, 422, JSON.stringify(a.body));
    assert.equal(a.body.code, "invalid_fx_rate");
    return;
  }
  assert.equal(a.status, 201, JSON.stringify(a.body));
  assert.equal(minor(a.body.data.amount), amountBwp);
  // spec: courier 2.6 rule 4: booked at its resolution, in this period.
  original.rate = c.rate;
  target.amount = amountBwp;
  target.net = amountBwp;
  target.currency = "BWP";
  target.status = "posted";
  target.period = now(r.t);
}

async function invoice(r: Run, m: Model, c: Extract<Command, { k: "invoice" }>) {
  const period = c.period === "current"
    ? now(r.t)
    : c.period === "previous"
    ? shiftPeriod(now(r.t), -1)
    : c.period === "future"
    ? shiftPeriod(now(r.t), 2)
    : `${now(r.t).slice(0, 4)}-13`;
  const a = await r.t.call("POST", `/business/courier/clients/${m.client.id}/invoice`, {
    key: r.courier.business.api_key,
    body: { period },
  });
  // A month not yet begun is bad input as a malformed one is (courier 4.2 period).
  if (c.period === "malformed" || c.period === "future") {
    assert.equal(a.status, 422, JSON.stringify(a.body));
    assert.equal(a.body.code, "validation_failed");
    return;
  }
  const due = uninvoiced(m, period);
  if (due.length === 0) {
    assert.equal(a.status, 422, JSON.stringify(a.body));
    assert.equal(a.body.code, "nothing_to_invoice");
    return;
  }
  assert.equal(a.status, 201, JSON.stringify(a.body));
  const [issued, ...more] = a.body.data.invoices;
  assert.equal(more.length, 0, "one currency, one invoice");
  const total = due.reduce((n, e) => n + e.amount, 0);
  assert.equal(minor(issued.amount), total);
  const inv: MInvoice = {
    id: issued.id,
    period,
    amount: total,
    // A credit invoice is settled at issue; its credit goes on account (courier 4.2).
    paid: Math.min(total, 0),
    supplementary: m.invoices.some((i) => i.period === period),
    issued_at: r.t.clock.now(),
  };
  assert.equal(issued.supplementary, inv.supplementary);
  for (const e of due) e.invoice = inv.id;
  m.invoices.push(inv);
  m.unallocated += -inv.paid;
  const credit = m.unallocated;
  if (credit > 0) m.unallocated = applyCredit(m, credit);
}

async function step(r: Run, c: Command): Promise<void> {
  switch (c.k) {
    case "book":
      return await book(r, r.models[c.who]);
    case "charge":
      return await charge(r, r.models[c.who], c);
    case "top-up":
      return await topUp(r, r.models[c.who], c);
    case "payment":
      return await payment(r, r.models[c.who], c);
    case "correct":
      return await correct(r, r.models[c.who], c);
    case "cod":
      return await codCollected(r, r.models[c.who], c);
    case "cod-remitted":
      return await codRemitted(r, r.models[c.who], c);
    case "resolve":
      return await resolve(r, r.models[c.who], c);
    case "invoice":
      return await invoice(r, r.models[c.who], c);
    case "export": {
      const a = await r.t.app.request("/api/business/courier/billing/export", {
        method: "POST",
        headers: {
          "X-Business-API-Key": r.courier.business.api_key,
          "Content-Type": "application/json",
        },
        body: JSON.stringify({ client_id: r.models.credit.client.id }),
      });
      assert.equal(a.status, 200);
      await a.body?.cancel();
      return;
    }
    case "limit": {
      const a = await r.t.call("PATCH", `/business/courier/clients/${r.models.credit.client.id}`, {
        key: r.courier.business.api_key,
        body: { credit_limit: (c.amount / 100).toFixed(2) },
      });
      assert.equal(a.status, 200, JSON.stringify(a.body));
      r.models.credit.limit = c.amount;
      return;
    }
    case "advance":
      r.t.clock.advanceBy(c.days * DAY + c.hours * HOUR);
      return;
  }
}

// ---- The invariants.

async function check(r: Run, m: Model): Promise<void> {
  const { t, courier } = r;
  await t.settle();
  const expected = owed(m);
  const label = `${m.who} client`;
  const v = (await t.call("GET", `/business/courier/clients/${m.client.id}/billing`, {
    key: courier.business.api_key,
  })).body.data;
  const b = v.balances;
  assert.equal(minor(b.owed), expected, `${label}: owed`);
  assert.equal(minor(b.receivable) + minor(b.recoverable_duties) - minor(b.prepaid), expected);
  if (m.who === "prepaid") {
    assert.equal(minor(b.prepaid), 0 - expected, `${label}: prepaid funds`);
    assert.equal(v.credit, null);
  } else {
    assert.equal(minor(v.credit.used), Math.max(expected, 0), `${label}: credit used`);
    assert.equal(minor(v.credit.available), Math.max(0, m.limit - expected));
    assert.equal(minor(b.unallocated_credit), m.unallocated, `${label}: credit on account`);
  }
  // The ageing buckets add up to what is owed; what is held beyond it is `credit`.
  const buckets = ["current", "1-30", "31-60", "61-90", "90+"].map((k) => minor(v.ageing[k]));
  assert.ok(buckets.every((x) => x >= 0), `${label}: ageing ${JSON.stringify(v.ageing)}`);
  assert.equal(buckets.reduce((a, x) => a + x, 0), Math.max(expected, 0), `${label}: ageing`);
  assert.equal(minor(v.ageing.credit), Math.max(-expected, 0));
  if (m.who === "credit") {
    assert.deepEqual(buckets, ageing(m, t.clock.now()), `${label}: ageing by due date`);
  }
  // spec: courier 2.6 rule 4: unresolved conversions are listed, in no balance.
  assert.deepEqual(
    v.unresolved_conversions.map((u: { reference: string }) => u.reference).sort(),
    m.entries.filter((e) => e.status === "unresolved_fx").map((e) => e.reference).sort(),
  );
  // spec: courier 2.6 rule 6: COD awaits remittance until confirmed.
  assert.deepEqual(
    v.cod_awaiting_remittance.map((c: { waybill: string; amount: number }) => [
      c.waybill,
      minor(c.amount),
    ]).sort(),
    [...m.cod].filter(([, c]) => !c.remitted).map(([w, c]) => [w, c.amount]).sort(),
  );
  // Invoices: issued totals never change (2.6 rule 5); what is paid on them.
  const shown = new Map(v.invoices.map((i: { id: string }) => [i.id, i]));
  for (const inv of m.invoices) {
    // deno-lint-ignore no-explicit-any
    const s = shown.get(inv.id) as any;
    assert.ok(s, `${label}: invoice ${inv.id} listed`);
    assert.equal(minor(s.amount), inv.amount, `${label}: invoice ${inv.id} amount`);
    assert.equal(s.supplementary, inv.supplementary);
    const duties = m.entries.filter((e) => e.invoice === inv.id && e.recoverable)
      .reduce((n, e) => n + e.amount, 0);
    assert.equal(minor(s.recoverable_duties), duties, `${label}: duties on ${inv.id}`);
    assert.equal(minor(s.balance), Math.max(inv.amount - inv.paid, 0), `invoice ${inv.id} balance`);
  }
  assert.equal(v.invoices.length, m.invoices.length);

  // Postgres: the rows statements and exports read agree with the actor.
  const rows = await t.env.db.selectFrom("ledger_entries").selectAll()
    .where("tenant", "=", courier.business.id).where("client_id", "=", m.client.id)
    .orderBy("seq").execute();
  const key = (kind: string, ref: string) => `${kind} ${ref}`;
  assert.deepEqual(
    rows.map((x) => key(x.kind, x.reference)).sort(),
    m.entries.map((e) => key(e.kind, e.reference)).sort(),
    `${label}: every entry once in Postgres`,
  );
  for (const e of m.entries) {
    const row = rows.find((x) => x.kind === e.kind && x.reference === e.reference)!;
    assert.deepEqual(
      [Number(row.amount_minor), row.currency, row.status, row.period, row.invoice_id],
      [e.amount, e.currency, e.status, e.period, e.invoice],
      `${label}: row of ${key(e.kind, e.reference)}`,
    );
  }
  const posted = rows.filter((x) => x.status === "posted" && x.currency === "BWP");
  assert.equal(posted.reduce((n, x) => n + Number(x.amount_minor), 0), expected);
  const stored = await t.env.db.selectFrom("invoices").selectAll()
    .where("tenant", "=", courier.business.id).where("client_id", "=", m.client.id).execute();
  assert.equal(stored.length, m.invoices.length);
  for (const inv of m.invoices) {
    const s = stored.find((x) => x.id === inv.id)!;
    assert.equal(Number(s.amount_minor), inv.amount, `${label}: stored invoice ${inv.id}`);
    assert.equal(Number(s.paid_minor), inv.paid, `${label}: paid on stored invoice ${inv.id}`);
    const on = rows.filter((x) => x.invoice_id === inv.id);
    assert.equal(on.reduce((n, x) => n + Number(x.amount_minor), 0), inv.amount);
  }

  // The statement of this period closes at what is owed; each period opens where the last closed.
  const closing = v.statement.totals.find((x: { currency: string }) => x.currency === "BWP");
  assert.equal(closing ? minor(closing.closing_balance) : 0, expected, `${label}: statement`);
  for (const p of new Set(m.entries.map((e) => e.period))) {
    const st =
      (await t.call("GET", `/business/courier/clients/${m.client.id}/billing?period=${p}`, {
        key: courier.business.api_key,
      })).body.data.statement;
    const sum = (f: (e: MEntry) => boolean) =>
      m.entries.reduce((n, e) => e.status === "posted" && f(e) ? n + e.amount : n, 0);
    const row = st.totals.find((x: { currency: string }) => x.currency === "BWP");
    const at = (e: MEntry) => e.period === p;
    assert.deepEqual(
      row
        ? ["opening_balance", "charges", "recoverable_duties", "received", "net", "closing_balance"]
          .map((k) => minor(row[k]))
        : [0, 0, 0, 0, 0, 0],
      [
        sum((e) => e.period < p),
        sum((e) => at(e) && !e.recoverable && !RECEIPTS.has(e.kind)),
        sum((e) => at(e) && e.recoverable === true),
        sum((e) => at(e) && RECEIPTS.has(e.kind)),
        sum(at),
        sum((e) => e.period <= p),
      ],
      `${label}: statement of ${p}`,
    );
    assert.deepEqual(
      st.entries.map((e: { kind: string; reference: string }) => key(e.kind, e.reference)).sort(),
      m.entries.filter((e) => e.period === p).map((e) => key(e.kind, e.reference)).sort(),
    );
  }

  // The export: every entry once, in the file of its period.
  const periods = new Set([...m.entries.map((e) => e.period), now(t)]);
  const seen: string[] = [];
  for (const p of periods) {
    const [y, mo] = p.split("-").map(Number) as [number, number];
    const last = new Date(Date.UTC(y, mo, 0)).toISOString().slice(0, 10);
    const res = await t.app.request(
      `/api/business/courier/billing/export?client_id=${m.client.id}&from=${p}-01&to=${last}`,
      { headers: { "X-Business-API-Key": courier.business.api_key } },
    );
    assert.equal(res.status, 200);
    const file: Record<string, string>[] = parse(await res.text(), { columns: true });
    for (const row of file) {
      const e = m.entries.find((x) => x.kind === row.kind && x.reference === row.reference);
      assert.ok(e, `${label}: exported entry known: ${row.kind} ${row.reference}`);
      assert.equal(e.period, p, `${label}: ${row.reference} exported in its period`);
      seen.push(key(row.kind!, row.reference!));
    }
  }
  assert.deepEqual(seen.sort(), m.entries.map((e) => key(e.kind, e.reference)).sort());

  // The client's own view agrees with the courier's.
  const own = (await t.call("GET", "/client/account", { headers: clientKey(m.client) })).body.data;
  assert.equal(minor(own.ledger_balance), expected, `${label}: own ledger balance`);
  assert.deepEqual(own.balances, v.balances);
  assert.deepEqual(own.ageing, v.ageing);
  if (m.who === "credit") {
    assert.equal(minor(own.credit_used), minor(v.credit.used));
    assert.equal(minor(own.available), minor(v.credit.available));
  }
}

async function newModel(t: TestEnv, courier: Courier, who: Who): Promise<Model> {
  const client = await newClient(
    t,
    courier,
    who === "credit"
      ? { settlement_mode: "credit", credit_limit: "500.00", payment_days: 30 }
      : { settlement_mode: "prepaid" },
  );
  return {
    who,
    client,
    limit: CREDIT_LIMIT_MINOR,
    entries: [],
    invoices: [],
    unallocated: 0,
    waybills: [],
    cod: new Map(),
    charges: new Map(),
    topUps: new Map(),
    payments: new Map(),
    notes: new Map(),
  };
}

/** Runs `commands` against fresh clients and checks the invariants. */
async function runModel(t: TestEnv, courier: Courier, commands: readonly Command[]) {
  const r: Run = {
    t,
    courier,
    models: {
      credit: await newModel(t, courier, "credit"),
      prepaid: await newModel(t, courier, "prepaid"),
    },
  };
  for (const [i, c] of commands.entries()) {
    try {
      await step(r, c);
    } catch (e) {
      throw new Error(`step ${i} ${JSON.stringify(c)}: ${(e as Error).message}`);
    }
  }
  await check(r, r.models.credit);
  await check(r, r.models.prepaid);
}

Deno.test("billing model: balances, Postgres rows, statements, invoices, exports and the client's view agree", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    await grantScopes(t, courier, "runs:operate");
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 20, maxLength: 30 }), async (commands) => {
        await runModel(t, courier, commands);
      }),
      { numRuns: Number(Deno.env.get("BILLING_MODEL_RUNS") ?? 6) },
    );
  }));
