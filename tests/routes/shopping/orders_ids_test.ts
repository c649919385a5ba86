/**
 * Shopping 2.2 "External ids are stored as received and echoed with the JSON type sent": a
 * number is kept as sent only within the exact range of a JSON number.
 */
import assert from "node:assert/strict";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { balanceOf } from "../business/trips_fixtures.ts";
import { orderBody, shoppingBusiness } from "./shopping_fixtures.ts";

/** Sends `body` as JSON with `raw` written in place of each text `"__ID__"`; the answer's text. */
async function createRaw(t: TestEnv, key: string, body: unknown, raw: string) {
  const res = await t.app.request("/api/business/shopping-orders", {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Business-API-Key": key },
    body: JSON.stringify(body).replaceAll('"__ID__"', raw),
  });
  return { status: res.status, text: await res.text() };
}

// spec: shopping 2.2 "stored as received": JSON reads 9007199254740993 as 9007199254740992, so
// such an id would be echoed, sent in events and matched on the decision path as another one.
Deno.test("shopping orders: a numeric id past 2^53 or with a fraction is 422 naming it, nothing booked; the largest exact one is echoed as sent", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const before = await balanceOf(t, b.api_key);
    const at: [string, (body: ReturnType<typeof orderBody>) => void][] = [
      ["shopping.external_order_id", (x) => x.shopping.external_order_id = "__ID__"],
      ["shopping.external_location_id", (x) => {
        (x.shopping as Record<string, unknown>).external_location_id = "__ID__";
      }],
      ["shopping.stores.1.external_fulfilment_id", (x) => {
        x.shopping.stores[1]!.external_fulfilment_id = "__ID__";
      }],
      ["shopping.stores.0.external_store_id", (x) => {
        x.shopping.stores[0]!.external_store_id = "__ID__";
      }],
      ["shopping.stores.1.items.0.external_item_id", (x) => {
        x.shopping.stores[1]!.items[0]!.external_item_id = "__ID__";
      }],
    ];
    // Past 2^53, or a fraction (which names no id), as the OpenAPI document says.
    for (const [path, place] of at) {
      for (const raw of ["9007199254740993", "1.5"]) {
        const body = orderBody("ORD-BIG-ID");
        place(body);
        const r = await createRaw(t, b.api_key, body, raw);
        assert.equal(r.status, 422, `${path} ${raw}: ${r.text.slice(0, 300)}`);
        const answer = JSON.parse(r.text);
        assert.equal(answer.code, "validation_failed");
        assert.equal(answer.errors[0].path, path, r.text);
        assert.match(answer.message, /a number id is a whole one at most 9007199254740991/);
      }
    }
    assert.deepEqual(await balanceOf(t, b.api_key), before);
    const body = orderBody("__ID__");
    body.shopping.stores[0]!.external_store_id = "__ID__";
    const made = await createRaw(t, b.api_key, body, "9007199254740991");
    assert.equal(made.status, 201, made.text.slice(0, 300));
    assert.ok(made.text.includes('"external_order_id":9007199254740991,'), made.text);
    assert.ok(made.text.includes('"external_store_id":9007199254740991,'), made.text);
  }));
