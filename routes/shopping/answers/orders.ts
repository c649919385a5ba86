/**
 * What the shopping order routes answer (shopping 2.2, 3, 4): the order with the live state of
 * every store and line, the float and the trip. External ids come back with the JSON type sent.
 */
import type { ShoppingLine, ShoppingStore } from "../../../actors/shopping/store.ts";
import { decimal } from "../../../src/domain/money.ts";
import { iso } from "../../../src/domain/iso.ts";
import { z } from "../../../src/http/route.ts";
import { UtcInstant } from "../../../src/http/schemas.ts";
import type { ShoppingOrderLive } from "../../../src/shopping/flows/orders.ts";
import { ReconciliationAnswer, reconciliationView } from "./float.ts";
import { SUBSTITUTION_PREFERENCES } from "../../../src/shopping/rules/order.ts";

const ExternalId = z.union([z.string(), z.number()]).openapi({
  description: "As sent: a number stays a number, a string a string",
});
const Amount = z.number().nullable();

const LineAnswer = z.object({
  external_item_id: ExternalId,
  name: z.string(),
  qty_requested: z.number().int(),
  unit_price: Amount,
  barcode: z.string().nullable(),
  image: z.string().nullable(),
  outcome: z.enum(["pending", "awaiting_decision", "found", "substituted", "unavailable"]).openapi({
    description: "pending until the shopper records the line; awaiting_decision while a " +
      "substitute under preference `ask` waits for the customer's decision (until decide_by)",
  }),
  qty_found: z.number().int().nullable(),
  unit_price_paid: Amount,
  substitute: z.object({ name: z.string(), barcode: z.string().nullable(), unit_price: Amount })
    .nullable(),
  decided_by: z.enum(["shopper", "customer", "preference"]).nullable(),
  decide_by: UtcInstant.nullable().openapi({
    description: "While awaiting_decision: the end of the customer's decision window (POST " +
      "/business/shopping-orders/{reference}/items/{external_item_id}/decision); else null",
  }),
}).openapi("ShoppingOrderLine");

export const StoreAnswer = z.object({
  external_fulfilment_id: ExternalId,
  external_store_id: ExternalId,
  store_name: z.string().nullable(),
  sequence: z.number().int(),
  status: z.enum(["pending", "collected", "unavailable"]).openapi({
    description: "pending until the shopper collects the store or marks it unavailable",
  }),
  estimated_amount: z.number(),
  collected_amount: Amount,
  receipt_photo_received: z.boolean().openapi({
    description: "Whether the till receipt's photo was uploaded with the collection",
  }),
  finished_at: UtcInstant.nullable().openapi({
    description: "When the store was collected or marked unavailable",
  }),
  items: z.array(LineAnswer),
}).openapi("ShoppingOrderStore");

export const ShoppingOrderAnswer = z.object({
  reference: z.string().openapi({ description: "The trip reference (GET /business/trips/{id})" }),
  external_order_id: ExternalId,
  external_reference: z.string(),
  external_location_id: ExternalId.nullable(),
  substitution_preference: z.enum(SUBSTITUTION_PREFERENCES),
  recipient: z.object({ first_names: z.string(), surname: z.string(), phone: z.string() }),
  payment_method: z.string().nullable(),
  float: z.object({
    currency: z.string(),
    purchase_amount: z.number().openapi({ description: "Shelf money fronted to the shopper" }),
    estimated_amount: z.number().openapi({ description: "The sum of the stores' estimates" }),
    collected_amount: Amount.openapi({
      description: "Spent at the stores collected so far; null before the first",
    }),
    reconciliation: ReconciliationAnswer.nullable().openapi({
      description: "Null until every store is collected or unavailable (the basket collected)",
    }),
  }),
  trip: z.object({ reference: z.string(), id: z.number().int(), status: z.string() }).nullable(),
  stores: z.array(StoreAnswer).openapi({ description: "In shopping order (sequence)" }),
  created_at: UtcInstant,
  replayed: z.boolean().openapi({ description: "True when a repeat answered the first order" }),
  original_status: z.enum(["cancelled"]).optional().openapi({
    description: "On a replay of an order whose trip was cancelled: cancelled",
  }),
  replay_terminal: z.boolean().optional().openapi({
    description: "On a replay of an order whose trip was cancelled: true; send the order again " +
      "with a new external_reference and shopping.external_order_id",
  }),
}).openapi("ShoppingOrder");

function lineView(l: ShoppingLine, currency: string) {
  const money = (m: number | null) => m === null ? null : decimal(m, currency);
  return {
    external_item_id: l.external_item_id,
    name: l.name,
    qty_requested: l.qty,
    unit_price: money(l.unit_price_minor),
    barcode: l.barcode,
    image: l.image,
    outcome: l.outcome,
    qty_found: l.qty_found,
    unit_price_paid: money(l.unit_price_paid_minor),
    substitute: l.substitute && {
      name: l.substitute.name,
      barcode: l.substitute.barcode,
      unit_price: money(l.substitute.unit_price_minor),
    },
    decided_by: l.decided_by,
    decide_by: l.outcome === "awaiting_decision" && l.decide_by !== null ? iso(l.decide_by) : null,
  };
}

export function storeView(s: ShoppingStore, currency: string) {
  return {
    external_fulfilment_id: s.external_fulfilment_id,
    external_store_id: s.external_store_id,
    store_name: s.store_name,
    sequence: s.sequence,
    status: s.status,
    estimated_amount: decimal(s.estimated_amount_minor, currency),
    collected_amount: s.collected_amount_minor === null
      ? null
      : decimal(s.collected_amount_minor, currency),
    receipt_photo_received: s.receipt_photo !== null,
    finished_at: s.finished_at === null ? null : iso(s.finished_at),
    items: s.lines.map((l) => lineView(l, currency)),
  };
}

export function shoppingOrderView(
  live: ShoppingOrderLive,
  replayed = false,
): z.infer<typeof ShoppingOrderAnswer> {
  const { order, trip } = live;
  const c = order.currency;
  const collected = live.stores.flatMap((s) => s.collected_amount_minor ?? []);
  // spec: shopping 2.2: sequence is the shopping order; equal ones keep array order.
  const stores = [...live.stores].sort((a, b) => a.sequence - b.sequence);
  return {
    reference: order.reference,
    external_order_id: order.external_order_id,
    external_reference: order.external_reference,
    external_location_id: order.external_location_id,
    substitution_preference: order.substitution_preference,
    recipient: order.recipient,
    payment_method: order.payment_method,
    float: {
      currency: c,
      purchase_amount: decimal(order.purchase_amount_minor, c),
      estimated_amount: decimal(order.estimated_amount_minor, c),
      collected_amount: collected.length === 0
        ? null
        : decimal(collected.reduce((a, b) => a + b, 0), c),
      reconciliation: reconciliationView(order),
    },
    trip: trip && { reference: trip.reference, id: trip.id, status: trip.status },
    stores: stores.map((s) => storeView(s, c)),
    created_at: iso(order.claimed_at),
    replayed,
    // spec: business 7: the replay of a cancelled delivery says so (shopping 4: a repeat replays).
    ...(replayed && trip?.status === "cancelled"
      ? { original_status: "cancelled" as const, replay_terminal: true }
      : {}),
  };
}
