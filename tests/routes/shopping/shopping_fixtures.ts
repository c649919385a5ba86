/** A business with shopping fulfilment enabled and money in its wallet, and an order of 2.2. */
import type { CreatedBusiness, TestEnv } from "../../helpers/test_env.ts";
import { fundedBusiness } from "../business/trips_fixtures.ts";

export { orderBody, store } from "../../helpers/shopping_orders.ts";

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

export function createOrder(t: TestEnv, key: string, body: unknown) {
  return t.call("POST", "/business/shopping-orders", { key, body });
}
