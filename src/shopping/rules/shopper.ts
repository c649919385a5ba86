/**
 * The shopper's work on a store's lines, as pure rules (shopping 2.3, 3; CONTRACT "Driver app"):
 * what a line report must carry, what a substitution becomes under the order's preference, and
 * what a store needs before it is collected or marked unavailable. The store actor applies them.
 */
import { reject, type Rejection } from "../../runtime/actor.ts";
import { invalidFields } from "../../runtime/actor.ts";
import { sumMinor } from "../../domain/money.ts";
import type { ExternalId, SubstitutionPreference } from "./order.ts";

/** spec: shopping 3: a line is found, substituted or unavailable. */
export const LINE_OUTCOMES = ["found", "substituted", "unavailable"] as const;
export type ReportedOutcome = typeof LINE_OUTCOMES[number];

/** spec: shopping 3: who decided a line's outcome. */
export type DecidedBy = "shopper" | "customer" | "preference";

/** spec: shopping 3: the customer's answer to an `ask` substitution. */
export const DECISIONS = ["accept", "reject"] as const;
export type Decision = typeof DECISIONS[number];

export interface Substitute {
  readonly name: string;
  readonly barcode: string | null;
  readonly unit_price_minor: number | null;
}

/** What the shopper says of one line, amounts in minor units of the order's currency. */
export interface LineReport {
  readonly outcome: ReportedOutcome;
  readonly qty_found: number | null;
  readonly unit_price_paid_minor: number | null;
  readonly substitute: Substitute | null;
}

/** The line as recorded, or awaiting the customer (`ask`). */
export type LineResolution =
  | {
    readonly kind: "recorded";
    readonly outcome: ReportedOutcome;
    readonly qty_found: number;
    readonly unit_price_paid_minor: number | null;
    readonly substitute: Substitute | null;
    readonly decided_by: DecidedBy;
  }
  | { readonly kind: "ask" };

/**
 * spec: shopping 2.3, 3: found and substituted lines carry a whole qty_found of 1 to the quantity
 * asked for and the unit price paid; a substitution names its substitute; an unavailable line
 * found nothing. The first problem, or null.
 */
export function reportProblem(report: LineReport, qtyRequested: number): Rejection | null {
  if (report.outcome === "unavailable") {
    if (report.qty_found !== null && report.qty_found !== 0) {
      return invalidFields([{ path: "qty_found", message: "must be 0 for an unavailable line" }]);
    }
    return null;
  }
  if (report.outcome === "substituted" && report.substitute === null) {
    return reject("substitute_required", "a substituted line needs a substitute: its name");
  }
  if (report.qty_found === null || report.qty_found < 1 || report.qty_found > qtyRequested) {
    return invalidFields([{
      path: "qty_found",
      message: `a ${report.outcome} line needs a whole qty_found of 1 to the ${qtyRequested} ` +
        `asked for: ${report.qty_found ?? "none"} given`,
    }]);
  }
  if (report.unit_price_paid_minor === null) {
    return invalidFields([{
      path: "unit_price_paid",
      message: `required for a ${report.outcome} line`,
    }]);
  }
  return null;
}

const NOTHING_FOUND = { qty_found: 0, unit_price_paid_minor: null, substitute: null } as const;

/**
 * spec: shopping 3: a found or unavailable line is the shopper's; a substitution is what the
 * order's preference makes it: `refund` refuses it (the line unavailable and refunded), `match`
 * takes it, `ask` leaves it to the customer.
 */
export function resolveReport(
  report: LineReport,
  preference: SubstitutionPreference,
): LineResolution {
  if (report.outcome === "unavailable") {
    return { kind: "recorded", outcome: "unavailable", ...NOTHING_FOUND, decided_by: "shopper" };
  }
  const found = {
    qty_found: report.qty_found ?? 0,
    unit_price_paid_minor: report.unit_price_paid_minor,
  };
  if (report.outcome === "found") {
    return {
      kind: "recorded",
      outcome: "found",
      ...found,
      substitute: null,
      decided_by: "shopper",
    };
  }
  switch (preference) {
    case "refund":
      return {
        kind: "recorded",
        outcome: "unavailable",
        ...NOTHING_FOUND,
        decided_by: "preference",
      };
    case "match":
      return {
        kind: "recorded",
        outcome: "substituted",
        ...found,
        substitute: report.substitute,
        decided_by: "preference",
      };
    case "ask":
      return { kind: "ask" };
  }
}

/** The timer that closes one line's decision window (one per line of the store). */
export function decisionTimer(id: ExternalId): string {
  return `decision:${String(id)}`;
}

/** spec: shopping 7: the 409 of a decision after the window closed, in the spec's words. */
export function windowClosed(id: ExternalId): Rejection {
  return reject(
    "decision_window_closed",
    `the decision window closed and the item was refunded: ${String(id)}`,
  );
}

/**
 * What the lines bought cost at the till: qty_found times unit_price_paid over the found and
 * substituted lines (the sandbox's simulated till amount when none is given).
 */
export function tillAmountMinor(
  lines: readonly {
    readonly outcome: string;
    readonly qty_found: number | null;
    readonly unit_price_paid_minor: number | null;
  }[],
): number {
  return sumMinor(
    lines.filter((l) => l.outcome === "found" || l.outcome === "substituted")
      .map((l) => (l.qty_found ?? 0) * (l.unit_price_paid_minor ?? 0)),
  );
}
