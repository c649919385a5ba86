/**
 * What the outbound delivery engine sends: the exact body, signed with V3 (billing) or V2 (client
 * webhooks), a completion body at its bound kept over a restart, nothing secret logged or put on
 * the bus, and only a seal bound to its event signed with.
 */
import assert from "node:assert/strict";
import { outboundEventActor } from "../../../actors/platform/outbound_event/mod.ts";
import { subjectPattern } from "../../../src/bus/bus.ts";
import { base64url, importDataKey, seal, sealOwner } from "../../../src/domain/secrets.ts";
import { verifyV2, verifyV3 } from "../../../src/domain/signature_verification.ts";
import { OUTBOUND_BODY_BYTES_MAX } from "../../../src/platform/rules/delivery_schedule.ts";
import { completionEventBody } from "../../../src/courier/rules/billing_events.ts";
import { REFERENCE_CHARS_MAX, TEXT_CHARS_MAX } from "../../../src/courier/rules/ledger.ts";
import { COMPLETION_ADJUSTMENTS_MAX } from "../../../src/limits.ts";
import {
  create,
  KEY_ID,
  MINUTE,
  newEvent,
  openHarness,
  openReceiver,
  SECRET,
  setup,
  TENANT,
} from "./deliver_fixtures.ts";

/**
 * A completion body (courier 2.7) with every adjustment a completion lists, each text at its
 * bound in the character `ch`.
 */
function largestCompletion(eventId: string, ch: string): string {
  const at = Date.UTC(2026, 10, 20);
  return completionEventBody({
    eventId,
    eventType: "shipment.delivered",
    occurredAt: at,
    client: { id: "cli_1", code: "MOLAPO", name: "Molapo Pharmacy" },
    shipment: {
      waybill: "WB1000000001",
      external_customer_code: null,
      external_billing_reference: null,
      booked_at: at,
      service: "express",
      total_minor: 8_892,
      tax_minor: 1_092,
      currency: "BWP",
      lines: [{ code: "transport", label: "Transport", amount_minor: 7_800 }],
      status: "delivered",
      delivered_at: at,
      pod: true,
    },
    adjustments: Array.from({ length: COMPLETION_ADJUSTMENTS_MAX }, (_, i) => ({
      reference: `${i}`.padEnd(REFERENCE_CHARS_MAX, ch),
      kind: "failed_collection",
      amount: "-9999999999999.99",
      currency: "BWP",
      reason: ch.repeat(TEXT_CHARS_MAX),
      recoverable: false,
      correction: `${i}`.padEnd(REFERENCE_CHARS_MAX, ch),
      status: "unresolved_fx",
    })),
  });
}

Deno.test("outbound delivery: a billing event is delivered first time and verifies with V3", async () => {
  const { clock, dataKeyP } = setup();
  const dataKey = await dataKeyP;
  const receiver = openReceiver([]);
  const h = await openHarness({ clock, dataKey });
  try {
    const event = await newEvent(dataKey, receiver.url);
    await create(h, event);
    assert.equal((await h.get(event.event_id)).status, "pending");
    assert.equal(await h.step(), 1);
    assert.equal(receiver.hits.length, 1);
    const hit = receiver.hits[0]!;
    assert.equal(hit.body, event.raw_body);
    const verdict = await verifyV3({
      secrets: { [KEY_ID]: SECRET },
      rawBody: hit.body,
      headers: hit.headers,
      nowSeconds: Math.floor(clock.now() / 1000),
    });
    assert.deepEqual(verdict, { ok: true });
    assert.equal(hit.headers.get("x-service-event-id"), event.event_id);
    const stored = await h.get(event.event_id);
    assert.equal(stored.status, "delivered");
    assert.equal(stored.attempts.length, 1);
    assert.equal(stored.attempts[0]!.attempt_id, hit.headers.get("x-service-attempt-id"));
    assert.equal(stored.next_attempt_at, null);
    clock.advanceBy(24 * 60 * MINUTE);
    assert.equal(await h.step(), 0, "a delivered event is never attempted again");
  } finally {
    await h.close();
    await receiver.close();
  }
});

Deno.test("outbound delivery: a client webhook is signed with V2 over the raw body", async () => {
  const { clock, dataKeyP } = setup();
  const dataKey = await dataKeyP;
  const receiver = openReceiver([]);
  const h = await openHarness({ clock, dataKey });
  try {
    const event = await newEvent(dataKey, receiver.url, "client_webhook");
    await create(h, event);
    assert.equal(await h.step(), 1);
    const hit = receiver.hits[0]!;
    const verdict = await verifyV2(
      SECRET,
      hit.body,
      hit.headers.get("x-service-signature-v2"),
      Math.floor(clock.now() / 1000),
    );
    assert.deepEqual(verdict, { ok: true });
    assert.equal(hit.headers.get("x-service-delivery"), event.event_id);
    assert.equal((await h.get(event.event_id)).status, "delivered");
  } finally {
    await h.close();
    await receiver.close();
  }
});

Deno.test("outbound delivery: a completion body at its bound is stored, kept over a restart and sent byte for byte, signed", async () => {
  const { clock, dataKeyP } = setup();
  const dataKey = await dataKeyP;
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kv.sqlite3`;
  const receiver = openReceiver([500]);
  try {
    // The longest UTF-8 (3 bytes a character), and the longest stored form (`"`, escaped twice).
    const events = await Promise.all(["€", '"'].map(async (ch) => {
      const event = await newEvent(dataKey, receiver.url);
      return { ...event, raw_body: largestCompletion(event.event_id, ch) };
    }));
    const sizes = events.map((e) => new TextEncoder().encode(e.raw_body).length);
    assert.ok(sizes.every((n) => n <= OUTBOUND_BODY_BYTES_MAX), `${sizes} within the bound`);
    assert.ok(sizes[0]! > OUTBOUND_BODY_BYTES_MAX * 0.9, `${sizes[0]}: the bound is not loose`);
    const first = await openHarness({ clock, dataKey, path });
    const published: string[] = [];
    first.bus.subscribe(subjectPattern("test", TENANT, outboundEventActor.type), (m) => {
      published.push(JSON.stringify(m.payload));
    });
    try {
      for (const event of events) await create(first, event);
      assert.equal(await first.step(), 2); // the first is answered 500: tried again later
      await first.bus.flush();
      // The body is held by the event, not sent over the bus (NATS carries at most 1 MB).
      assert.ok(published.length > 0);
      assert.ok(published.every((p) => p.length < 10_000), "no body on the bus");
    } finally {
      await first.close();
    }
    const second = await openHarness({ clock, dataKey, path });
    try {
      for (const event of events) {
        assert.equal((await second.get(event.event_id)).raw_body, event.raw_body, "read back");
      }
      clock.advanceBy(MINUTE);
      assert.equal(await second.step(), 1);
      for (const event of events) {
        const hits = receiver.hits.filter((h) =>
          h.headers.get("x-service-event-id") === event.event_id
        );
        assert.equal(hits.at(-1)!.body, event.raw_body, "the stored bytes");
        const verdict = await verifyV3({
          secrets: { [KEY_ID]: SECRET },
          rawBody: hits.at(-1)!.body,
          headers: hits.at(-1)!.headers,
          nowSeconds: Math.floor(clock.now() / 1000),
        });
        assert.deepEqual(verdict, { ok: true });
        assert.equal((await second.get(event.event_id)).status, "delivered");
      }
      assert.equal(receiver.hits.length, 3);
    } finally {
      await second.close();
    }
  } finally {
    await receiver.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("outbound event actor: the creation logged and put on the bus carries neither the body nor the sealed secret", async () => {
  const { clock, dataKeyP } = setup();
  const dataKey = await dataKeyP;
  const receiver = openReceiver([]);
  const h = await openHarness({ clock, dataKey });
  const published: string[] = [];
  const subscription = h.bus.subscribe(
    subjectPattern(h.runtime.busPrefix, "*", outboundEventActor.type),
    (message) => {
      published.push(JSON.stringify(message.payload));
    },
  );
  try {
    const event = await newEvent(dataKey, receiver.url);
    await create(h, event);
    await h.bus.flush();
    const logged: string[] = [];
    for await (const { event: e } of h.runtime.events(outboundEventActor, event.event_id)) {
      logged.push(JSON.stringify(e));
    }
    const created = logged.filter((e) => e.includes('"kind":"created"'));
    assert.equal(created.length, 1);
    assert.equal(published.length, 1);
    const sealed = event.target!.sealed_secret;
    for (const text of [...created, ...published]) {
      assert.ok(text.includes(event.target!.url), "the target's address is kept");
      assert.ok(!text.includes('"raw_body"'), "the body is held in the state only");
      assert.ok(!text.includes(sealed.data) && !text.includes("sealed_secret"), text);
    }
    // The state still holds both: the attempt sends the body, signed with the secret.
    assert.equal(await h.step(), 1);
    assert.equal(receiver.hits[0]?.body, event.raw_body);
  } finally {
    subscription.unsubscribe();
    await h.close();
    await receiver.close();
  }
});

Deno.test("outbound delivery: a seal moved from another owner is not signed with; an unbound seal from before still is", async () => {
  const { clock } = setup();
  const raw = crypto.getRandomValues(new Uint8Array(32));
  const dataKey = await importDataKey(raw);
  const receiver = openReceiver([]);
  const h = await openHarness({ clock, dataKey });
  try {
    // Another tenant's seal, copied into this tenant's event.
    const moved = await newEvent(dataKey, receiver.url);
    const theirs = await seal(dataKey, SECRET, sealOwner("outbound_target", "biz_other", "e1"));
    await create(h, { ...moved, target: { ...moved.target!, sealed_secret: theirs } });
    assert.equal(await h.step(), 1);
    assert.equal(receiver.hits.length, 0, "nothing is sent unsigned or signed wrongly");
    const outcome = (await h.get(moved.event_id)).attempts[0]!.outcome;
    const error = outcome.result === "failed" ? outcome.error ?? "" : "";
    assert.ok(error.startsWith("signing_failed: "), error);
    assert.ok(!error.includes("biz_other"), error);

    // An event stored by a version that sealed without an owner (no `v`, no additional data).
    const key = await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt"]);
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const data = new Uint8Array(
      await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, new TextEncoder().encode(SECRET)),
    );
    const old = await newEvent(dataKey, receiver.url);
    const unbound = { iv: base64url(iv), data: base64url(data) };
    await create(h, { ...old, target: { ...old.target!, sealed_secret: unbound } });
    assert.equal(await h.step(), 1);
    assert.equal(receiver.hits.length, 1);
    assert.deepEqual(
      await verifyV3({
        secrets: { [KEY_ID]: SECRET },
        rawBody: receiver.hits[0]!.body,
        headers: receiver.hits[0]!.headers,
        nowSeconds: Math.floor(clock.now() / 1000),
      }),
      { ok: true },
    );
    assert.equal((await h.get(old.event_id)).status, "delivered");
  } finally {
    await h.close();
    await receiver.close();
  }
});
