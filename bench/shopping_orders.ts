/**
 * Shopping orders (issue 41, shopping 2.2), figures only: orders of 20 stores x 200 lines
 * validated and booked per second over HTTP (POST /business/shopping-orders: the body checked
 * whole, the order id claimed, 20 store actors opened, the shop-and-deliver trip priced, charged
 * and created), a few at once, over several businesses so no one wallet is the only hot actor.
 */
import { orderBody } from "../tests/helpers/shopping_orders.ts";
import { recordFigure } from "./summary.ts";
import { BENCH_OPERATOR, type BenchEnvironment, withBenchEnvironment } from "./bench_env.ts";

const ORDERS = Number(Deno.env.get("BENCH_SHOPPING_ORDERS") ?? 40);
const CONCURRENCY = Number(Deno.env.get("BENCH_SHOPPING_CONCURRENCY") ?? 4);
const BUSINESSES = 4;
const STORES = 20;
const LINES = 200;

type Opened = BenchEnvironment;

async function call(o: Opened, method: string, path: string, body: unknown, auth: HeadersInit) {
  const r = await o.app.request(`/api${path}`, {
    method,
    headers: { "Content-Type": "application/json", ...auth },
    body: JSON.stringify(body),
  });
  const json = await r.json();
  if (r.status >= 300) throw new Error(`${path}: ${r.status} ${JSON.stringify(json)}`);
  return json.data;
}

async function shoppingBusiness(o: Opened, i: number): Promise<string> {
  const op = { Authorization: `Bearer ${BENCH_OPERATOR}` };
  const biz = await call(o, "POST", "/operator/businesses", {
    name: `Bench Shopping ${i}`,
    plan: "enterprise",
    currency: "BWP",
    country: "BW",
    owner_email: `bench-shopping-${i}@example.com`,
  }, op);
  await call(o, "PATCH", `/operator/businesses/${biz.id}`, {
    shopping_fulfilment_enabled: true,
  }, op);
  await call(o, "POST", `/operator/businesses/${biz.id}/wallet`, {
    amount: "10000000.00",
    currency: "BWP",
    reference: `bench-shopping-${i}`,
  }, op);
  return biz.api_key;
}

function order(n: number) {
  return orderBody(`BENCH-${n}`, {
    shopping: {
      stores: Array.from({ length: STORES }, (_, s) => ({
        external_fulfilment_id: `F-${n}-${s}`,
        external_store_id: `S-${s}`,
        store_name: `Store ${s}`,
        estimated_amount: 2_000,
        items: Array.from({ length: LINES }, (_, l) => ({
          external_item_id: `${n}-${s}-${l}`,
          name: `Product ${s}-${l}`,
          qty: 1 + (l % 3),
          unit_price: 9.99,
          barcode: String(6_001_000_000_000 + l),
        })),
      })),
    },
  });
}

export async function shoppingOrdersBench(): Promise<void> {
  await withBenchEnvironment("live", async (o) => {
    const keys: string[] = [];
    for (let i = 0; i < BUSINESSES; i++) keys.push(await shoppingBusiness(o, i));
    const bodies = Array.from({ length: ORDERS }, (_, n) => order(n));
    let next = 0;
    const started = performance.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < ORDERS) {
        const n = next++;
        const key = keys[n % keys.length]!;
        await call(o, "POST", "/business/shopping-orders", bodies[n], {
          "X-Business-API-Key": key,
        });
      }
    }));
    const seconds = (performance.now() - started) / 1_000;
    const perSecond = ORDERS / seconds;
    console.log(
      `shopping orders: ${perSecond.toFixed(1)} orders/s of ${STORES} stores x ${LINES} lines ` +
        `validated and booked (${ORDERS} orders, ${CONCURRENCY} at once, ${seconds.toFixed(1)} s)`,
    );
    recordFigure("shopping_orders_20x200_per_second", perSecond);
  });
}

if (import.meta.main) await shoppingOrdersBench();
