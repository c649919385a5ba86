/**
 * Shopping 3, 4: POST /business/shopping-orders/{reference}/items/{external_item_id}/decision, the
 * customer's accept or reject of a substitute awaiting them, within the window.
 */
import { type Api, ok } from "../../src/http/app.ts";
import { define, z } from "../../src/http/route.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { shoppingFulfilment } from "../../src/shopping/auth.ts";
import { decideShoppingItem } from "../../src/shopping/flows/decisions.ts";
import { DecisionBody } from "../../src/shopping/shopper_schema.ts";
import { ShoppingOrderAnswer, shoppingOrderView } from "./answers/orders.ts";

export function shoppingDecisionRoutes(api: Api): void {
  define(api, {
    method: "post",
    path: "/business/shopping-orders/{reference}/items/{external_item_id}/decision",
    summary: "The customer's decision on a substitute: accept (substituted) or reject " +
      "(unavailable, refunded)",
    description: "Only for a line awaiting_decision (a substitution under preference `ask`), " +
      "before its decide_by; the line is then decided_by customer. Without an answer in time " +
      "the line becomes unavailable, decided_by preference, and is refunded. Answers the order.",
    tag: "Shopping fulfilment",
    security: "business",
    middleware: [business({ scope: "deliveries" }), shoppingFulfilment],
    params: z.object({
      reference: z.string().min(1).max(40),
      external_item_id: z.string().min(1).max(64).openapi({ description: "The line's id" }),
    }),
    body: DecisionBody,
    response: ShoppingOrderAnswer,
    refusals: {
      not_found: "no shopping order of the account by this reference, or no such item in it",
      not_awaiting_decision: "the line awaits no decision: not yet recorded, recorded without " +
        "one, or already decided by the customer",
      decision_window_closed: "the decision window closed and the item was refunded (its time " +
        "ran out, or the order's trip was cancelled first)",
    },
  }, async (c, { params, body }) => {
    const { env, tenant } = businessCall(c);
    return ok(c, shoppingOrderView(await decideShoppingItem(env, tenant, params, body.decision)));
  });
}
