/**
 * The float's reconciliation as GET /business/shopping-orders/{reference} shows it (issue 41
 * item 7): null until every store is finished; then spent per store against its estimate, the
 * refunds of the lines not bought, what of the float comes back and what the business is charged.
 */
import type { ShoppingOrder } from "../../../actors/shopping/order.ts";
import { decimal } from "../../../src/domain/money.ts";
import { iso } from "../../../src/domain/iso.ts";
import { z } from "../../../src/http/route.ts";
import { UtcInstant } from "../../../src/http/schemas.ts";

const ExternalId = z.union([z.string(), z.number()]);

export const ReconciliationAnswer = z.object({
  spent_amount: z.number().openapi({ description: "The till amounts, summed" }),
  difference: z.number().openapi({
    description: "spent_amount - estimated_amount: positive when the basket cost more",
  }),
  float_returned: z.number().openapi({
    description: "purchase_amount - spent_amount: the float's unspent part (negative: overspent)",
  }),
  refund_amount: z.number().openapi({
    description: "The lines not bought (unavailable, or found short) at their expected unit " +
      "price; a line sent without unit_price counts in lines_unpriced instead",
  }),
  charged_amount: z.number().openapi({
    description: "What the business's wallet is charged for the goods: exactly spent_amount " +
      "(the booking charged only the trip's fare)",
  }),
  charge_transaction_id: z.string().nullable().openapi({
    description: "The wallet debit of the goods; null before it is made or when nothing is owed",
  }),
  settled: z.boolean(),
  collected_at: UtcInstant,
  stores: z.array(z.object({
    external_fulfilment_id: ExternalId,
    status: z.enum(["collected", "unavailable"]),
    estimated_amount: z.number(),
    spent_amount: z.number(),
    difference: z.number(),
    refund_amount: z.number(),
    lines_refunded: z.number().int(),
    lines_unpriced: z.number().int(),
  })),
}).openapi("ShoppingFloatReconciliation");

export function reconciliationView(
  order: ShoppingOrder,
): z.infer<typeof ReconciliationAnswer> | null {
  const basket = order.basket;
  if (!basket) return null;
  const c = order.currency;
  const m = (minor: number) => decimal(minor, c);
  const r = basket.reconciliation;
  return {
    spent_amount: m(r.spent_minor),
    difference: m(r.difference_minor),
    float_returned: m(r.float_returned_minor),
    refund_amount: m(r.refund_minor),
    charged_amount: m(r.charge_minor),
    charge_transaction_id: basket.settlement?.transaction_id ?? null,
    settled: basket.settlement !== null,
    collected_at: iso(basket.collected_at),
    stores: order.stores.flatMap((s) => {
      const p = order.parts?.[s.store_id];
      return p
        ? [{
          external_fulfilment_id: s.external_fulfilment_id,
          status: p.status,
          estimated_amount: m(p.estimated_minor),
          spent_amount: m(p.spent_minor),
          difference: m(p.difference_minor),
          refund_amount: m(p.refund_minor),
          lines_refunded: p.lines_refunded,
          lines_unpriced: p.lines_unpriced,
        }]
        : [];
    }),
  };
}
