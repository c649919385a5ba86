/**
 * The customer tracking view (courier 2.11) and the events a shipment's life sends (courier 6.1,
 * 6.2): stage webhooks to the client, `shipment.estimate_changed`, and the courier's completion
 * billing event with POD.
 */
import assert from "node:assert/strict";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  bookShipment,
  type Client,
  clientKey,
  type Courier,
  grantScopes,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";
import { advance, startReceiver, until } from "../../helpers/receiver.ts";
import { ANONYMOUS_RATE_LIMIT } from "../../../src/limits.ts";

async function scan(t: TestEnv, courier: Courier, waybill: string, body: Record<string, unknown>) {
  const r = await t.call("POST", `/business/courier/shipments/${waybill}/scans`, {
    key: courier.business.api_key,
    body,
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
}

Deno.test("tracking: the public view shows progress and never customs notes, values or money", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const { waybill, tracking_url } = await bookShipment(t, client, {
      declared_value: 1234,
      client_order_reference: "SHOP-1",
    });
    const token = tracking_url.split("/").at(-1)!;
    const view = async () => {
      const r = await t.call("GET", `/s/${token}`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.data;
    };
    let v = await view();
    assert.equal(v.waybill, waybill);
    assert.equal(v.status, "booked");
    assert.equal(v.current_milestone, "collection");
    assert.equal(v.last_verified, null);
    assert.equal(v.delivery_attempts, 0);
    assert.equal(v.delay, null);
    assert.ok(v.expected_by);
    assert.ok(v.next_step);

    await scan(t, courier, waybill, { event: "collected", holder: "Driver Thabo" });
    await scan(t, courier, waybill, { event: "departed_to_border", facility_id: "GBE-HUB" });
    await scan(t, courier, waybill, { event: "presented_to_customs", facility_id: "TLOKWENG" });
    await scan(t, courier, waybill, {
      event: "customs_hold",
      reason: "SECRET-CUSTOMS-NOTE invoice undervalued",
      note: "SECRET-CUSTOMS-NOTE",
    });
    v = await view();
    assert.equal(v.status, "customs_hold");
    assert.equal(v.last_verified.place, "TLOKWENG");
    const text = JSON.stringify(v);
    for (
      const forbidden of [
        "SECRET-CUSTOMS-NOTE",
        "1234",
        "declared",
        "amount",
        "price",
        "total",
        "BWP",
        "currency",
        "specimen",
        "Driver Thabo",
      ]
    ) {
      assert.ok(!text.includes(forbidden), `tracking view shows ${forbidden}: ${text}`);
    }
    await grantScopes(t, courier, "customs:approve");
    await scan(t, courier, waybill, { event: "cleared" });
    await scan(t, courier, waybill, { event: "out_for_delivery" });
    await scan(t, courier, waybill, { event: "delivery_attempted" });
    v = await view();
    assert.equal(v.delivery_attempts, 1);
    await scan(t, courier, waybill, { event: "out_for_delivery" });
    await scan(t, courier, waybill, { event: "delivered", received_by: "Neo Kgosi" });
    v = await view();
    assert.equal(v.status, "delivered");
    assert.equal(v.pod.received_by, "Neo Kgosi");
    assert.ok(v.pod.delivered_at);

    const unknown = await t.call("GET", "/s/not-a-real-token-at-all");
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.success, false);
    assert.equal(unknown.body.error, "not_found");
  }));

Deno.test("lifecycle events: stage webhooks, estimate_changed, and the completion billing event", () =>
  withTestEnv(async (t) => {
    const clientHook = startReceiver();
    const billing = startReceiver();
    try {
      const courier = await newCourier(t);
      const r = await t.call("PUT", "/business/courier/billing/endpoint", {
        key: courier.business.api_key,
        body: { url: billing.url },
      });
      assert.equal(r.status, 200);
      const client = await newClient(t, courier);
      await topUp(t, courier, client, "500");
      const hook = await t.call("POST", "/client/webhook", {
        headers: clientKey(client),
        body: { url: clientHook.url },
      });
      assert.equal(hook.status, 201);
      const { waybill } = await bookShipment(t, client, {
        declared_value: 1234,
        client_order_reference: "SHOP-1",
      });
      await scan(t, courier, waybill, { event: "collected" });
      await scan(t, courier, waybill, { event: "out_for_delivery" });
      await advance(t, 48 * 3600); // Wednesday: a failed attempt now moves the estimate
      await scan(t, courier, waybill, { event: "delivery_attempted", note: "gate locked" });
      await scan(t, courier, waybill, { event: "out_for_delivery" });
      await scan(t, courier, waybill, { event: "delivered", received_by: "Neo Kgosi" });
      await advance(t, 0);
      // spec: courier 6.2: at-least-once, deduped on the id: an attempt still in flight when the
      // clock jumps may be sent again. And the events of one pump go side by side: the last
      // stage's may arrive before the one ahead of it, so wait for all of them.
      const events = () => [
        ...new Map(clientHook.deliveries.map((d) => {
          const body = JSON.parse(d.body);
          return [body.id as string, body.event as string];
        })).values(),
      ];
      await until(t, async () => {
        await advance(t, 0); // events made since are due now
        const stages = events().filter((e) => e !== "shipment.estimate_changed");
        return stages.length >= 6 && events().includes("shipment.estimate_changed");
      }, `client stage webhooks (so far ${events().join(", ")})`);
      assert.deepEqual(events().filter((e) => e !== "shipment.estimate_changed").sort(), [
        "shipment.awaiting_redelivery",
        "shipment.booked",
        "shipment.collected",
        "shipment.delivered",
        "shipment.out_for_delivery",
        "shipment.out_for_delivery",
      ]);
      const moved = clientHook.deliveries.map((d) => JSON.parse(d.body))
        .find((b) => b.event === "shipment.estimate_changed");
      assert.ok(moved.data.estimated_delivery_on);
      assert.equal(moved.data.waybill, waybill);

      const completion = () =>
        billing.deliveries.map((d) => JSON.parse(d.body)).find((b) =>
          b.event_type === "shipment.delivered"
        );
      await until(t, async () => {
        await advance(t, 0);
        return completion() !== undefined;
      }, "the completion billing event");
      const body = completion();
      assert.equal(body.api_version, "v1");
      assert.equal(body.shipment.waybill, waybill);
      assert.equal(body.shipment.pod, true);
      assert.equal(body.shipment.status, "delivered");
      assert.ok(body.shipment.delivered_at);
      assert.equal(body.shipment.base_charge, "78.00");
      assert.equal(body.shipment.tax, "10.92");
      assert.equal(body.shipment.currency, "BWP");
      assert.deepEqual(body.shipment.adjustments, []);
      assert.ok(body.shipment.price_lines.length >= 2);
      assert.equal(body.client.id, client.id);
      // spec: courier 4.3: the outbox by client holds the completion of the client's shipment.
      await t.env.settle();
      const outbox = await t.call(
        "GET",
        `/business/courier/billing/events?client_id=${client.id}&event_type=shipment.delivered`,
        { key: courier.business.api_key },
      );
      assert.equal(outbox.status, 200);
      assert.deepEqual(
        outbox.body.data.map((e: { event_id: string; client_id: string }) => [
          e.event_id,
          e.client_id,
        ]),
        [[body.event_id, client.id]],
      );
      const other = await newClient(t, courier);
      const none = await t.call(
        "GET",
        `/business/courier/billing/events?client_id=${other.id}&event_type=shipment.delivered`,
        { key: courier.business.api_key },
      );
      assert.deepEqual(none.body.data, []);
    } finally {
      await clientHook.close();
      await billing.close();
    }
  }));

/** Prices DOMESTIC for the client and books its economy option (3 working days in transit). */
async function bookEconomy(t: TestEnv, client: Client): Promise<string> {
  return (await bookShipment(t, client, {}, { service_level: "economy" })).waybill;
}

Deno.test("estimate: an estimated day over undelivered moves to the next working day, one shipment.estimate_changed per move", () =>
  withTestEnv(async (t) => {
    const clientHook = startReceiver();
    try {
      const courier = await newCourier(t);
      const client = await newClient(t, courier);
      await topUp(t, courier, client, "500");
      const hook = await t.call("POST", "/client/webhook", {
        headers: clientKey(client),
        body: { url: clientHook.url },
      });
      assert.equal(hook.status, 201);
      // Booked Monday 2 November, 10:00 in Gaborone: economy estimates Thursday 5.
      const open = await bookEconomy(t, client);
      const done = await bookEconomy(t, client);
      await scan(t, courier, open, { event: "collected" });
      for (const event of ["collected", "out_for_delivery"]) {
        await scan(t, courier, done, { event });
      }
      await scan(t, courier, done, { event: "delivered", received_by: "Neo Kgosi" });

      const row = async (waybill: string) => {
        await t.settle();
        const r = await t.call(
          "GET",
          `/business/courier/operations?q=${waybill}&include_closed=1`,
          {
            key: courier.business.api_key,
          },
        );
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return r.body.data[0] as {
          estimated_delivery_on: string;
          promise: { earliest_delivery: string; latest_delivery: string };
        };
      };
      /** The estimate moves the client heard of, one per event id (deliveries may repeat). */
      const moves = (waybill: string) => {
        const byId = new Map<string, string>();
        for (const d of clientHook.deliveries) {
          const body = JSON.parse(d.body);
          if (body.event === "shipment.estimate_changed" && body.data.waybill === waybill) {
            byId.set(body.id, body.data.estimated_delivery_on);
          }
        }
        return [...byId.values()];
      };
      const promise = { earliest_delivery: "2026-11-05", latest_delivery: "2026-11-06" };
      assert.equal((await row(open)).estimated_delivery_on, "2026-11-05");

      // One second before Thursday is over in Gaborone (22:00 UTC): nothing moves yet.
      const thursdayOver = Date.parse("2026-11-05T22:00:00Z");
      await advance(t, (thursdayOver - t.clock.now()) / 1000 - 1);
      assert.equal((await row(open)).estimated_delivery_on, "2026-11-05");
      await advance(t, 1);
      await until(t, () => moves(open).length === 1, "the first estimate move");
      assert.deepEqual(moves(open), ["2026-11-06"]);
      let r = await row(open);
      assert.equal(r.estimated_delivery_on, "2026-11-06");
      assert.deepEqual(r.promise, promise, "the frozen promise never moves");
      const read = await t.call("GET", `/client/shipments/${open}`, { headers: clientKey(client) });
      assert.equal(read.status, 200, JSON.stringify(read.body));
      assert.equal(read.body.data.estimated_delivery_on, "2026-11-06");

      // Friday over: past the weekend to Monday, one move.
      await advance(t, 24 * 3600);
      await until(t, () => moves(open).length === 2, "the second estimate move");
      // Through the weekend to Monday's start: the estimate stands, no more events. A stage
      // webhook after it arrives once whatever this shipment's changes made before it has.
      await advance(t, 48 * 3600);
      await scan(t, courier, open, { event: "out_for_delivery" });
      const stages = () =>
        clientHook.deliveries.map((d) => JSON.parse(d.body))
          .filter((b) => b.event === "shipment.out_for_delivery" && b.data.waybill === open);
      await until(t, async () => {
        await advance(t, 0);
        return stages().length > 0;
      }, "the out_for_delivery stage webhook");
      assert.deepEqual(moves(open), ["2026-11-06", "2026-11-09"]);
      r = await row(open);
      assert.equal(r.estimated_delivery_on, "2026-11-09");
      assert.deepEqual(r.promise, promise);

      // Delivered on Monday the 2nd: its estimate never moves, and no event says it did.
      assert.equal((await row(done)).estimated_delivery_on, "2026-11-05");
      assert.deepEqual(moves(done), []);
    } finally {
      await clientHook.close();
    }
  }));

Deno.test("tracking: a malformed, blank or over-long token is 404 in the tracking error shape", () =>
  withTestEnv(async (t) => {
    // CONTRACT "Errors": tracking endpoints answer {success: false, error, message}; a token that
    // cannot be one is as unknown as any other.
    const withNul = `${"a".repeat(20)}%00${"b".repeat(20)}`;
    const surrogate = `${"a".repeat(30)}%ED%A0%80`;
    for (
      const token of ["abc", "%20", "%20".repeat(12), "a".repeat(201), withNul, "%00", surrogate]
    ) {
      const r = await t.call("GET", `/s/${token}`);
      assert.equal(r.status, 404, `${token}: ${JSON.stringify(r.body)}`);
      assert.deepEqual(Object.keys(r.body).sort(), ["error", "message", "success"], token);
      assert.equal(r.body.success, false);
      assert.equal(r.body.error, "not_found");
    }
  }));

Deno.test("tracking: a rate-limited link answers 429 in the tracking error shape, with Retry-After", () =>
  withTestEnv(async (t) => {
    // CONTRACT "Errors": every error body of a tracking endpoint is {success: false, error,
    // message}, whoever refuses it: the address's rate limit (business 8) too.
    const path = `/s/${"a".repeat(32)}`;
    for (let i = 0; i < ANONYMOUS_RATE_LIMIT.perMinute; i++) {
      assert.equal((await t.call("GET", path)).status, 404);
    }
    const limited = await t.call("GET", path);
    assert.equal(limited.status, 429, JSON.stringify(limited.body));
    assert.deepEqual(Object.keys(limited.body).sort(), ["error", "message", "success"]);
    assert.equal(limited.body.success, false);
    assert.equal(limited.body.error, "rate_limited");
    assert.ok(Number(limited.headers.get("Retry-After")) >= 1);
    // The document says so (a minute later, when the address may call again).
    t.clock.advanceBy(60_000);
    const doc = await t.call("GET", "/api-docs/openapi.json");
    const answer = doc.body.paths["/s/{token}"].get.responses["429"];
    assert.deepEqual(answer.content["application/json"].schema.properties.error.enum, [
      "rate_limited",
    ]);
  }));

Deno.test("tracking: the link answers 403 while the courier platform is off, and again when on", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const { tracking_url } = await bookShipment(t, client);
    const path = `/s/${tracking_url.split("/").at(-1)!}`;
    const platform = (on: boolean) =>
      t.call("PATCH", `/operator/businesses/${courier.business.id}`, {
        operator: true,
        body: { courier_platform_enabled: on },
      });
    // spec: courier 1.2: every endpoint of the courier document, the tracking link included.
    assert.equal((await platform(false)).status, 200);
    const off = await t.call("GET", path);
    assert.equal(off.status, 403, JSON.stringify(off.body));
    assert.deepEqual(Object.keys(off.body).sort(), ["error", "message", "success"]);
    assert.equal(off.body.error, "courier_platform_disabled");
    assert.equal((await platform(true)).status, 200);
    assert.equal((await t.call("GET", path)).status, 200);
  }));

Deno.test("tracking: with PUBLIC_URL set, tracking_url and the OpenAPI servers ignore the caller's Host", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    // The test call goes to http://localhost; a caller could send any Host it likes.
    const { tracking_url } = await bookShipment(t, client);
    assert.match(
      tracking_url,
      /^https:\/\/track\.example\.com\/couriers\/api\/s\/[A-Za-z0-9_-]{20,}$/,
    );
    const doc = await t.app.request("/api/api-docs/openapi.json", {
      headers: { Host: "attacker.example" },
    });
    const servers = (await doc.json()).servers;
    assert.deepEqual(servers.map((s: { url: string }) => s.url), [
      "https://track.example.com/couriers/api",
    ]);
  }, { publicUrl: "https://track.example.com/couriers" }));

Deno.test("tracking: a cancelled or returned shipment is expected by no date and delayed by nothing", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const view = async (trackingUrl: string) => {
      const r = await t.call("GET", `/s/${trackingUrl.split("/").at(-1)!}`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.data;
    };
    const cancelled = await bookShipment(t, client);
    const returned = await bookShipment(t, client);
    assert.ok((await view(cancelled.tracking_url)).expected_by, "an open shipment is expected");
    await scan(t, courier, cancelled.waybill, { event: "cancelled", reason: "order withdrawn" });
    await scan(t, courier, returned.waybill, { event: "collected" });
    await scan(t, courier, returned.waybill, { event: "returning" });
    await scan(t, courier, returned.waybill, { event: "returned" });
    // spec: courier 2.11: expected_by tells the customer when the parcel will arrive; a parcel
    // that will never arrive (cancelled, back with the sender) is expected on no day.
    const closed = [
      { trackingUrl: cancelled.tracking_url, status: "cancelled" },
      { trackingUrl: returned.tracking_url, status: "returned" },
    ];
    for (const { trackingUrl, status } of closed) {
      const v = await view(trackingUrl);
      assert.equal(v.status, status);
      assert.equal(v.expected_by, null, `${status}: ${JSON.stringify(v)}`);
      assert.equal(v.delay, null);
      assert.equal(v.pod, null);
    }
  }));

Deno.test("tracking: a shipment on its way back to the sender is expected by no date and delayed by nothing", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const { waybill, tracking_url } = await bookShipment(t, client);
    await scan(t, courier, waybill, { event: "collected", facility_id: "GBE-HUB" });
    await scan(t, courier, waybill, { event: "out_for_delivery" });
    await scan(t, courier, waybill, { event: "delivery_attempted" });
    await scan(t, courier, waybill, { event: "returning", facility_id: "GBE-HUB" });
    await advance(t, 5 * 24 * 3600); // past the promise: still no date, no delay
    const r = await t.call("GET", `/s/${tracking_url.split("/").at(-1)!}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const v = r.body.data;
    // spec: courier 2.11: expected_by and delay tell the customer when the parcel arrives; one
    // going back to the sender will not arrive, as one returned or cancelled will not.
    assert.equal(v.status, "returning");
    assert.equal(v.expected_by, null, JSON.stringify(v));
    assert.equal(v.delay, null, JSON.stringify(v));
    assert.equal(v.current_milestone, null, JSON.stringify(v));
    assert.equal(v.delivery_attempts, 1);
    assert.equal(v.last_verified.place, "GBE-HUB");
    assert.equal(v.pod, null);
  }));

Deno.test("tracking: a parcel reported lost or damaged is expected by no date, and the customer reads what happens next", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const { waybill, tracking_url } = await bookShipment(t, client, { declared_value: 1234 });
    await scan(t, courier, waybill, { event: "collected", facility_id: "GBE-HUB" });
    await scan(t, courier, waybill, {
      event: "lost_or_damaged",
      reason: "SECRET-NOTE crushed in the van, claim 1234",
    });
    const r = await t.call("GET", `/s/${tracking_url.split("/").at(-1)!}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const v = r.body.data;
    // spec: courier 2.11: no expected day for a parcel that may never arrive, and a plain delay
    // and next step, with no internal note and no money.
    assert.equal(v.status, "lost_or_damaged");
    assert.equal(v.expected_by, null, JSON.stringify(v));
    assert.equal(v.current_milestone, null, JSON.stringify(v));
    assert.match(v.delay ?? "", /lost or damaged/, JSON.stringify(v));
    assert.match(v.next_step ?? "", /sender will be in touch/, JSON.stringify(v));
    assert.equal(JSON.stringify(v).includes("SECRET-NOTE"), false);
    assert.equal(JSON.stringify(v).includes("1234"), false);
    assert.equal(v.last_verified.place, "GBE-HUB");
  }));

Deno.test("tracking: a scan with no place keeps the last verified place and the time it was verified there", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const { waybill, tracking_url } = await bookShipment(t, client);
    const view = async () => {
      const r = await t.call("GET", `/s/${tracking_url.split("/").at(-1)!}`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.data;
    };
    await scan(t, courier, waybill, { event: "collected", holder: "Driver Thabo" });
    // No place verified yet: the scan's time, no place.
    const collected = (await view()).last_verified;
    assert.equal(collected.place, null);
    await advance(t, 3600);
    await scan(t, courier, waybill, { event: "received_at_depot", facility_id: "GBE-HUB" });
    const atHub = (await view()).last_verified;
    assert.equal(atHub.place, "GBE-HUB");
    assert.ok(atHub.scanned_at > collected.scanned_at);
    await advance(t, 3600);
    await scan(t, courier, waybill, { event: "returning" });
    await advance(t, 3600);
    await scan(t, courier, waybill, { event: "scan", holder: "Driver Thabo" });
    // spec: courier 2.11: "last verified place and scan time": the place, and when it was
    // verified there; a scan that verified no place changes neither.
    assert.deepEqual((await view()).last_verified, atHub);
  }));

Deno.test("tracking: a link with a trailing slash, an empty token or another method answers in the tracking error shape", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const { tracking_url } = await bookShipment(t, client);
    const token = tracking_url.split("/").at(-1)!;
    // CONTRACT "Errors": every error body of a tracking endpoint is {success: false, error,
    // message}: a link mangled in a mail client (a trailing slash, a cut-off token) is one.
    for (
      const [method, path, status] of [
        ["GET", `/s/${token}/`, 404],
        ["GET", `/s/${token}/extra`, 404],
        ["GET", "/s/", 404],
        ["POST", `/s/${token}`, 405],
      ] as const
    ) {
      const r = await t.call(method, path);
      assert.equal(r.status, status, `${method} ${path}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.success, false);
      assert.equal(r.body.code, undefined, `${method} ${path}: ${JSON.stringify(r.body)}`);
      assert.equal(typeof r.body.error, "string", `${method} ${path}: ${JSON.stringify(r.body)}`);
      assert.equal(typeof r.body.message, "string");
    }
  }));
