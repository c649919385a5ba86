/**
 * The packing slip and pick list of a shopping order's trip (Business API 4.1: "for shopping orders ready once
 * the basket is collected"): its lines from the order's stores, ordered against packed (found or
 * substituted as counted), the substitute's name, and what is missing (refunded). Before the
 * basket is collected it answers 409 `basket_not_collected`, naming how many stores are finished.
 */
import { type ShoppingOrder, shoppingOrderActor } from "../../../actors/shopping/order.ts";
import { type ShoppingStore, shoppingStoreActor } from "../../../actors/shopping/store.ts";
import type { Deps } from "../../environment.ts";
import { foundOrNull, orRefuse, refuse } from "../../runtime/actor.ts";
import { qtySupplied } from "../../shopping/rules/float.ts";
import type { OrderItem, RecipientNames } from "../rules/documents/facts.ts";

/** What a shopping order's slip prints of the order rather than of its trip. */
export interface ShoppingSlip {
  readonly items: OrderItem[];
  /**
   * spec: shopping 2.2, business 4.1: recipient_first_names and recipient_surname as sent: the
   * trip's one passenger name joins them, and a surname of several words cannot be read back.
   */
  readonly recipient_names: RecipientNames;
}

/** The slip of the shopping order booked as `reference`; null: the trip is not one. */
export async function shoppingSlipOf(
  deps: Pick<Deps, "runtime">,
  business: string,
  reference: string,
): Promise<ShoppingSlip | null> {
  // A refused read (a full mailbox) is thrown: the trip would be taken as no shopping order.
  const got = await deps.runtime.read(shoppingOrderActor, business, reference, { kind: "get" });
  const order = foundOrNull(got);
  if (!order || order.phase !== "booked") return null;
  if (!order.basket) {
    const finished = Object.keys(order.parts ?? {}).length;
    refuse(
      "basket_not_collected",
      `packing slip not ready: the basket is not collected yet (stores finished: ${finished} ` +
        `of ${order.stores.length})`,
    );
  }
  const { first_names, surname } = order.recipient;
  return { items: await itemsOfOrder(deps, order), recipient_names: { first_names, surname } };
}

/**
 * spec: business 4.1 pick list (items by store then aisle, quantity, barcode, substitution
 * preference): the lines of the shopping order booked as `reference`, from its booking on;
 * null: the trip is not one.
 */
export async function shoppingPickItems(
  deps: Pick<Deps, "runtime">,
  business: string,
  reference: string,
): Promise<OrderItem[] | null> {
  const got = await deps.runtime.read(shoppingOrderActor, business, reference, { kind: "get" });
  const order = foundOrNull(got);
  if (!order || order.phase !== "booked") return null;
  return await itemsOfOrder(deps, order);
}

async function itemsOfOrder(deps: Pick<Deps, "runtime">, order: ShoppingOrder) {
  const stores = await Promise.all(order.stores.map(async (s) =>
    orRefuse(
      await deps.runtime.read(shoppingStoreActor, order.business_id, s.store_id, { kind: "get" }),
    )
  ));
  const preference = order.substitution_preference;
  return stores.flatMap((s) => s ? itemsOf(s, preference) : []);
}

function itemsOf(s: ShoppingStore, preference: string): OrderItem[] {
  const store = s.store_name ?? String(s.external_store_id);
  return [...s.lines].map((l) => ({
    name: l.name,
    qty: l.qty,
    // spec: business 4.1: ordered against packed; a substitute is packed in the line's place.
    qty_packed: qtySupplied(l),
    store,
    aisle: null,
    code: l.barcode,
    preference,
    substitute: l.substitute?.name ?? null,
    unit_price_minor: l.unit_price_minor,
  }));
}
