/**
 * Filing a claim (courier 2.4, 4.6): one per shipment, for a loss, damage or delay, for an amount
 * above zero and at most what the shipment stood for, within the claim window of its frozen rate
 * card; a cancelled shipment has nothing to claim for. The same claim sent again is answered.
 */
import { accept, reject, type Rejection } from "../../../src/runtime/actor.ts";
import { formatMinor } from "../../../src/domain/money.ts";
import { badText, moneyText } from "./texts.ts";
import {
  type Claim,
  CLAIM_KINDS,
  CLAIM_TEXT_CHARS_MAX,
  type ClaimBounds,
  type ClaimCommand,
  type ClaimFiling,
  type Decided,
} from "./types.ts";

function sameFiling(a: ClaimFiling, b: ClaimFiling): boolean {
  return a.waybill === b.waybill && a.kind === b.kind && a.amount_minor === b.amount_minor &&
    a.currency === b.currency && a.description === b.description;
}

export function file(
  state: Claim | null,
  c: Extract<ClaimCommand, { kind: "file" }>,
  now: number,
): Decided {
  const f = c.claim;
  if (state !== null) {
    if (!sameFiling(state, f)) {
      return reject(
        "claim_conflict",
        `shipment ${state.waybill} already has a claim, filed with other details: ${state.id} ` +
          `(${state.status})`,
        { id: state.id, status: state.status },
      );
    }
    return accept([], () => ({ claim: state, created: false }));
  }
  const refused = filingRefusal(f, c.bounds, now);
  if (refused) return refused;
  const claim: Claim = {
    ...f,
    status: "filed",
    filed_at: now,
    filed_by: c.by,
    decision: null,
    credit: null,
  };
  return accept([{ kind: "claim_filed", claim }], () => ({ claim, created: true }));
}

/** Why a new claim cannot be filed, in the order it is checked; null when it can. */
function filingRefusal(f: ClaimFiling, b: ClaimBounds, now: number): Rejection | null {
  if (!(CLAIM_KINDS as readonly string[]).includes(f.kind)) {
    return reject("validation_failed", `kind is one of ${CLAIM_KINDS.join(", ")}: ${f.kind}`);
  }
  if (!Number.isSafeInteger(f.amount_minor) || f.amount_minor <= 0) {
    return reject(
      "invalid_amount",
      `a claim is for an amount above zero: ${moneyText(f.amount_minor, f.currency)}`,
    );
  }
  if (badText(f.description, CLAIM_TEXT_CHARS_MAX)) {
    return reject("validation_failed", "a claim needs a description");
  }
  if (b.cancelled) {
    return reject(
      "shipment_cancelled",
      `shipment ${f.waybill} was cancelled: nothing was carried to claim for`,
    );
  }
  // spec: courier 2.4: liability cover on the declared value; else what was charged.
  if (f.amount_minor > b.limit_minor) {
    const basis = b.limit_basis === "declared_value"
      ? "the declared value under liability cover"
      : "what was charged, no liability cover bought";
    return reject(
      "claim_above_limit",
      `a claim on ${f.waybill} is for at most ${moneyText(b.limit_minor, f.currency)} (${basis}): ${
        moneyText(f.amount_minor, f.currency)
      }`,
      { limit: formatMinor(b.limit_minor, f.currency), limit_basis: b.limit_basis },
    );
  }
  // spec: courier 2.4: the rate card's claim terms; a claim after the window is refused.
  if (now > f.window_closes_at) {
    return reject(
      "claim_window_closed",
      `the claim window of this shipment closed at ${new Date(f.window_closes_at).toISOString()}`,
      { window_closes_at: new Date(f.window_closes_at).toISOString() },
    );
  }
  return null;
}
