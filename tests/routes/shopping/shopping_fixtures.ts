/** A business with shopping fulfilment enabled and money in its wallet, and an order of 2.2. */
import type { CreatedBusiness, TestEnv } from "../../helpers/test_env.ts";
import { fundedBusiness } from "../business/trips_fixtures.ts";

/** A funded business the operator enabled shopping fulfilment for (CONTRACT operator API). */
export async function shoppingBusiness(t: TestEnv, amount = "5000.00"): Promise<CreatedBusiness> {
  const b = await fundedBusiness(t, amount);
  const r = await t.call("PATCH", `/operator/businesses/${b.id}`, {
    operator: true,
    body: { shopping_fulfilment_enabled: true },
  });
  if (r.status !== 200) throw new Error(`enable: ${r.status} ${JSON.stringify(r.body)}`);
  return b;
}

/** A store of `lines` lines, ids prefixed by `tag`, each 2 units at 10.00. */
export function store(tag: string, lines = 2, extra: Record<string, unknown> = {}) {
  return {
    external_fulfilment_id: `F-${tag}`,
    external_store_id: `S-${tag}`,
    store_name: `Store ${tag}`,
    estimated_amount: 20 * lines,
    items: Array.from({ length: lines }, (_, i) => ({
      external_item_id: `${tag}-${i}`,
      name: `Item ${tag} ${i}`,
      qty: 2,
      unit_price: 10,
    })),
    ...extra,
  };
}

/** An order of 2.2 (Gaborone: Game City to Block 8) with `stores` stores of `lines` lines. */
export function orderBody(
  id: string | number,
  o: { stores?: number; lines?: number; shopping?: Record<string, unknown> } = {},
  extra: Record<string, unknown> = {},
) {
  return {
    pickup_address: "Game City, Gaborone",
    pickup_lat: -24.6545,
    pickup_lng: 25.9086,
    dest_address: "Plot 9, Block 8",
    dest_lat: -24.6019,
    dest_lng: 25.935,
    recipient_first_names: "Neo",
    recipient_surname: "Kgosi",
    recipient_phone: "+26771234567",
    shopping: {
      external_order_id: id,
      stores: Array.from({ length: o.stores ?? 2 }, (_, i) => store(String(i), o.lines ?? 2)),
      ...o.shopping,
    },
    ...extra,
  };
}

export function createOrder(t: TestEnv, key: string, body: unknown) {
  return t.call("POST", "/business/shopping-orders", { key, body });
}
