/**
 * What a shipment's terms make of a claim on it (courier 2.4, 2.6 rule 5): the window, the most
 * it may be for, its one id per shipment and its credit note's reference.
 */
import { promiseDueAt } from "../../../src/courier/rules/lifecycle.ts";
import type { WorkingCalendar } from "../../../src/domain/calendar.ts";
import type { ClaimBounds } from "./types.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * spec: courier 2.4 claim terms: the window runs `claim_window_days` from delivery, or, for a
 * shipment not delivered (loss, delay), from the end of its promised latest delivery day in the
 * service level's calendar.
 */
export function claimWindowClosesAt(
  s: {
    readonly delivered_at: number | null;
    readonly pricing: { readonly promise: { readonly latest_delivery: string } };
    readonly calendar: WorkingCalendar;
  },
  windowDays: number,
): number {
  const start = s.delivered_at ?? promiseDueAt(s.calendar, s.pricing.promise.latest_delivery);
  return start + windowDays * DAY_MS;
}

/**
 * spec: courier 2.4: liability cover is a percentage of the declared value, bought at booking.
 * With it a claim is for at most the declared value; without it the courier refunds at most what
 * it charged (the frozen total). Product rule: a claim is never paid beyond what the shipment
 * stood for.
 */
export function claimLimitOf(s: {
  readonly declared_value_minor: number | null;
  readonly liability_cover: boolean;
  readonly pricing: { readonly total_minor: number };
}): Pick<ClaimBounds, "limit_minor" | "limit_basis"> {
  if (s.liability_cover && s.declared_value_minor !== null && s.declared_value_minor > 0) {
    return { limit_minor: s.declared_value_minor, limit_basis: "declared_value" };
  }
  return { limit_minor: s.pricing.total_minor, limit_basis: "charged" };
}

/**
 * A claim's id: one per shipment (product rule: a claim is never paid twice; the same loss filed
 * again, under any key, names the claim already filed).
 */
export function claimKeyOf(courier: string, waybill: string): string {
  return `${courier}:claim:${waybill}`;
}

/** What every claim's credit note reference begins with: `CLM-` and the claim id (`clm_...`). */
export const CLAIM_CREDIT_PREFIX = "CLM-clm_";

/** The credit note's reference of a claim: stable, so booking it again books it once. */
export function creditReferenceOf(claimId: string): string {
  return `CLM-${claimId}`;
}
