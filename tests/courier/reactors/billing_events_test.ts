/**
 * Billing events end to end (courier 2.7, 3.1, 4.3, 6.1): a booking's charge goes to the
 * courier's billing endpoint as a V3-signed event that a real receiver verifies; failures are
 * retried on the manual clock; the courier's system acknowledges forward only; the CSV export and
 * its preview; no endpoint means hourly retries and an alert; a failed schedule raises one.
 */
import assert from "node:assert/strict";
import { parse } from "csv-parse/sync";
import { courierClientActor } from "../../../actors/courier/courier_client.ts";
import { entryAsk } from "../../../actors/courier/client_ledger.ts";
import {
  outboundEventActor,
  type OutboundEventCommand,
  type OutboundEventState,
  summaryOf,
  waitedForEndpoint,
} from "../../../actors/platform/outbound_event/mod.ts";
import { eventIdOf } from "../../../src/courier/rules/billing_events.ts";
import { entryOf } from "../../../src/courier/rules/ledger.ts";
import {
  BillingEvents,
  chargeEventIdOf,
  SWEEP_AFTER_MS,
} from "../../../src/courier/reactors/billing_events.ts";
import { DEFERRED_WORK_RETRY_MS, SWEEP_DEEP_EVERY_MS } from "../../../src/limits.ts";
import { BILLING_CSV_COLUMNS } from "../../../src/courier/rules/billing_csv.ts";
import { billingCsvStream } from "../../../src/courier/queries/billing_export.ts";
import { verifyV3 } from "../../../src/domain/signatures.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  billingCsv,
  billingCsvRows,
  bookWaybill,
  type Client,
  type Courier,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";
import {
  advance,
  type Receiver,
  startReceiver,
  until,
  untilRecorded,
} from "../../helpers/receiver.ts";
import { commandKind, flakyRuntime, holdAsk } from "../../helpers/faults.ts";
import { alertActor } from "../../../actors/courier/alert.ts";
import { DeferredWorks } from "../../../src/platform/reactors/deferred.ts";
import { OutboundDelivery } from "../../../src/platform/reactors/deliver.ts";
import { outboundAlerts } from "../../../src/courier/reactors/delivery_alerts.ts";
import { targetResolver } from "../../../src/courier/reactors/delivery_targets.ts";

async function setEndpoint(t: TestEnv, courier: Courier, url: string | null) {
  const r = await t.call("PUT", "/business/courier/billing/endpoint", {
    key: courier.business.api_key,
    body: { url },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
}

/** The billing event of a booking, once the emitter has made it. */
async function bookedEvent(t: TestEnv, courier: Courier, client: Client, waybill: string) {
  const id = await eventIdOf("billing", courier.business.id, client.id, waybill);
  await until(t, async () => {
    const got = await t.env.runtime.ask(outboundEventActor, courier.business.id, id, {
      kind: "get",
    });
    return got.ok;
  }, `billing event ${id}`);
  return id;
}

/**
 * A booking's billing event with no endpoint set anywhere: its first attempt found none and it
 * waits for its hourly try (courier 3.1). `state` reads the event.
 */
async function waitingForEndpoint(t: TestEnv) {
  const courier = await newCourier(t);
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "500");
  const waybill = await bookWaybill(t, client);
  const eventId = await bookedEvent(t, courier, client, waybill);
  const state = async () => {
    const got = await t.env.runtime.ask(outboundEventActor, courier.business.id, eventId, {
      kind: "get",
    });
    assert.ok(got.ok && got.reply);
    return got.reply;
  };
  await advance(t, 0);
  await until(t, async () => (await state()).endpoint_missing_at != null, "no endpoint");
  return { courier, eventId, state };
}

async function withReceiver(fn: (r: Receiver) => Promise<void>) {
  const receiver = startReceiver();
  try {
    await fn(receiver);
  } finally {
    await receiver.close();
  }
}

Deno.test("billing events: a charge is sent V3-signed, retried on the clock, deduped once", () =>
  withTestEnv((t) =>
    withReceiver(async (receiver) => {
      const courier = await newCourier(t);
      await setEndpoint(t, courier, `${receiver.url}/billing`);
      const client = await newClient(t, courier, { unique_external_reference: false });
      await topUp(t, courier, client, "500");
      receiver.failFirst = 2;
      const waybill = await bookWaybill(t, client, { client_order_reference: "ORD-1" });
      const eventId = await bookedEvent(t, courier, client, waybill);

      await advance(t, 0);
      await untilRecorded(t, courier.business.id, eventId, 1);
      await advance(t, 60); // +1 min: the first retry
      await untilRecorded(t, courier.business.id, eventId, 2);
      await advance(t, 4 * 60); // +5 min from the first try: the second retry succeeds
      await until(t, () => receiver.effects.has(eventId), "the delivery");

      const mine = receiver.deliveries.filter((d) =>
        d.headers.get("X-Service-Event-Id") === eventId
      );
      assert.deepEqual(mine.map((d) => d.status), [500, 500, 200]);
      assert.equal(new Set(mine.map((d) => d.headers.get("X-Service-Attempt-Id"))).size, 3);
      assert.equal(new Set(mine.map((d) => d.body)).size, 1, "the same bytes on every attempt");
      for (const d of mine) {
        assert.equal(d.path, "/billing");
        assert.equal(d.headers.get("Idempotency-Key"), eventId);
        assert.equal(d.headers.get("X-Service-Api-Version"), "v1");
        const verdict = await verifyV3({
          secrets: { [d.headers.get("X-Service-Key-Id")!]: courier.business.webhook_secret },
          rawBody: d.body,
          headers: d.headers,
          nowSeconds: Math.floor(t.clock.now() / 1000),
        });
        assert.deepEqual(verdict, { ok: true });
        // Signed with the courier's secret: any other secret fails.
        const forged = await verifyV3({
          secrets: { [d.headers.get("X-Service-Key-Id")!]: "whsec_someone_else" },
          rawBody: d.body,
          headers: d.headers,
          nowSeconds: Math.floor(t.clock.now() / 1000),
        });
        assert.deepEqual(forged, { ok: false, reason: "bad_signature" });
      }
      const body = JSON.parse(mine[2]!.body);
      assert.equal(body.api_version, "v1");
      assert.equal(body.event_type, "shipment.booked");
      assert.equal(body.type, "shipment.booked");
      assert.equal(body.event_id, eventId);
      assert.equal(body.client.id, client.id);
      assert.equal(body.client.name, "Molapo Pharmacy");
      assert.equal(body.entry.reference, waybill);
      assert.equal(body.entry.kind, "shipment");
      assert.equal(body.entry.amount, "88.92");
      assert.equal(body.entry.currency, "BWP");
      assert.equal(body.entry.status, "posted");
      assert.equal(body.entry.payer, "client");
      assert.equal(body.entry.source_event, `shipment.booked:${waybill}`);
      assert.deepEqual(body.shipment, {
        waybill,
        external_customer_code: null,
        external_billing_reference: null,
        client_order_reference: "ORD-1",
      });
      // Top-ups are money received, not charges: no event was sent for them.
      assert.equal(receiver.effects.size, 1);

      await t.settle();
      const listed = await t.call("GET", "/business/courier/billing/events?status=delivered", {
        key: courier.business.api_key,
      });
      assert.equal(listed.status, 200);
      assert.deepEqual(listed.body.data.map((e: { event_id: string }) => e.event_id), [
        eventId,
      ]);
      assert.equal(listed.body.data[0].attempts, 3);
      const pending = await t.call("GET", "/business/courier/billing/events?status=pending", {
        key: courier.business.api_key,
      });
      assert.deepEqual(pending.body.data, []);
    })
  ));

Deno.test("billing events: acknowledgements only move forward, paid is refused", () =>
  withTestEnv((t) =>
    withReceiver(async (receiver) => {
      const courier = await newCourier(t);
      await setEndpoint(t, courier, receiver.url);
      const client = await newClient(t, courier);
      await topUp(t, courier, client, "500");
      const waybill = await bookWaybill(t, client);
      const eventId = await bookedEvent(t, courier, client, waybill);
      const key = courier.business.api_key;
      const ack = (body: Record<string, unknown>) =>
        t.call("POST", `/business/courier/billing/events/${eventId}/acknowledge`, { key, body });

      const paid = await ack({ state: "paid", external_reference: "PAY-1" });
      assert.equal(paid.status, 422);
      assert.equal(paid.body.code, "state_paid_refused");
      const odd = await ack({ state: "settled" });
      assert.equal(odd.status, 422);
      assert.equal(odd.body.code, "validation_failed");
      // A blank reference is refused, not kept as the state's reference, and moves nothing.
      for (const blank of ["", "   "]) {
        const r = await ack({ state: "acknowledged", external_reference: blank });
        assert.equal(r.status, 422, JSON.stringify(r.body));
        assert.equal(r.body.errors[0].path, "external_reference");
      }

      const first = await ack({ state: "acknowledged", external_reference: "ACK-1" });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(first.body.data.reported_state, "acknowledged");
      assert.equal(first.body.data.external_reference, "ACK-1");
      const reconciled = await ack({ state: "reconciled", external_reference: "REC-1" });
      assert.equal(reconciled.body.data.reported_state, "reconciled");
      // Late and repeated reports never move it back; the first reference per state is kept.
      const late = await ack({ state: "invoiced_externally", external_reference: "INV-1" });
      assert.equal(late.body.data.reported_state, "reconciled");
      assert.equal(late.body.data.external_reference, "REC-1");
      const again = await ack({ state: "acknowledged", external_reference: "ACK-2" });
      assert.deepEqual(again.body.data.external_references, {
        acknowledged: "ACK-1",
        reconciled: "REC-1",
        invoiced_externally: "INV-1",
      });
      assert.equal(again.body.data.reported_state, "reconciled");

      // The client's statement shows the entry as the CSV does: the furthest state reported,
      // its reference, and the event's delivery (courier 2.6, 3.1).
      await until(t, async () => {
        await t.settle();
        const v = await t.call("GET", `/business/courier/clients/${client.id}/billing`, { key });
        const row = v.body.data.statement.entries.find((e: { reference: string }) =>
          e.reference === waybill
        );
        return row?.export_state === "reconciled" && row.external_reference === "REC-1" &&
          row.event_state === "delivered";
      }, "the statement row follows its event");

      // Another courier sees nothing of it.
      const other = await newCourier(t);
      for (
        const [method, path, body] of [
          ["GET", `/business/courier/billing/events/${eventId}`, undefined],
          ["POST", `/business/courier/billing/events/${eventId}/acknowledge`, {
            state: "acknowledged",
          }],
          ["POST", `/business/courier/billing/events/${eventId}/requeue`, { reason: "x" }],
        ] as const
      ) {
        const r = await t.call(method, path, { key: other.business.api_key, body });
        assert.equal(r.status, 404, `${method} ${path}`);
      }
      await t.settle();
      const list = await t.call("GET", "/business/courier/billing/events", {
        key: other.business.api_key,
      });
      assert.deepEqual(list.body.data, []);
    })
  ));

Deno.test("billing export: a shipment's row carries the client's code and the booking's references", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const waybill = await bookWaybill(t, client, {
      external_customer_code: "CUST-7",
      external_billing_reference: "BILL-3",
    });
    const day = new Date(t.clock.now()).toISOString().slice(0, 10);
    const csv = await billingCsv(t, courier, "GET", `client_id=${client.id}&from=${day}&to=${day}`);
    const row = billingCsvRows(csv).find((r) => r["kind"] === "shipment")!;
    assert.equal(row["waybill"], waybill);
    assert.equal(row["external customer code"], "CUST-7");
    assert.equal(row["external billing reference"], "BILL-3");
    assert.match(row["client"]!, /^C[0-9a-f]{8}$/, "the client's code, not its id");
    assert.equal(row["tax"], "10.92");
  }));

Deno.test("billing export: the preview changes nothing; the POST marks and its file shows them exported", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    const other = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    await topUp(t, courier, other, "500");
    const waybill = await bookWaybill(t, client, { client_order_reference: "ORD-9" });
    const day = new Date(t.clock.now()).toISOString().slice(0, 10);
    const query = `client_id=${client.id}&from=${day}&to=${day}`;

    const preview1 = await billingCsv(t, courier, "GET", query);
    const preview2 = await billingCsv(t, courier, "GET", query);
    assert.equal(preview2, preview1);
    assert.equal(preview1.split("\n")[0], BILLING_CSV_COLUMNS.join(","));
    const rows = billingCsvRows(preview1);
    assert.deepEqual(rows.map((r) => r["kind"]), ["top_up", "shipment"]);
    assert.ok(rows.every((r) => r["export state"] === "pending"));
    const shipmentRow = rows[1]!;
    assert.equal(shipmentRow["waybill"], waybill);
    assert.equal(shipmentRow["amount"], "88.92");
    assert.equal(shipmentRow["tax"], "10.92");
    assert.equal(shipmentRow["shipment status"], "booked");
    assert.equal(shipmentRow["date"], day);
    assert.equal(rows[0]!["amount"], "-500.00");

    const posted = await billingCsv(t, courier, "POST", query);
    // spec: courier 3.1: the POST's file shows its entries as it left them, exported; otherwise
    // the preview's rows.
    assert.deepEqual(billingCsvRows(posted).map((r) => r["export state"]), [
      "exported",
      "exported",
    ]);
    assert.equal(posted, preview1.replaceAll(",pending,", ",exported,"));
    const after = await billingCsv(t, courier, "GET", query);
    assert.equal(after, posted, "the preview after shows what the POST's file showed");
    // The other client's entries were not in the range: still pending.
    const others = billingCsvRows(await billingCsv(t, courier, "GET", `client_id=${other.id}`));
    assert.deepEqual(others.map((r) => r["export state"]), ["pending"]);
    // A POST with its range in its address, as the preview takes it, exports that range only.
    const addressed = await t.app.request(
      `/api/business/courier/billing/export?client_id=${other.id}&from=2020-01-01&to=2020-01-02`,
      { method: "POST", headers: { "X-Business-API-Key": courier.business.api_key } },
    );
    assert.equal(addressed.status, 200);
    assert.equal(addressed.headers.get("X-Entries-Marked"), "0");
    assert.deepEqual(billingCsvRows(await addressed.text()), []);
    const stillPending = billingCsvRows(
      await billingCsv(t, courier, "GET", `client_id=${other.id}`),
    );
    assert.deepEqual(stillPending.map((r) => r["export state"]), ["pending"]);

    // A bad range is refused and marks nothing; another courier's client is not found.
    const bad = await t.call("POST", "/business/courier/billing/export", {
      key: courier.business.api_key,
      body: { client_id: other.id, from: "2026-12-31", to: "2026-01-01" },
    });
    assert.equal(bad.status, 422);
    const stranger = await newCourier(t);
    const hidden = await t.call("POST", "/business/courier/billing/export", {
      key: stranger.business.api_key,
      body: { client_id: client.id },
    });
    assert.equal(hidden.status, 404);
    assert.deepEqual(
      billingCsvRows(await billingCsv(t, courier, "GET", `client_id=${other.id}`)).map((r) =>
        r["export state"]
      ),
      ["pending"],
    );
  }));

Deno.test("billing export: a day that does not exist, or a year Postgres cannot hold, is refused 422 naming the bound", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const headers = { "X-Business-API-Key": courier.business.api_key };
    const cases: [Record<string, string>, string][] = [
      [{ from: "2026-11-01", to: "2026-11-31" }, "to"],
      [{ from: "2026-02-30", to: "2026-03-31" }, "from"],
      [{ from: "2026-02-29", to: "2026-03-31" }, "from"], // 2026 is no leap year
      [{ from: "2026-11-01", to: "2026-11-31T10:00:00Z" }, "to"],
      [{ from: "0000-01-01", to: "2026-11-30" }, "from"],
      [{ from: "2026-11-01", to: "9999-12-31T23:00:00-05:00" }, "to"],
    ];
    for (const [range, path] of cases) {
      const query = new URLSearchParams({ client_id: client.id, ...range });
      const get = await t.app.request(`/api/business/courier/billing/export?${query}`, {
        headers,
      });
      assert.equal(get.status, 422, `GET ${query}`);
      const body = await get.json();
      assert.equal(body.code, "validation_failed");
      assert.deepEqual(body.errors.map((e: { path: string }) => e.path), [path], `GET ${query}`);
      const post = await t.call("POST", "/business/courier/billing/export", {
        key: courier.business.api_key,
        body: { client_id: client.id, ...range },
      });
      assert.equal(post.status, 422, `POST ${query}: ${JSON.stringify(post.body)}`);
      assert.equal(post.body.code, "validation_failed");
      assert.deepEqual(post.body.errors.map((e: { path: string }) => e.path), [path]);
    }
    // Nothing was marked; a leap day that exists is a day.
    const rows = billingCsvRows(await billingCsv(t, courier, "GET", `client_id=${client.id}`));
    assert.deepEqual(rows.map((r) => r["export state"]), ["pending"]);
    await billingCsv(t, courier, "GET", `client_id=${client.id}&from=2028-02-29&to=2028-03-01`);
  }));

Deno.test("billing export: a query that fails does so before the file is answered, not after its header", () =>
  withTestEnv(async (t) => {
    // A time Postgres cannot hold, past the route's checks: the failure must come while the
    // route can still answer an error.
    await assert.rejects(() =>
      billingCsvStream(t.env.db, {
        tenant: "biz_x",
        client_id: null,
        from: new Date("0000-01-01T00:00:00.000Z"),
        to: null,
        as_of: new Date(t.clock.now()),
      })
    );
  }));

Deno.test("billing export: delivered at is an ISO 8601 timestamp, as the date column and the event", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const waybill = await bookWaybill(t, client);
    for (const body of [{ event: "collected", holder: "Thabo" }, { event: "delivered" }]) {
      const r = await t.call("POST", `/business/courier/shipments/${waybill}/scans`, {
        key: courier.business.api_key,
        body,
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
    }
    const deliveredAt = new Date(t.clock.now()).toISOString();
    const rows = billingCsvRows(await billingCsv(t, courier, "GET", `client_id=${client.id}`));
    const row = rows.find((r) => r["kind"] === "shipment")!;
    assert.equal(row["shipment status"], "delivered");
    assert.equal(row["delivered at"], deliveredAt);
  }));

Deno.test("billing export: text a spreadsheet would evaluate is neutralised; amounts stay numbers", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const waybill = await bookWaybill(t, client, {
      external_customer_code: "=CUST,01",
      external_billing_reference: '+PO "77"',
    });
    await t.env.settle(); // the note names an entry the query side holds
    const note = await t.call("POST", `/business/courier/clients/${client.id}/billing/correct`, {
      key: courier.business.api_key,
      body: { entry_reference: waybill, amount: "-12.50", reason: '=HYPERLINK("http://x","y")' },
    });
    assert.equal(note.status, 201, JSON.stringify(note.body));
    const text = await billingCsv(t, courier, "GET", `client_id=${client.id}`);
    const rows = parse(text, { columns: true }) as Record<string, string>[];
    const credit = rows.find((r) => r["kind"] === "credit_note")!;
    assert.equal(credit["reason"], `'=HYPERLINK("http://x","y")`);
    assert.equal(credit["amount"], "-12.50", "an amount is a number, left as it is");
    assert.equal(credit["external customer code"], "'=CUST,01");
    assert.equal(credit["external billing reference"], `'+PO "77"`);
    assert.equal(rows.find((r) => r["kind"] === "top_up")!["amount"], "-500.00");
  }));

Deno.test("billing events: with no endpoint the event waits, retries hourly and raises an alert", () =>
  withTestEnv((t) =>
    withReceiver(async (receiver) => {
      const { courier, eventId, state } = await waitingForEndpoint(t);
      const first = await state();
      assert.equal(first.status, "pending");
      assert.equal(first.round_attempts, 0, "nothing was sent: the schedule is not spent");
      assert.equal(first.next_attempt_at, t.clock.now() + 60 * 60_000);

      const alerts = async () => {
        await t.settle();
        const r = await t.call("GET", "/business/courier/alerts?kind=billing_endpoint_missing", {
          key: courier.business.api_key,
        });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return r.body.data as { subject: { id: string }; owner: string }[];
      };
      // Its entry may still go out in a CSV export: no alert before the hourly retry.
      assert.deepEqual(await alerts(), []);

      // An hour later it is tried again and still finds nothing: the alert.
      await advance(t, 60 * 60);
      await until(
        t,
        async () => (await state()).endpoint_missing_at === t.clock.now(),
        "the hourly retry",
      );
      await until(t, async () => (await alerts()).length === 1, "the alert");
      const [alert] = await alerts();
      assert.equal(alert!.subject.id, eventId);
      assert.equal(alert!.owner, "billing");

      // Another hour, another retry that finds nothing: still one alert.
      await advance(t, 60 * 60);
      await until(
        t,
        async () => (await state()).endpoint_missing_at === t.clock.now(),
        "the next hourly retry",
      );
      assert.equal((await alerts()).length, 1);

      // Once an endpoint is set, the event goes at once, not at the next hourly try.
      await setEndpoint(t, courier, receiver.url);
      assert.equal((await state()).next_attempt_at, t.clock.now(), "due now");
      await advance(t, 0);
      await until(t, () => receiver.effects.has(eventId), "delivery after the endpoint is set");
      await until(t, async () => (await state()).status === "delivered", "delivered");
      assert.equal((await state()).attempts_total, 1);
    })
  ));

Deno.test("billing events: a business webhook URL set later sends the waiting events at once", () =>
  withTestEnv((t) =>
    withReceiver(async (receiver) => {
      const { courier, eventId, state } = await waitingForEndpoint(t);
      await t.settle();
      // spec: courier 6.1: the webhook URL stands in for a billing endpoint never set.
      const r = await t.call("PATCH", "/business/profile", {
        key: courier.business.api_key,
        body: { webhook_url: receiver.url },
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal((await state()).next_attempt_at, t.clock.now(), "due now");
      await advance(t, 0);
      await until(t, () => receiver.effects.has(eventId), "delivered without the hour's wait");
    })
  ));

/** The courier's billing_endpoint_missing alerts in one status, as its team lists them. */
async function endpointAlerts(t: TestEnv, courier: Courier, status: "open" | "resolved") {
  await t.settle();
  const r = await t.call(
    "GET",
    `/business/courier/alerts?kind=billing_endpoint_missing&status=${status}`,
    { key: courier.business.api_key },
  );
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data as {
    id: string;
    subject: { id: string };
    resolution: string | null;
    evidence: string | null;
    resolved_by: string | null;
  }[];
}

Deno.test("billing events: an endpoint alert is resolved once its event is delivered to an endpoint set since, the delivery as evidence", () =>
  withTestEnv((t) =>
    withReceiver(async (receiver) => {
      const { courier, eventId, state } = await waitingForEndpoint(t);
      await advance(t, 60 * 60);
      await until(t, async () => (await endpointAlerts(t, courier, "open")).length === 1, "alert");

      await setEndpoint(t, courier, receiver.url);
      await advance(t, 0);
      await until(t, async () => (await state()).status === "delivered", "delivered");
      const deliveredAt = new Date(t.clock.now()).toISOString();
      // spec: courier 2.9, 3.1: the condition is over once the event has gone out; the alert is
      // not left for the team to close by hand, nor closed silently: a resolution and evidence.
      await until(t, async () => (await endpointAlerts(t, courier, "open")).length === 0, "closed");
      const [resolved] = await endpointAlerts(t, courier, "resolved");
      assert.equal(resolved!.subject.id, eventId);
      assert.match(resolved!.resolution ?? "", /^delivered to the billing endpoint/);
      assert.match(resolved!.evidence ?? "", new RegExp(`at ${deliveredAt}.*HTTP 200`));
      // The delivery as evidence, never what was sent nor the receiver's answer.
      const sent = receiver.deliveries.find((d) => d.headers.get("X-Service-Event-Id") === eventId);
      assert.ok(sent);
      assert.ok(!resolved!.evidence!.includes(courier.business.webhook_secret));
      assert.ok(!resolved!.evidence!.includes(receiver.url));
      assert.ok(!resolved!.evidence!.includes(JSON.parse(sent.body).entry.reference));
    })
  ));

Deno.test("billing events: a charge delivered at its first try asks no alert and raises none", () =>
  withTestEnv((t) =>
    withReceiver(async (receiver) => {
      const courier = await newCourier(t);
      await setEndpoint(t, courier, receiver.url);
      const client = await newClient(t, courier);
      await topUp(t, courier, client, "500");
      // The booking hot path: an event that never waited for an endpoint can have no
      // billing_endpoint_missing alert, so its delivery costs no alert ask (noted if made, then
      // let through: a held one would hold the bus's flush).
      const held = holdAsk(t.env.runtime, (type) => type === alertActor.type);
      let asked = false;
      held.reached.then(() => {
        asked = true;
        held.open();
      });
      const waybill = await bookWaybill(t, client);
      const eventId = await bookedEvent(t, courier, client, waybill);
      await advance(t, 0);
      await until(t, () => receiver.effects.has(eventId), "the delivery");
      await until(t, async () => {
        const got = await t.env.runtime.ask(outboundEventActor, courier.business.id, eventId, {
          kind: "get",
        });
        return got.ok && got.reply?.status === "delivered";
      }, "delivered");
      await t.settle();
      assert.equal(asked, false, "no alert actor was asked");
      assert.deepEqual(await endpointAlerts(t, courier, "open"), []);
      assert.deepEqual(await endpointAlerts(t, courier, "resolved"), []);
    })
  ));

Deno.test("billing events: an endpoint alert whose resolution fails past the delivery's tries, as in a crash after the commit, is resolved by a later try", () =>
  withTestEnv((t) =>
    withReceiver(async (receiver) => {
      const { courier, eventId, state } = await waitingForEndpoint(t);
      await advance(t, 60 * 60);
      await until(t, async () => (await endpointAlerts(t, courier, "open")).length === 1, "alert");
      // The environment's own engine stops; this one's resolutions fail at every try of the
      // delivery that carries the commit (the process dying there each time).
      await t.env.reactors["outbound"]!.close();
      const resolves = commandKind("resolve");
      const flaky = flakyRuntime(t.env.runtime, {
        fails: (type, command) => type === alertActor.type && resolves(type, command),
        times: 3,
      });
      const deferral = new DeferredWorks({
        runtime: t.env.runtime,
        bus: t.env.bus,
        onError: () => {},
      });
      const delivery = new OutboundDelivery({
        runtime: t.env.runtime,
        bus: t.env.bus,
        dataKey: t.env.dataKey,
        clock: t.clock,
        allowLoopback: true,
        targets: targetResolver(t.env.runtime, t.clock),
        ...outboundAlerts(flaky.runtime, t.env.db),
        retry: { delaysMs: [0, 0] }, // no real waiting: the test drives the bus
        deferral,
        onError: () => {},
      });
      try {
        await setEndpoint(t, courier, receiver.url);
        await advance(t, 0);
        await until(t, async () => {
          await delivery.pump();
          return (await state()).status === "delivered";
        }, "delivered");
        await t.env.bus.flush();
        assert.equal(flaky.failed(), 3, "every try within the delivery failed");
        assert.equal((await endpointAlerts(t, courier, "open")).length, 1);
        // spec: courier 2.9: never left open for ever: the kept work is tried again later.
        await advance(t, DEFERRED_WORK_RETRY_MS[0]! / 1000);
        await until(
          t,
          async () => (await endpointAlerts(t, courier, "open")).length === 0,
          "closed",
        );
        const resolved = await endpointAlerts(t, courier, "resolved");
        assert.deepEqual(resolved.map((a) => a.subject.id), [eventId]);
        assert.match(resolved[0]!.resolution ?? "", /^delivered to the billing endpoint/);
      } finally {
        await delivery.close();
        await deferral.close();
      }
    })
  ));

Deno.test("outbound event actor: the wait for an endpoint outlives the delivery, also in a state stored before it was kept", () => {
  const hour = 60 * 60_000;
  const apply = (state: OutboundEventState, command: OutboundEventCommand, now: number) => {
    const r = outboundEventActor.decide(state, command, { now, newId: (p) => `${p}_x` });
    assert.ok(r.ok, JSON.stringify(r));
    return r.events.reduce(outboundEventActor.evolve, state);
  };
  const deliver = (state: OutboundEventState, now: number) =>
    apply(state, {
      kind: "record_attempt",
      attempt_id: `att_${now}`,
      outcome: { result: "delivered", http_status: 204 },
    }, now);
  const event = {
    event_id: "evt_w",
    stream: "billing",
    event_type: "shipment.booked",
    raw_body: "{}",
    recipient: { kind: "courier" },
  } as const;
  let state = apply(null, { kind: "create", event, endpoint_missing: true }, 0);
  state = apply(state, { kind: "endpoint_missing", due_at: hour }, hour);
  const delivered = deliver(state, hour + 5);
  assert.equal(delivered?.endpoint_missing_at, null);
  assert.equal(delivered?.endpoint_waited_at, hour);
  const summary = summaryOf(delivered!);
  assert.equal(waitedForEndpoint(summary, summary.endpoint_waited_at), true);
  // A state stored by the version before: no endpoint_waited_at, its wait in endpoint_missing_at.
  const { endpoint_waited_at: _, ...stored } = state!;
  assert.equal(summaryOf(stored).endpoint_waited_at, hour);
  assert.equal(deliver(stored, hour + 5)?.endpoint_waited_at, hour);
  // Noted at its first try only: no alert was raised, none to resolve.
  const first = deliver(apply(null, { kind: "create", event, endpoint_missing: true }, 0), 60_000);
  assert.equal(waitedForEndpoint(summaryOf(first!), first!.endpoint_waited_at), false);
});

Deno.test("billing events: an entry exported before the hourly retry raises no endpoint alert", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const waybill = await bookWaybill(t, client);
    const eventId = await bookedEvent(t, courier, client, waybill);
    const missingAt = async () => {
      const got = await t.env.runtime.ask(outboundEventActor, courier.business.id, eventId, {
        kind: "get",
      });
      return got.ok ? got.reply?.endpoint_missing_at : undefined;
    };
    await advance(t, 0);
    await until(t, async () => (await missingAt()) != null, "no endpoint");
    await billingCsv(t, courier, "POST", `client_id=${client.id}`);
    await advance(t, 60 * 60);
    await until(t, async () => (await missingAt()) === t.clock.now(), "the hourly retry");
    await t.settle();
    const r = await t.call("GET", "/business/courier/alerts?kind=billing_endpoint_missing", {
      key: courier.business.api_key,
    });
    assert.deepEqual(r.body.data, []);
  }));

Deno.test("billing events: an endpoint alert raised before the entry was exported is resolved once it is, with the export as evidence", () =>
  withTestEnv(async (t) => {
    const { courier, eventId, state } = await waitingForEndpoint(t);
    const alerts = (status: "open" | "resolved") => endpointAlerts(t, courier, status);
    await advance(t, 60 * 60);
    await until(t, async () => (await alerts("open")).length === 1, "the alert");

    // spec: courier 3.1: the alert stands only while the entry has not gone out in an export.
    await billingCsv(t, courier, "POST", "");
    await advance(t, 60 * 60);
    await until(
      t,
      async () => (await state()).endpoint_missing_at === t.clock.now(),
      "the hourly retry after the export",
    );
    await until(t, async () => (await alerts("resolved")).length === 1, "resolved");
    assert.deepEqual(await alerts("open"), []);
    const [resolved] = await alerts("resolved");
    assert.equal(resolved!.subject.id, eventId);
    assert.match(resolved!.resolution ?? "", /export/);
    // Still waiting for an endpoint, it raises nothing again.
    await advance(t, 60 * 60);
    await until(t, async () => (await state()).endpoint_missing_at === t.clock.now(), "again");
    assert.deepEqual(await alerts("open"), []);
  }));

Deno.test("billing events: an endpoint alert raised again after a person resolved it is the one the export resolves", () =>
  withTestEnv(async (t) => {
    const { courier, eventId, state } = await waitingForEndpoint(t);
    const key = courier.business.api_key;
    const alerts = (status: "open" | "resolved") => endpointAlerts(t, courier, status);
    await advance(t, 60 * 60);
    await until(t, async () => (await alerts("open")).length === 1, "the alert");
    const [first] = await alerts("open");
    const resolved = await t.call("POST", `/business/courier/alerts/${first!.id}/resolve`, {
      key,
      body: { resolution: "asked accounts for an endpoint", evidence: "ticket ACC-12" },
    });
    assert.equal(resolved.status, 200, JSON.stringify(resolved.body));
    // spec: courier 2.9: never silently dismissed: still waiting at the next retry, raised again.
    await advance(t, 60 * 60);
    await until(t, async () => (await alerts("open")).length === 1, "raised again");
    const [second] = await alerts("open");
    assert.notEqual(second!.id, first!.id);
    assert.equal(second!.subject.id, eventId);

    // spec: courier 3.1: once the entry has gone out in an export, the open one is resolved.
    await billingCsv(t, courier, "POST", "");
    await advance(t, 60 * 60);
    await until(
      t,
      async () => (await state()).endpoint_missing_at === t.clock.now(),
      "the hourly retry after the export",
    );
    await until(t, async () => (await alerts("open")).length === 0, "the second resolved");
    const done = await alerts("resolved");
    assert.deepEqual(done.map((a) => a.id).sort(), [first!.id, second!.id].sort());
    assert.match(done.find((a) => a.id === second!.id)!.resolution ?? "", /export/);
  }));

Deno.test("billing events: a failed schedule raises billing_export_failed; requeue starts over", () =>
  withTestEnv((t) =>
    withReceiver(async (receiver) => {
      receiver.failFirst = 100;
      const courier = await newCourier(t);
      await setEndpoint(t, courier, receiver.url);
      const client = await newClient(t, courier);
      await topUp(t, courier, client, "500");
      const waybill = await bookWaybill(t, client);
      const eventId = await bookedEvent(t, courier, client, waybill);
      let expected = 0;
      for (const seconds of [0, 60, 4 * 60, 25 * 60, 90 * 60, 600 * 60]) {
        await advance(t, seconds);
        expected++;
        await untilRecorded(t, courier.business.id, eventId, expected);
      }
      const key = courier.business.api_key;
      const failedList = async () => {
        await t.settle();
        return (await t.call("GET", "/business/courier/billing/events?status=failed", { key }))
          .body.data as { event_id: string; attempts: number }[];
      };
      await until(t, async () => (await failedList()).length === 1, "failed");
      assert.equal((await failedList())[0]!.attempts, 6);
      const alerts = async () => {
        await t.settle();
        return (await t.call("GET", "/business/courier/alerts?kind=billing_export_failed", { key }))
          .body.data as { subject: { id: string }; owner: string }[];
      };
      await until(t, async () => (await alerts()).length === 1, "the alert");
      assert.equal((await alerts())[0]!.subject.id, eventId);
      // spec: courier 3.1, 6.1: a failed event alerts the courier's operations team.
      assert.equal((await alerts())[0]!.owner, "operations");

      const noReason = await t.call(
        "POST",
        `/business/courier/billing/events/${eventId}/requeue`,
        { key, body: { reason: " " } },
      );
      assert.equal(noReason.status, 422);
      receiver.failFirst = 0;
      const requeued = await t.call(
        "POST",
        `/business/courier/billing/events/${eventId}/requeue`,
        { key, body: { reason: "receiver fixed" } },
      );
      assert.equal(requeued.status, 200, JSON.stringify(requeued.body));
      assert.equal(requeued.body.data.status, "pending");
      assert.equal(requeued.body.data.requeues[0].reason, "receiver fixed");
      await advance(t, 0);
      await until(t, () => receiver.effects.has(eventId), "the requeued delivery");
    })
  ));

Deno.test("billing events: a note numbered like the shipment it corrects has an event of its own", async () => {
  const at = Date.UTC(2026, 0, 10);
  const shipment = entryOf({
    reference: "WB-1",
    seq: 1,
    kind: "shipment",
    amount_minor: 1_000,
    currency: "BWP",
    status: "posted",
    created_at: at,
  });
  const note = entryOf({
    reference: "WB-1",
    seq: 2,
    kind: "credit_note",
    amount_minor: -100,
    currency: "BWP",
    status: "posted",
    corrects: "WB-1",
    corrects_kind: "shipment",
    created_at: at,
  });
  const shipmentId = await chargeEventIdOf("ten", "c1", shipment);
  assert.equal(shipmentId, eventIdOf("billing", "ten", "c1", "WB-1"), "the id it always had");
  assert.notEqual(await chargeEventIdOf("ten", "c1", note), shipmentId);
  assert.equal(await chargeEventIdOf("ten", "c1", { ...shipment, kind: "payment" }), null);
});

Deno.test("billing events: charge.resolved keeps the charge's waybill, references and evidence, occurs at its resolution and tells when the charge arose", () =>
  withTestEnv((t) =>
    withReceiver(async (receiver) => {
      const courier = await newCourier(t);
      await setEndpoint(t, courier, receiver.url);
      const client = await newClient(t, courier, {
        settlement_mode: "credit",
        credit_limit: "5000.00",
      });
      const waybill = await bookWaybill(t, client, { external_billing_reference: "EBR-7" });
      // Duties in another currency, as a customs step posts them: no rate yet (courier 2.6 rule 4).
      await postZarDuties(t, courier, client, waybill, "DUT-T1", 10_000, "customs.duties:xing_t1");
      const arose = new Date(t.clock.now()).toISOString();
      await advance(t, 3 * 24 * 3600); // rated three days later
      const resolvedAt = new Date(t.clock.now()).toISOString();
      const r = await t.call("POST", `/business/courier/clients/${client.id}/billing/resolve-fx`, {
        key: courier.business.api_key,
        body: { entry_reference: "DUT-T1", rate: "0.75", source: "Bank of Botswana" },
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      const resolvedBody = () =>
        receiver.deliveries.map((d) => JSON.parse(d.body)).find((b) =>
          b.event_type === "charge.resolved"
        );
      await advance(t, 0);
      await until(t, () => resolvedBody() !== undefined, "the charge.resolved event");
      const body = resolvedBody()!;
      // spec: courier 2.7: a charge event carries the entry (2.6, with its shipment) and the
      // shipment's references.
      assert.equal(body.entry.reference, "DUT-T1");
      assert.equal(body.entry.amount, "75.00");
      assert.equal(body.entry.original_currency, "ZAR");
      assert.equal(body.entry.shipment, waybill);
      assert.equal(body.entry.evidence_path, "evidence/duty-receipt.pdf");
      assert.equal(body.shipment?.waybill, waybill);
      assert.equal(body.shipment?.external_billing_reference, "EBR-7");
      // spec: courier 2.6 rule 4: booked when it got its rate, with when it arose and the rate's
      // source.
      assert.equal(body.occurred_at, resolvedAt);
      assert.equal(body.entry.created_at, resolvedAt);
      assert.equal(body.entry.charged_at, arose);
      assert.equal(body.entry.fx_rate, "0.75");
      assert.equal(body.entry.fx_source, "Bank of Botswana");
    })
  ));

Deno.test("billing export: an acknowledgement of an entry's charge.resolved reaches its row and statement", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier, { settlement_mode: "credit", credit_limit: "5000" });
    const waybill = await bookWaybill(t, client);
    await postZarDuties(t, courier, client, waybill, "DUT-T2", 12_345, "customs.duties:xing_t2");
    const r = await t.call("POST", `/business/courier/clients/${client.id}/billing/resolve-fx`, {
      key: courier.business.api_key,
      body: { entry_reference: "DUT-T2", rate: "0.7733", source: "Bank of Botswana" },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const resolved = eventIdOf("billing.resolved", courier.business.id, client.id, "DUT-T2");
    const acknowledge = async (eventId: string, state: string, reference: string) => {
      await until(t, async () => {
        const got = await t.env.runtime.ask(outboundEventActor, courier.business.id, eventId, {
          kind: "get",
        });
        return got.ok;
      }, `event ${eventId}`);
      const a = await t.call("POST", `/business/courier/billing/events/${eventId}/acknowledge`, {
        key: courier.business.api_key,
        body: { state, external_reference: reference },
      });
      assert.equal(a.status, 200, JSON.stringify(a.body));
    };
    const row = async () => {
      const rows = billingCsvRows(await billingCsv(t, courier, "GET", `client_id=${client.id}`));
      return rows.find((x) => x["reference"] === "DUT-T2")!;
    };
    await acknowledge(resolved, "reconciled", "GL-9001");
    assert.equal((await row())["export state"], "reconciled");
    assert.equal((await row())["external reference"], "GL-9001");
    // The entry's own event reported later and less far: the furthest state stands.
    const own = eventIdOf("billing", courier.business.id, client.id, "DUT-T2");
    await acknowledge(own, "acknowledged", "ACK-1");
    assert.equal((await row())["export state"], "reconciled");
    assert.equal((await row())["external reference"], "GL-9001");
    const account = await t.call("GET", `/business/courier/clients/${client.id}/billing`, {
      key: courier.business.api_key,
    });
    const entry = account.body.data.statement.entries.find((e: { reference: string }) =>
      e.reference === "DUT-T2"
    );
    assert.equal(entry.export_state, "reconciled");
    assert.equal(entry.external_reference, "GL-9001");
  }));

Deno.test("billing events: a charge whose event a crash kept from being made is made by the sweep, once", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    // The process dies between the booking's ledger commit and its billing event.
    await t.env.reactors["billing_events"]!.close();
    const waybill = await bookWaybill(t, client);
    await t.settle();
    const eventId = await eventIdOf("billing", courier.business.id, client.id, waybill);
    const exists = async () =>
      (await t.env.runtime.ask(outboundEventActor, courier.business.id, eventId, { kind: "get" }))
        .ok;
    assert.equal(await exists(), false);
    const billing = new BillingEvents({ runtime: t.env.runtime, bus: t.env.bus, db: t.env.db });
    try {
      const bookedAt = t.clock.now();
      assert.equal(await billing.sweep(t.env.db, bookedAt), 0, "just made: the handler's to make");
      assert.equal(await billing.sweep(t.env.db, bookedAt + SWEEP_AFTER_MS + 1), 1);
      assert.equal(await exists(), true);
      await t.settle();
      assert.equal(await billing.sweep(t.env.db, bookedAt + SWEEP_AFTER_MS + 2), 0, "made once");
      // A deep round, a hour on, finds it made too.
      assert.equal(await billing.sweep(t.env.db, bookedAt + SWEEP_DEEP_EVERY_MS + 1), 0);
    } finally {
      await billing.close();
    }
  }));

Deno.test("billing events: a resolution whose charge.resolved a crash kept from being made is made by the sweep, once", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier, { settlement_mode: "credit", credit_limit: "5000" });
    const waybill = await bookWaybill(t, client);
    // Duties in another currency with no rate yet (courier 2.6 rule 4), and their own event.
    await postZarDuties(t, courier, client, waybill, "DUT-T3", 10_000, "customs.duties:xing_t3");
    const exists = async (id: string) =>
      (await t.env.runtime.ask(outboundEventActor, courier.business.id, id, { kind: "get" })).ok;
    const own = await eventIdOf("billing", courier.business.id, client.id, "DUT-T3");
    await until(t, () => exists(own), "the duties' own event");
    // The process dies between the resolution's ledger commit and its charge.resolved event.
    await t.env.reactors["billing_events"]!.close();
    const r = await t.call("POST", `/business/courier/clients/${client.id}/billing/resolve-fx`, {
      key: courier.business.api_key,
      body: { entry_reference: "DUT-T3", rate: "0.75", source: "Bank of Botswana" },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    await t.settle();
    const resolved = await eventIdOf("billing.resolved", courier.business.id, client.id, "DUT-T3");
    assert.equal(await exists(resolved), false);
    const billing = new BillingEvents({ runtime: t.env.runtime, bus: t.env.bus, db: t.env.db });
    try {
      const resolvedAt = t.clock.now();
      // spec: courier 6.1: one charge.resolved per resolution, each sent once; nothing is lost.
      assert.equal(await billing.sweep(t.env.db, resolvedAt + SWEEP_AFTER_MS + 1), 1);
      assert.equal(await exists(resolved), true);
      const got = await t.env.runtime.ask(outboundEventActor, courier.business.id, resolved, {
        kind: "get",
      });
      assert.ok(got.ok && got.reply);
      const body = JSON.parse(got.reply.raw_body);
      assert.equal(body.event_type, "charge.resolved");
      assert.equal(body.entry.amount, "75.00");
      assert.equal(body.entry.fx_rate, "0.75");
      assert.equal(body.entry.source_event, "charge.resolved:DUT-T3");
      assert.equal(body.shipment?.waybill, waybill);
      await t.settle();
      assert.equal(await billing.sweep(t.env.db, resolvedAt + SWEEP_AFTER_MS + 2), 0, "made once");
      assert.equal(await billing.sweep(t.env.db, resolvedAt + SWEEP_DEEP_EVERY_MS + 1), 0);
    } finally {
      await billing.close();
    }
  }));

/**
 * Duties in ZAR posted as a customs step posts them, on a BWP account: no rate yet, so the entry
 * is `unresolved_fx` (courier 2.6 rule 4) until resolve-fx.
 */
async function postZarDuties(
  t: TestEnv,
  courier: Courier,
  client: Client,
  waybill: string,
  reference: string,
  amount_minor: number,
  source: string,
): Promise<void> {
  const posted = await t.env.runtime.ask(courierClientActor, courier.business.id, client.id, {
    kind: "post_charge",
    entry_kind: "duties",
    reference,
    amount_minor,
    currency: "ZAR",
    reason: "duties paid on the client's behalf",
    evidence_path: "evidence/duty-receipt.pdf",
    source_event: source,
    shipment: waybill,
    recoverable: true,
    by: "test",
  }, entryAsk(source));
  assert.ok(posted.ok, JSON.stringify(posted));
}
