/**
 * The shopper's request bodies (shopping 3; CONTRACT "Driver app"), shared by the driver app's
 * routes and the sandbox's shopper steps: a line's outcome and a store's collection.
 */
import { z } from "../http/route.ts";
import { PlainText } from "../http/schemas.ts";
import { IdempotencyKey } from "../http/idempotency.ts";
import type { Refusals } from "../http/refusals.ts";
import { DECISIONS, LINE_OUTCOMES } from "./rules/shopper.ts";
import { SHOPPING_AMOUNT_MAX } from "../limits.ts";

const UP_TO = `, 0 to ${SHOPPING_AMOUNT_MAX}`;

/** A decimal in the order's currency, as a JSON number or as text (a multipart field). */
export const DecimalAmount = z.union([z.number(), z.string().trim().min(1).max(24)]);

export const LineReportBody = z.object({
  outcome: z.enum(LINE_OUTCOMES).openapi({
    description: "found, substituted (with `substitute`) or unavailable. A substitution becomes " +
      "what the order's substitution_preference says: refund: unavailable and refunded " +
      "(decided_by preference); match: substituted (decided_by preference); ask: " +
      "awaiting_decision until the customer decides or the window (ask_timeout_minutes) ends",
  }),
  qty_found: z.number().int("whole units").min(0).max(10_000).optional().openapi({
    description: "found, substituted: whole units, 1 to the quantity asked for; unavailable: 0 " +
      "or absent",
  }),
  unit_price_paid: DecimalAmount.optional().openapi({
    description: "found, substituted: the unit price paid, a decimal in the order's currency" +
      UP_TO,
  }),
  substitute: z.object({
    name: PlainText(200).min(1),
    barcode: PlainText(64).min(1).optional(),
    unit_price: DecimalAmount.optional().openapi({
      description: "The substitute's shelf price per unit, a decimal" + UP_TO,
    }),
  }).optional().openapi({ description: "substituted: what was taken instead (required)" }),
});

export const DriverLineBody = LineReportBody.extend({
  idempotency_key: IdempotencyKey.openapi({
    description: "The same key again answers the first answer (a replay after lost signal)",
  }),
});

export const CollectBody = z.object({
  collected_amount: DecimalAmount.openapi({
    description: "The till receipt's total, a decimal in the order's currency" + UP_TO +
      "; at most what is left of the purchase float (purchase_amount less the till amounts of " +
      "the stores collected before), else 422 validation_failed naming it",
  }),
});

export const DriverCollectBody = CollectBody.extend({
  idempotency_key: IdempotencyKey.openapi({
    description: "The same key again answers the first answer (a replay after lost signal)",
  }),
});

export const DecisionBody = z.object({
  decision: z.enum(DECISIONS).openapi({
    description: "accept: the line is substituted; reject: unavailable and refunded",
  }),
});

/** The refusals every shopper action shares. */
export const SHOPPER_REFUSALS: Refusals = {
  not_found: "no trip of this reference is offered or assigned to the driver, it is no " +
    "shopping order, or the order has no such store or item",
  invalid_transition: "the trip is not the driver's yet (accept it first) or was already " +
    "collected: shopping happens between acceptance and pick_up",
  store_out_of_sequence: "a store earlier in the shopping sequence is neither collected nor " +
    "unavailable yet (it is named)",
  store_finished: "the store was already collected or marked unavailable",
  decision_pending: "an item of the store awaits the customer's decision on its substitute",
  validation_failed: "a field is invalid: each is named",
  reference_conflict: "the idempotency_key was sent before on this store with another " +
    "action, item, fields or file; nothing is changed",
};
