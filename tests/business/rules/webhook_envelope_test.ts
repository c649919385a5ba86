/**
 * The business webhook envelope (Business API 2.7, 6): one id for the fact, the same however
 * often it is made, another for another business; the data under `data`, never over the envelope.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { businessWebhookOf, webhookEventId } from "../../../src/business/rules/webhook_envelope.ts";
import type { BusinessWebhookItem } from "../../../src/business/rules/webhook_events.ts";

function item(eventId: string, data: Record<string, unknown> = {}): BusinessWebhookItem {
  return {
    business_id: "biz_a",
    event_id: eventId,
    event: "trip.cancelled",
    external_reference: null,
    occurred_at: Date.UTC(2026, 10, 29, 9, 30),
    data,
  };
}

Deno.test("webhook envelope: the same fact makes the same id and bytes; another fact or business another id", () => {
  fc.assert(fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (x, y) => {
    const a = businessWebhookOf("biz_a", item(x));
    assert.deepEqual(businessWebhookOf("biz_a", item(x)), a);
    assert.match(a.id, /^evt_[0-9a-f]{26}$/);
    assert.notEqual(webhookEventId("biz_b", x), a.id);
    if (x !== y) assert.notEqual(webhookEventId("biz_a", y), a.id);
  }));
});

Deno.test("webhook envelope: the data's own id stays under data, the envelope's fields on top", () => {
  const w = businessWebhookOf("biz_a", item("trip_9:cancelled", { id: 9, reason: "closed" }), {
    test: true,
  });
  assert.deepEqual(JSON.parse(w.raw_body), {
    id: w.id,
    event: "trip.cancelled",
    event_id: w.id,
    timestamp: "2026-11-29T09:30:00.000Z",
    external_reference: null,
    test: true,
    data: { id: 9, reason: "closed" },
  });
  assert.equal(w.event, "trip.cancelled");
});

Deno.test("webhook envelope: a trip's event carries its tracking_url after reference, null while the link is off; other fields' bytes unchanged", () => {
  const data = { id: 9, reference: "BK-1", status: "pending", reason: null };
  const base = { ...item("BK-1:trip.created", data), tracking_token: "trk_abc" };
  const on = businessWebhookOf("biz_a", base, { publicUrl: "https://track.example.com" });
  const sent = JSON.parse(on.raw_body).data;
  assert.deepEqual(Object.keys(sent), ["id", "reference", "tracking_url", "status", "reason"]);
  assert.equal(sent.tracking_url, "https://track.example.com/api/trip-track/trk_abc");
  const without = JSON.parse(businessWebhookOf("biz_a", item("BK-1:trip.created", data)).raw_body);
  const { tracking_url: _, ...rest } = sent;
  assert.equal(JSON.stringify(rest), JSON.stringify(without.data));
  const off = businessWebhookOf("biz_a", { ...base, tracking_token: null });
  assert.equal(JSON.parse(off.raw_body).data.tracking_url, null);
  assert.throws(() => businessWebhookOf("biz_a", base), /environment's address/);
});
