/**
 * spec: shopping 6 "Receipt URL": a signed link valid receipt_url_ttl_minutes (at least 10) from
 * receipt; Business API 6: shopping.basket_collected carries a signed packing_slip_url. A retry
 * (after 1, 5, 30 minutes) carries links valid the TTL from that attempt, the event's id and
 * signature as every attempt's, and every other byte of the body as made.
 */
import assert from "node:assert/strict";
import { verifyV2 } from "../../../src/domain/signature_verification.ts";
import { setWebhookUrl } from "../../business/webhook_fixtures.ts";
import {
  advance,
  type Delivery,
  startReceiver,
  until,
  untilRecorded,
} from "../../helpers/receiver.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { collect, fetchLink, recordLine, storeIdsOf } from "./events_fixtures.ts";
import { createOrder, orderBody, shoppingBusiness } from "./shopping_fixtures.ts";

const SETTINGS = "/business/shopping-fulfilment";
const PHOTO = Uint8Array.from({ length: 3_000 }, (_, i) => (i * 5 + 1) % 256);
const LINK = /https:\/\/shop\.example\/api\/shopping\/links\/[A-Za-z0-9_.-]+/g;

/** The links a body carries. */
function linksOf(body: string): string[] {
  return [...body.matchAll(LINK)].map((m) => m[0]);
}

async function status(t: TestEnv, url: string) {
  return (await fetchLink(t, url)).status;
}

/** Each event's attempts, by X-Service-Delivery (the event id). */
function byEvent(deliveries: Delivery[]) {
  return Map.groupBy(deliveries, (d) => d.headers.get("X-Service-Delivery")!);
}

Deno.test("shopping links: the retry 36 minutes later carries receipt and packing slip links valid 10 minutes from that attempt; the first attempt's have expired", () =>
  withTestEnv(async (t) => {
    const receiver = startReceiver((h) => h.get("X-Service-Delivery"));
    try {
      const b = await shoppingBusiness(t);
      const key = b.api_key;
      const put = await t.call("PUT", SETTINGS, {
        key,
        body: { webhook_url: receiver.url, receipt_url_ttl_minutes: 10 },
      });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      const secret = (await t.call("POST", `${SETTINGS}/secret/rotate`, { key })).body.data
        .webhook_secret;
      // The business webhook too: its shopping.basket_collected carries the slip link.
      await setWebhookUrl(t, b, receiver.url);
      const made = await createOrder(t, key, orderBody("ORD-LR", { stores: 1, lines: 1 }));
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const reference = made.body.data.reference;
      // The first three attempts of every event refused: the fourth comes 1 + 5 + 30 minutes on.
      receiver.failFirst = 3;
      const [s0] = await storeIdsOf(t, b.id, reference);
      await recordLine(t, b.id, s0!, "0-0", {
        outcome: "found",
        qty_found: 2,
        unit_price_paid_minor: 1_000,
        substitute: null,
      });
      await collect(t, b.id, s0!, { amount_minor: 2_000, photo: PHOTO });
      const linked = () => receiver.deliveries.filter((d) => linksOf(d.body).length > 0);
      // store_collected and basket_collected (shopping), basket_collected (business).
      await until(t, () => byEvent(linked()).size === 3, "three linked events' first attempts");
      const ids = [...byEvent(linked()).keys()];
      for (const [n, minutes] of [[1, 1], [2, 5], [3, 30]] as const) {
        for (const id of ids) await untilRecorded(t, b.id, id, n);
        await advance(t, minutes * 60);
      }
      await until(
        t,
        () => linked().filter((d) => d.status === 200).length === 3,
        "the fourth attempts delivered",
      );
      for (const [id, sent] of byEvent(linked())) {
        const first = sent[0]!, last = sent.find((d) => d.status === 200)!;
        assert.equal(sent.indexOf(last), 3, `${id}: delivered at the fourth attempt`);
        assert.equal(JSON.parse(last.body).event_id, id, "the same event id on every attempt");
        // Only the links' tokens differ: every other byte as made.
        assert.equal(last.body.replace(LINK, "L"), first.body.replace(LINK, "L"));
        if (last.headers.has("X-Service-Signature")) {
          // The business webhook: signed with the whsec_ secret over the bytes sent.
          const ts = Number(last.headers.get("X-Service-Timestamp"));
          const v2 = last.headers.get("X-Service-Signature-V2");
          assert.deepEqual(await verifyV2(b.webhook_secret, last.body, v2, ts), { ok: true });
        } else {
          const ts = Number(last.headers.get("X-Service-Timestamp"));
          const v2 = last.headers.get("X-Service-Signature-V2");
          assert.deepEqual(await verifyV2(secret, last.body, v2, ts), { ok: true });
        }
        // 36 minutes on: the first attempt's links have expired; the fourth's open.
        for (const url of linksOf(first.body)) assert.equal(await status(t, url), 403, url);
        for (const url of linksOf(last.body)) assert.equal(await status(t, url), 200, url);
      }
      // spec: shopping 6: valid at least receipt_url_ttl_minutes from receipt, then 403.
      await advance(t, 9 * 60);
      for (const d of linked().filter((x) => x.status === 200)) {
        for (const url of linksOf(d.body)) assert.equal(await status(t, url), 200, url);
      }
      await advance(t, 2 * 60);
      for (const d of linked().filter((x) => x.status === 200)) {
        for (const url of linksOf(d.body)) assert.equal(await status(t, url), 403, url);
      }
    } finally {
      await receiver.close();
    }
  }, { publicUrl: "https://shop.example" }));
