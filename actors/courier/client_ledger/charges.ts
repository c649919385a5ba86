/**
 * Later charges and their conversions (courier 2.6 rules 1, 3, 4): a charge converted at a stated
 * rate or left awaiting one, and a conversion resolved, booked when it gets its rate.
 */
import { accept, reject, type Rejection } from "../../../src/runtime/actor.ts";
import {
  chargeEffect,
  convertMinor,
  entryOf,
  type LedgerEntry,
  NO_EFFECT,
  parseRate,
  periodOf,
  REFERENCE_CHARS_MAX,
  TEXT_CHARS_MAX,
  UNRESOLVED_FX_MAX,
} from "../../../src/courier/rules/ledger.ts";
import { AMOUNT_MINOR_MAX, AmountOutOfRange, formatMinor } from "../../../src/domain/money.ts";
import type { CourierClient } from "../courier_client/state.ts";
import type { FxResolution, LedgerCommand, LedgerEvent, LedgerReply } from "./messages.ts";
import { accountBalances } from "./balances.ts";
import { badAmount, badText, type LedgerDecision, posted, type S, statusFor } from "./decisions.ts";

/**
 * `amountMinor` of `from` converted to `to` at `rate` (rounded once, in convertMinor), or the
 * refusal of a conversion that cannot be booked as it comes out: past AMOUNT_MINOR_MAX (the most
 * an answer states exactly), refused, never booked rounded nor failed as an internal error
 * (courier 2.6 rule 4; 9.4 amounts are decimals); or a charge that rounds to nothing.
 */
function converted(
  amountMinor: number,
  from: string,
  to: string,
  rate: { readonly units: number; readonly text: string },
  field: string,
): number | Rejection {
  let minor: number;
  try {
    minor = convertMinor(amountMinor, from, to, rate.units);
  } catch (e) {
    if (!(e instanceof AmountOutOfRange)) throw e;
    minor = Number.POSITIVE_INFINITY;
  }
  const sent = `${formatMinor(amountMinor, from)} ${from} at ${rate.text}`;
  if (minor > AMOUNT_MINOR_MAX) {
    return reject(
      "amount_too_large",
      `${field}: ${sent} would pass ${formatMinor(AMOUNT_MINOR_MAX, to)} ${to}: nothing was booked`,
    );
  }
  // spec: courier 2.6 rules 1, 4: a later charge is an entry of what is owed, converted at its
  // rate; a rate that rounds a charge to nothing would make it vanish as a posted 0.00: refused,
  // and the charge keeps awaiting a rate.
  if (minor === 0 && amountMinor !== 0) {
    return reject(
      "invalid_fx_rate",
      `${field}: ${sent} converts to ${formatMinor(0, to)} ${to}: a charge is never booked as ` +
        "nothing; check the rate",
    );
  }
  return minor;
}

type PostCharge = Extract<LedgerCommand, { kind: "post_charge" }>;

/** spec: courier 2.6 rules 1, 3, 4: a later charge, converted at a stated rate or left unresolved. */
export function postCharge(state: CourierClient, c: PostCharge, now: number): LedgerDecision {
  if (badAmount(c.amount_minor)) return reject("invalid_amount", "a charge must be above zero");
  if (badText(c.reference, REFERENCE_CHARS_MAX)) {
    return reject("invalid_reference", `a reference has 1 to ${REFERENCE_CHARS_MAX} characters`);
  }
  if (badText(c.reason, TEXT_CHARS_MAX) || badText(c.source_event, TEXT_CHARS_MAX)) {
    return reject("reason_required", "a later charge needs a reason and its source event");
  }
  // spec: courier 7: duties need amount, currency, payer and evidence.
  if (c.entry_kind === "duties" && !c.evidence_path) {
    return reject("evidence_required", `duties need evidence: ${c.reference}`);
  }
  const entry = chargeEntry(state, c, now);
  if ("ok" in entry) return entry;
  const mode = state.settings.settlement_mode;
  const isPosted = entry.status === "posted";
  return posted(
    [{
      kind: "entry_posted",
      entry,
      effect: isPosted ? chargeEffect(mode, entry.amount_minor, entry.recoverable) : NO_EFFECT,
      invoiceable: isPosted && mode === "credit",
      by: c.by,
    }],
    entry,
    [],
  );
}

/** The entry of a later charge: in the billing currency, converted at its rate, or unresolved. */
function chargeEntry(state: CourierClient, c: PostCharge, now: number): LedgerEntry | Rejection {
  const mode = state.settings.settlement_mode;
  const billing = state.settings.billing_currency;
  const base = {
    reference: c.reference,
    seq: state.ledger.seq + 1,
    kind: c.entry_kind,
    recoverable: c.recoverable,
    reason: c.reason,
    evidence_path: c.evidence_path,
    source_event: c.source_event,
    shipment: c.shipment,
    created_at: now,
  };
  if (c.currency === billing) {
    return entryOf({
      ...base,
      amount_minor: c.amount_minor,
      currency: c.currency,
      status: statusFor(mode),
    });
  } else if (c.fx) {
    const rate = parseRate(c.fx.rate);
    if (!rate.ok) return reject("invalid_fx_rate", `fx.rate: ${rate.message}`);
    if (badText(c.fx.source, TEXT_CHARS_MAX)) {
      return reject("fx_source_required", "fx.source: a conversion records the source of its rate");
    }
    const amount = converted(c.amount_minor, c.currency, billing, rate, "fx.rate");
    if (typeof amount !== "number") return amount;
    return entryOf({
      ...base,
      amount_minor: amount,
      currency: billing,
      status: statusFor(mode),
      original_amount_minor: c.amount_minor,
      original_currency: c.currency,
      fx_rate: rate.text,
      fx_source: c.fx.source,
    });
  } else {
    if (state.ledger.unresolved.length >= UNRESOLVED_FX_MAX) {
      return reject(
        "unresolved_fx_limit",
        `too many charges await an FX rate; resolve some first: ${state.ledger.unresolved.length}`,
      );
    }
    // Never converted one-to-one: held in its own currency, outside the balances.
    return entryOf({
      ...base,
      amount_minor: c.amount_minor,
      currency: c.currency,
      status: "unresolved_fx",
    });
  }
}

type ResolveFx = Extract<LedgerCommand, { kind: "resolve_fx" }>;

/**
 * spec: courier 2.6 rule 4: a charge awaiting its rate was left out of balances, invoices and
 * exports; once it has one, the converted charge is a fact of this moment and is booked now, in
 * this period's statement, invoice and export range. A month already exported or invoiced is never
 * changed after the fact (2.6 rule 5, 3.1); the entry keeps when the charge arose (`charged_at`,
 * its source event) and what it was converted from.
 */
export function resolveFx(state: CourierClient, c: ResolveFx, now: number): LedgerDecision {
  const u = state.ledger.unresolved.find((e) => e.reference === c.reference);
  if (!u) {
    return reject("not_found", `entry_reference: no charge awaits an FX rate: ${c.reference}`);
  }
  const rate = parseRate(c.rate);
  if (!rate.ok) return reject("invalid_fx_rate", `rate: ${rate.message}`);
  if (badText(c.source, TEXT_CHARS_MAX)) {
    return reject("fx_source_required", "source: a conversion records the source of its rate");
  }
  const mode = state.settings.settlement_mode;
  const billing = state.settings.billing_currency;
  const amount = converted(u.amount_minor, u.currency, billing, rate, "rate");
  if (typeof amount !== "number") return amount;
  const resolution: FxResolution = {
    reference: u.reference,
    seq: state.ledger.seq + 1,
    period: periodOf(now),
    kind: u.kind,
    amount_minor: amount,
    currency: billing,
    status: statusFor(mode),
    recoverable: u.recoverable,
    original_amount_minor: u.amount_minor,
    original_currency: u.currency,
    fx_rate: rate.text,
    fx_source: c.source,
    created_at: now,
    charged_at: u.created_at,
    shipment: u.shipment ?? null,
    evidence_path: u.evidence_path ?? null,
  };
  const isPosted = resolution.status === "posted";
  return accept<S, LedgerEvent, LedgerReply>([{
    kind: "fx_resolved",
    resolution,
    effect: isPosted ? chargeEffect(mode, resolution.amount_minor, u.recoverable) : NO_EFFECT,
    invoiceable: isPosted && mode === "credit",
    by: c.by,
  }], (next) => ({ resolved: resolution, balances: accountBalances(next!) }));
}
