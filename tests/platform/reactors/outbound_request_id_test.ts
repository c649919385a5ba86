import assert from "node:assert/strict";
import { clientKey, DOMESTIC, hookedClient } from "../../helpers/courier.ts";
import { logLines } from "../../helpers/log_lines.ts";
import { startReceiver, until } from "../../helpers/receiver.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { book, hooked, PARCEL } from "../../routes/business/trips_fixtures.ts";

Deno.test("outbound log: a booking's webhook attempt names the booking request's X-Request-Id", async () => {
  const receiver = startReceiver();
  const log = logLines();
  try {
    await withTestEnv(async (t) => {
      const { client } = await hookedClient(t, receiver.url);
      const prices = await t.call("POST", "/client/prices", {
        headers: { ...clientKey(client), "X-Request-Id": "prices-1" },
        body: DOMESTIC,
      });
      assert.equal(prices.status, 200);
      const booked = await t.call("POST", "/client/book", {
        headers: { ...clientKey(client), "X-Request-Id": "abc" },
        body: {
          prices_reference: prices.body.data.prices_reference,
          service_level: "express",
          dangerous_goods_confirmed: false,
        },
      });
      assert.equal(booked.status, 201);
      assert.equal(booked.headers.get("X-Request-Id"), "abc");
      // The attempt's line is written once the receiver has answered: wait for the line itself.
      const attempted = (n: number) => () =>
        log.all().filter((l) => l.event === "outbound_attempt").length >= n;
      await until(t, attempted(1), "the webhook's attempt logged");
      assert.equal(receiver.deliveries.length, 1);
      const attempts = log.all().filter((l) => l.event === "outbound_attempt");
      assert.deepEqual(
        attempts.map((l) => [l.stream, l.outcome, l.request_id]),
        [["client_webhook", "delivered", "abc"]],
      );
      assert.equal(
        receiver.deliveries[0]!.headers.get("X-Service-Delivery"),
        attempts[0]!.event_id,
      );
      // The request id rides on the event, not in the body sent.
      assert.ok(!receiver.deliveries[0]!.body.includes("abc"));
    }, { log: log.destination });
  } finally {
    await receiver.close();
  }
});

Deno.test("outbound log: a scan's webhook attempt names the scan request's X-Request-Id, the booking's its own", async () => {
  const receiver = startReceiver();
  const log = logLines();
  try {
    await withTestEnv(async (t) => {
      const { courier, client } = await hookedClient(t, receiver.url);
      // Booked without an X-Request-Id: its webhook names the id the service gave the request.
      const booked = await t.call("POST", "/client/shipments", {
        headers: clientKey(client),
        body: { ...DOMESTIC, service_level: "express", dangerous_goods_confirmed: false },
      });
      assert.equal(booked.status, 201, JSON.stringify(booked.body));
      const bookingId = booked.headers.get("X-Request-Id");
      await until(t, () => receiver.deliveries.length > 0, "the booking's delivery");
      await until(
        t,
        () => log.all().filter((l) => l.event === "outbound_attempt").length >= 1,
        "the booking's attempt logged",
      );
      // spec: courier 4.4: the operations API's scan is recorded for its own request.
      const scanned = await t.call(
        "POST",
        `/business/courier/shipments/${booked.body.data.waybill}/scans`,
        {
          key: courier.business.api_key,
          headers: { "X-Request-Id": "scan-1" },
          body: { event: "collected", holder: "Thabo" },
        },
      );
      assert.equal(scanned.status, 201, JSON.stringify(scanned.body));
      await until(t, () => receiver.deliveries.length > 1, "the scan's delivery");
      await until(
        t,
        () => log.all().filter((l) => l.event === "outbound_attempt").length >= 2,
        "the scan's attempt logged",
      );
      const attempts = log.all().filter((l) => l.event === "outbound_attempt");
      assert.deepEqual(
        attempts.map((l) => [l.event_type, l.request_id]),
        [["shipment.booked", bookingId], ["shipment.collected", "scan-1"]],
      );
    }, { log: log.destination });
  } finally {
    await receiver.close();
  }
});

Deno.test("outbound log: a business booking's webhook attempt, and a signed sample's, name their request's X-Request-Id", async () => {
  const receiver = startReceiver();
  const log = logLines();
  try {
    await withTestEnv(async (t) => {
      const b = await hooked(t, receiver);
      const booked = await book(t, b.api_key, PARCEL, { "X-Request-Id": "book-7" });
      assert.equal(booked.status, 201, JSON.stringify(booked.body));
      const attempts = () =>
        log.all().filter((l) => l.event === "outbound_attempt" && l.stream === "business_webhook");
      await until(t, () => attempts().length >= 1, "the booking's webhook attempt logged");
      assert.deepEqual(
        attempts().map((l) => [l.event_type, l.outcome, l.request_id]),
        [["trip.created", "delivered", "book-7"]],
      );
      assert.ok(!receiver.deliveries[0]!.body.includes("book-7"));
      // The signed sample's attempt, made by the request itself, names it too.
      const sample = await t.call("POST", "/business/webhook-test", {
        key: b.api_key,
        headers: { "X-Request-Id": "sample-3" },
      });
      assert.equal(sample.status, 200, JSON.stringify(sample.body));
      await until(t, () => attempts().length >= 2, "the sample's attempt logged");
      assert.deepEqual(attempts()[1]!.request_id, "sample-3");
    }, { log: log.destination });
  } finally {
    await receiver.close();
  }
});
