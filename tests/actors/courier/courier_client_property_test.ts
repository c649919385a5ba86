/** The client account under random sequences of charges, notes, invoices and payments: its balances always add up. */
import assert from "node:assert/strict";
import fc from "fast-check";
import { type CourierClientCommand } from "../../../actors/courier/courier_client.ts";
import { accountBalances, balancesOf } from "../../../actors/courier/client_ledger.ts";
import {
  ageing,
  balanceOf,
  isOpen,
  owedMinor,
  uninvoicedMinor,
} from "../../../src/courier/rules/ledger.ts";
import {
  Account,
  Answer,
  DAY,
  invoices,
  original,
  postedEntries,
  sumOf,
} from "./courier_client_fixtures.ts";

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
