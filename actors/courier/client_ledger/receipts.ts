/** Money received (courier 2.6 rule 6, 4.2): payments, COD collected and COD remitted. */
import { accept, reject } from "../../../src/runtime/actor.ts";
import {
  allocate,
  COD_AWAITING_MAX,
  type CodAwaiting,
  dutiesAllocated,
  entryOf,
  receiptEffect,
  REFERENCE_CHARS_MAX,
  TEXT_CHARS_MAX,
} from "../../../src/courier/rules/ledger.ts";
import type { CourierClient } from "../courier_client/state.ts";
import type { LedgerCommand, LedgerEvent, LedgerReply } from "./messages.ts";
import { balancesIn } from "./balances.ts";
import {
  badAmount,
  badText,
  currencyMismatch,
  currencyRefusal,
  type LedgerDecision,
  posted,
  receivableRefusal,
  type S,
  statusFor,
} from "./decisions.ts";

type Payment = Extract<LedgerCommand, { kind: "payment" }>;

export function payment(state: CourierClient, c: Payment, now: number): LedgerDecision {
  const refused = receivableRefusal(state, "payment");
  if (refused) return refused;
  if (badAmount(c.amount_minor)) return reject("invalid_amount", "a payment must be above zero");
  const other = currencyRefusal(state, c.currency);
  if (other) return other;
  if (badText(c.reference, REFERENCE_CHARS_MAX)) {
    return reject("invalid_reference", `a reference has 1 to ${REFERENCE_CHARS_MAX} characters`);
  }
  if ((c.allocations ?? []).some((a) => badAmount(a.amount_minor))) {
    return reject("invalid_amount", "an allocation must be above zero");
  }
  const split = allocate(state.ledger.invoices, c.currency, c.amount_minor, c.allocations ?? []);
  if (!split.ok) return reject(split.code, split.message, split.unknown && { ...split.unknown });
  const entry = entryOf({
    reference: c.reference,
    seq: state.ledger.seq + 1,
    kind: "payment",
    amount_minor: -c.amount_minor,
    currency: c.currency,
    status: "posted",
    source_event: `payment:${c.reference}`,
    created_at: now,
  });
  return posted(
    [{
      kind: "payment_received",
      entry,
      effect: receiptEffect(
        "credit",
        balancesIn(state, c.currency),
        c.amount_minor,
        dutiesAllocated(state.ledger.invoices, split.allocations),
        split.rest,
      ),
      allocations: split.allocations,
      unallocated_minor: split.rest,
      by: c.by,
    }],
    entry,
    split.allocations,
    (c.allocations ?? []).map((a) => ({ invoice_id: a.invoice_id, amount_minor: a.amount_minor })),
  );
}

type CodCollected = Extract<LedgerCommand, { kind: "cod_collected" }>;

export function codCollected(state: CourierClient, c: CodCollected, now: number): LedgerDecision {
  if (badAmount(c.amount_minor)) return reject("invalid_amount", "COD must be above zero");
  if (c.currency !== state.settings.billing_currency) return currencyMismatch(state, c.currency);
  if (badText(c.waybill, REFERENCE_CHARS_MAX)) {
    return reject("invalid_reference", `a waybill has 1 to ${REFERENCE_CHARS_MAX} characters`);
  }
  if (state.ledger.cod.some((x) => x.waybill === c.waybill)) {
    return reject("cod_already_collected", `COD already awaits remittance: ${c.waybill}`);
  }
  if (state.ledger.cod.length >= COD_AWAITING_MAX) {
    return reject(
      "cod_awaiting_limit",
      `too much COD awaits remittance; confirm some first: ${state.ledger.cod.length}`,
    );
  }
  const cod: CodAwaiting = {
    waybill: c.waybill,
    amount_minor: c.amount_minor,
    currency: c.currency,
    collected_at: now,
  };
  return accept<S, LedgerEvent, LedgerReply>(
    [{ kind: "cod_collected", ...cod, by: c.by }],
    () => ({ cod }),
  );
}

type CodRemitted = Extract<LedgerCommand, { kind: "cod_remitted" }>;

/** spec: courier 2.6 rule 6: COD reduces what the client owes only once remitted. */
export function codRemitted(state: CourierClient, c: CodRemitted, now: number): LedgerDecision {
  const cod = state.ledger.cod.find((x) => x.waybill === c.waybill);
  if (!cod) return reject("cod_not_collected", `waybill: no COD awaits remittance: ${c.waybill}`);
  if (badText(c.evidence_path, TEXT_CHARS_MAX)) {
    return reject("evidence_required", `remitted COD needs evidence: ${c.waybill}`);
  }
  const mode = state.settings.settlement_mode;
  const split = mode === "credit"
    ? allocate(state.ledger.invoices, cod.currency, cod.amount_minor, [])
    : { ok: true as const, allocations: [], rest: 0 };
  if (!split.ok) return reject(split.code, split.message);
  const entry = entryOf({
    reference: `cod:${c.waybill}`,
    seq: state.ledger.seq + 1,
    kind: "cod_remitted",
    amount_minor: -cod.amount_minor,
    currency: cod.currency,
    status: statusFor(mode),
    evidence_path: c.evidence_path,
    source_event: `cod.remitted:${c.waybill}`,
    shipment: c.waybill,
    reason: "cash on delivery remitted",
    created_at: now,
  });
  return posted(
    [{
      kind: "cod_remitted",
      entry,
      effect: receiptEffect(
        mode,
        balancesIn(state, cod.currency),
        cod.amount_minor,
        dutiesAllocated(state.ledger.invoices, split.allocations),
        split.rest,
      ),
      allocations: split.allocations,
      unallocated_minor: split.rest,
      by: c.by,
    }],
    entry,
    split.allocations,
  );
}
