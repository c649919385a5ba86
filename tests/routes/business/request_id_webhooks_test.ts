/**
 * What a request's change leads to names the request (Deps.requestId): a shopping trip cancelled
 * by POST /business/trips/{id}/cancel ends its order's stores (flows/trip_ended.ts, the trip's
 * outbox), and each store's shopping.store_collected attempt line names the cancel's X-Request-Id.
 */
import assert from "node:assert/strict";
import { logLines } from "../../helpers/log_lines.ts";
import { startReceiver, until } from "../../helpers/receiver.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { createOrder, orderBody, shoppingBusiness } from "../shopping/shopping_fixtures.ts";

const SETTINGS = "/business/shopping-fulfilment";

Deno.test("request id: a shopping trip's cancellation names its X-Request-Id on the attempts of the store events it ends", async () => {
  const receiver = startReceiver((h) => h.get("X-Service-Delivery"));
  const log = logLines();
  try {
    await withTestEnv(async (t) => {
      const b = await shoppingBusiness(t);
      const set = await t.call("PUT", SETTINGS, {
        key: b.api_key,
        body: { webhook_url: receiver.url },
      });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      // The events are sent once the business has its shopping secret (shopping 2.1).
      await t.call("POST", `${SETTINGS}/secret/rotate`, { key: b.api_key });
      const made = await createOrder(t, b.api_key, orderBody("ORD-RID", { stores: 2, lines: 1 }));
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const cancelled = await t.call("POST", `/business/trips/${made.body.data.reference}/cancel`, {
        key: b.api_key,
        headers: { "X-Request-Id": "cancel-5" },
      });
      assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
      const attempts = () =>
        log.all().filter((l) =>
          l.event === "outbound_attempt" && l.event_type === "shopping.store_collected"
        );
      await until(t, () => attempts().length >= 2, "both stores' event attempts logged");
      assert.deepEqual(
        attempts().map((l) => [l.stream, l.outcome, l.request_id]),
        [["shopping_webhook", "delivered", "cancel-5"], [
          "shopping_webhook",
          "delivered",
          "cancel-5",
        ]],
      );
    }, { log: log.destination });
  } finally {
    await receiver.close();
  }
});
