/**
 * `shopping.decision_required` (shopping 3, 6): the event states the line as it was when it began
 * to await the customer, however late its item is handled (a crash, the outbox's sweep).
 */
import assert from "node:assert/strict";
import { outboundEventActor } from "../../../actors/platform/outbound_event/mod.ts";
import { handleShoppingItem } from "../../../src/shopping/flows/events.ts";
import { shoppingEventId } from "../../../src/shopping/rules/event_bodies.ts";
import { startReceiver } from "../../helpers/receiver.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { recordLine, storeIdsOf } from "./events_fixtures.ts";
import { createOrder, orderBody, shoppingBusiness } from "./shopping_fixtures.ts";

const SETTINGS = "/business/shopping-fulfilment";
const SUBSTITUTE = { name: "Other brand", barcode: "6001", unit_price_minor: 950 };

Deno.test("shopping events: decision_required made after the customer already decided still states the line awaiting, as its commit left it", () =>
  withTestEnv(async (t) => {
    const receiver = startReceiver((h) => h.get("X-Service-Delivery"));
    try {
      const b = await shoppingBusiness(t);
      const key = b.api_key;
      const made = await createOrder(
        t,
        key,
        orderBody("ORD-DR", { stores: 1, lines: 1, shopping: { substitution_preference: "ask" } }),
      );
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const reference = made.body.data.reference;
      const [s0] = await storeIdsOf(t, b.id, reference);
      // No webhook yet: the item is handled and nothing is made for it.
      await recordLine(t, b.id, s0!, "0-0", {
        outcome: "substituted",
        qty_found: 2,
        unit_price_paid_minor: 950,
        substitute: SUBSTITUTE,
      });
      const asked = (await t.call("GET", `/business/shopping-orders/${reference}`, { key })).body
        .data.stores[0].items[0];
      assert.equal(asked.outcome, "awaiting_decision");
      await t.settle();
      const rejected = await t.call(
        "POST",
        `/business/shopping-orders/${reference}/items/0-0/decision`,
        { key, body: { decision: "reject" } },
      );
      assert.equal(rejected.status, 200, JSON.stringify(rejected.body));
      await t.call("PUT", SETTINGS, { key, body: { webhook_url: receiver.url } });
      await t.call("POST", `${SETTINGS}/secret/rotate`, { key });
      // The same item handled late (as after a crash before its removal): the event is made now.
      const at = t.clock.now();
      await handleShoppingItem(t.env, {
        kind: "decision_needed",
        business_id: b.id,
        order_reference: reference,
        store_id: s0!,
        external_item_id: "0-0",
        event_id: "evt_late",
        decide_by: Date.parse(asked.decide_by),
        line: { qty_found: 2, unit_price_paid_minor: 950, substitute: SUBSTITUTE },
        at: at - 1_000,
      });
      const id = shoppingEventId(b.id, "evt_late");
      const got = await t.env.runtime.ask(outboundEventActor, b.id, id, { kind: "get" });
      assert.ok(got.ok && got.reply, JSON.stringify(got));
      const body = JSON.parse(got.reply.raw_body);
      assert.equal(body.event, "shopping.decision_required");
      assert.deepEqual(
        [body.item.outcome, body.item.qty_found, body.item.unit_price_paid, body.item.decided_by],
        ["awaiting_decision", 2, 9.5, null],
      );
      assert.equal(body.item.substitute.name, "Other brand");
      assert.equal(body.decide_by, asked.decide_by);
      assert.equal(body.at, new Date(at - 1_000).toISOString());
    } finally {
      await receiver.close();
    }
  }));
