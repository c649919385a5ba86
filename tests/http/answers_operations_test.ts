/**
 * The documented success schemas (RouteSpec.response) of alerts, claims, billing events, the
 * operations board and customer tracking against real answers, checked by
 * tests/helpers/documented.ts: each route driven to its success, and the variants its answer has
 * (an alert assigned, resolved with a file; a claim filed, decided, replayed; an event waiting for
 * an endpoint, failed, delivered, acknowledged; a shipment booked, late, delivered).
 */
import assert from "node:assert/strict";
import { AlertAnswer, AlertDetailAnswer } from "../../routes/courier/answers/alerts.ts";
import {
  BillingEndpointAnswer,
  BillingEndpointSetAnswer,
  BillingEventAcknowledgedAnswer,
  BillingEventAnswer,
  BillingEventDetailAnswer,
} from "../../routes/courier/answers/billing_events.ts";
import { ClaimAnswer, ClientClaimAnswer } from "../../routes/courier/answers/claims.ts";
import {
  OperationsReportAnswer,
  OperationsRowAnswer,
  SavedViewAnswer,
  SavedViewDeletedAnswer,
} from "../../routes/courier/answers/operations.ts";
import { ShipmentOperationsAnswer } from "../../routes/courier/operations.ts";
import { TrackingAnswer } from "../../routes/courier/answers/tracking.ts";
import { raiseAlert } from "../../src/courier/flows/alerts.ts";
import { eventIdOf } from "../../src/courier/rules/billing_events.ts";
import { z } from "../../src/http/route.ts";
import { type TestEnv, withTestEnv } from "../helpers/test_env.ts";
import { documented, documentedData, listed } from "../helpers/documented.ts";
import {
  bookShipment,
  type Client,
  clientKey,
  type Courier,
  grantScopes,
  newClient,
  newCourier,
  topUp,
} from "../helpers/courier.ts";
import { advance, startReceiver, until } from "../helpers/receiver.ts";

const HOUR = 3600;

async function ready(t: TestEnv, card: Record<string, unknown> = {}): Promise<[Courier, Client]> {
  const courier = await newCourier(t, card);
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "2000.00");
  return [courier, client];
}

function scan(t: TestEnv, courier: Courier, waybill: string, body: Record<string, unknown>) {
  return t.call("POST", `/business/courier/shipments/${waybill}/scans`, {
    key: courier.business.api_key,
    body,
  });
}

Deno.test("answers: alerts and claims are what their schemas document", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, { claim_window_days: 5 });
    const key = courier.business.api_key;

    // ---- Alerts: one about a shipment, one about no shipment.
    const noScan = await raiseAlert(t.env.runtime, courier.business.id, {
      kind: "no_scan",
      condition_key: "WB1:no_scan",
      owner: "courier",
      subject: { type: "shipment", id: "WB1" },
      waybill: "WB1",
      message: "no scan of WB1 since 2026-11-01T08:00:00.000Z",
      detail: { since: "2026-11-01T08:00:00.000Z" },
    });
    t.clock.advanceBy(60_000);
    const billing = await raiseAlert(t.env.runtime, courier.business.id, {
      kind: "billing_export_failed",
      condition_key: "evt_1",
      owner: "billing",
      subject: { type: "billing_event", id: "evt_1" },
      waybill: null,
      message: "billing event could not be sent: evt_1",
      detail: { event_id: "evt_1", event_type: "shipment.booked" },
    });
    await t.settle();
    const fresh = listed(
      AlertAnswer,
      await t.call("GET", "/business/courier/alerts", { key }),
      "alerts",
    );
    assert.equal(fresh.length, 2);
    assert.equal(fresh[0].waybill, null);
    assert.equal(fresh[1].last_action.to, undefined, "to only on an assignment");

    const path = (id: string) => `/business/courier/alerts/${id}`;
    documented(AlertDetailAnswer, await t.call("GET", path(noScan.id), { key }), 200, "alert");
    const assigned = documented(
      AlertDetailAnswer,
      await t.call("POST", `${path(noScan.id)}/assign`, { key, body: { to: "Neo (depot)" } }),
      200,
      "assign",
    );
    assert.equal(assigned.last_action.to, "Neo (depot)");
    documented(
      AlertDetailAnswer,
      await t.call("POST", `${path(noScan.id)}/acknowledge`, { key }),
      200,
      "acknowledge",
    );
    const resolved = documented(
      AlertDetailAnswer,
      await t.call("POST", `${path(noScan.id)}/resolve`, {
        key,
        body: { resolution: "scanned at depot", evidence: "scan log 77" },
      }),
      200,
      "resolve",
    );
    assert.equal(resolved.evidence_file, null);
    const form = new FormData();
    form.append("resolution", "endpoint fixed, event requeued");
    form.append("evidence_file", new File(["ticket 42"], "ticket.txt", { type: "text/plain" }));
    const withFile = documented(
      AlertDetailAnswer,
      await t.call("POST", `${path(billing.id)}/resolve`, { key, body: form }),
      200,
      "resolve with a file",
    );
    assert.equal(withFile.evidence_file.name, "ticket.txt");
    await t.settle();
    const done = listed(
      AlertAnswer,
      await t.call("GET", "/business/courier/alerts", { key }),
      "resolved",
    );
    assert.deepEqual(done.map((a) => a.status), ["resolved", "resolved"]);

    // ---- Claims: filed (and replayed), rejected, partly approved with its credit note.
    await grantScopes(t, courier, "claims:approve");
    const { waybill } = await bookShipment(t, client);
    const claim = {
      waybill,
      kind: "damage",
      amount: "25.00",
      description: "Crushed box, bottles broken",
      evidence: "photos/box-1.jpg",
      idempotency_key: "claim-1",
    };
    const fileClaim = (body: Record<string, unknown>) =>
      t.call("POST", "/business/courier/claims", { key, body });
    const filed = documented(ClaimAnswer, await fileClaim(claim), 201, "file a claim");
    assert.equal(filed.outcome, null);
    assert.equal(filed.credit_note, null);
    const replay = documented(ClaimAnswer, await fileClaim(claim), 200, "the same claim again");
    assert.deepEqual(replay, filed);
    const other = documented(
      ClaimAnswer,
      // A shipment has one claim: the second is on a shipment of its own.
      await fileClaim({
        waybill: (await bookShipment(t, client)).waybill,
        kind: "delay",
        amount: 5,
        description: "A day late",
      }),
      201,
      "a claim without evidence",
    );
    assert.equal(other.evidence, null);
    await t.settle();
    listed(ClaimAnswer, await t.call("GET", "/business/courier/claims", { key }), "filed claims");

    const decide = (id: string, body: Record<string, unknown>) =>
      t.call("POST", `/business/courier/claims/${id}/decide`, { key, body });
    const partly = documented(
      ClaimAnswer,
      await decide(filed.id, {
        outcome: "partly_approved",
        approved_amount: "10.50",
        reason: "one bottle",
      }),
      200,
      "partly approved",
    );
    assert.equal(partly.credit_note.state, "booked");
    const rejected = documented(
      ClaimAnswer,
      await decide(other.id, { outcome: "rejected", reason: "on time by the calendar" }),
      200,
      "rejected",
    );
    assert.equal(rejected.outcome.approved_amount, 0);
    assert.equal(rejected.credit_note, null);
    documented(
      ClaimAnswer,
      await t.call("GET", `/business/courier/claims/${filed.id}`, { key }),
      200,
      "one claim",
    );
    await t.settle();
    const decided = listed(
      ClaimAnswer,
      await t.call("GET", "/business/courier/claims", { key }),
      "decided",
    );
    assert.equal(decided.length, 2);
    const mine = listed(
      ClientClaimAnswer,
      await t.call("GET", "/client/claims", { headers: clientKey(client) }),
      "the client's claims",
    );
    assert.equal(mine.length, 2);
    assert.equal("filed_by" in mine[0], false, "no staff names for the client");
  }));

Deno.test("answers: the operations board, its views and report, and customer tracking", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const key = courier.business.api_key;
    const booked = await bookShipment(t, client, { client_order_reference: "ORD-1" });
    const { waybill } = booked;
    const open = await bookShipment(t, client);
    const token = booked.tracking_url.split("/").at(-1)!;
    const tracking = async (what: string) =>
      documented(TrackingAnswer, await t.call("GET", `/s/${token}`), 200, what);

    const start = await tracking("tracking, booked");
    assert.equal(start.last_verified, null);
    assert.equal(start.pod, null);
    assert.equal(start.delay, null);

    const scanned = (what: string, body: Record<string, unknown>) =>
      scan(t, courier, waybill, body).then((r) =>
        documented(ShipmentOperationsAnswer, r, 201, what)
      );
    const collected = await scanned("collected", { event: "collected", holder: "Driver Thabo" });
    assert.equal(collected.trail[0].pieces, null);
    await scanned("at the depot", {
      event: "received_at_depot",
      facility_id: "GBE-HUB",
      pieces: [`${waybill}-1`],
      note: "shelf 4",
    });
    const exception = await scanned("exception", { event: "exception", reason: "label torn" });
    assert.equal(exception.exception.reason, "label torn");
    await scanned("exception cleared", { event: "exception_cleared" });
    const verified = await tracking("tracking, scanned");
    assert.equal(verified.last_verified.place, "GBE-HUB");

    // Past the depot's dwell: late, with alerts on the shipment.
    await advance(t, 10 * HOUR);
    await until(t, async () => {
      await t.settle();
      const r = await t.call("GET", `/business/courier/alerts?kind=milestone_overdue`, { key });
      return r.body.data.some((a: { waybill: string }) => a.waybill === waybill);
    }, "overdue");
    const late = documented(
      ShipmentOperationsAnswer,
      await t.call("GET", "/business/courier/operations/ORD-1", { key }),
      200,
      "detail, late",
    );
    assert.ok(late.alerts.length > 0);
    assert.ok(late.obligations.length > 0);
    assert.match((await tracking("tracking, late")).delay, /delayed|late/);

    const board = await t.call("GET", "/business/courier/operations", { key });
    assert.equal(board.status, 200, JSON.stringify(board.body));
    assert.deepEqual(Object.keys(board.body.meta).sort(), [
      "by_health",
      "filters",
      "limit",
      "offset",
    ]);
    assert.equal(documentedData(z.array(OperationsRowAnswer), board, "board").length, 2);
    // meta.filters names the filters applied (BoardMeta): the page asked is meta's own.
    assert.deepEqual(board.body.meta.filters, {});
    const overdue = await t.call("GET", "/business/courier/operations?overdue=1&limit=5", { key });
    assert.deepEqual([overdue.body.meta.filters, overdue.body.meta.limit], [{ overdue: "1" }, 5]);

    for (
      const body of [
        { event: "out_for_delivery", holder: "Driver Thabo" },
        { event: "delivery_attempted", note: "nobody home" },
        { event: "out_for_delivery" },
        { event: "delivered", received_by: "Neo Kgosi" },
      ]
    ) {
      await scanned(body.event, body);
    }
    const delivered = documented(
      ShipmentOperationsAnswer,
      await t.call("GET", `/business/courier/operations/${waybill}`, { key }),
      200,
      "detail, delivered",
    );
    assert.equal(delivered.pod.received_by, "Neo Kgosi");
    assert.equal(delivered.closed, true);
    const end = await tracking("tracking, delivered");
    assert.equal(end.pod.received_by, "Neo Kgosi");
    assert.equal(end.expected_by, null);
    await t.settle();
    const closed = await t.call("GET", "/business/courier/operations?include_closed=1", { key });
    documentedData(z.array(OperationsRowAnswer), closed, "board with closed rows");

    // Saved views.
    const saved = documented(
      SavedViewAnswer,
      await t.call("POST", "/business/courier/operations/views", {
        key,
        body: { name: "late ones", filters: { health: "late", overdue: "1" } },
      }),
      201,
      "save a view",
    );
    const views = documented(
      z.array(SavedViewAnswer),
      await t.call("GET", "/business/courier/operations/views", { key }),
      200,
      "views",
    );
    assert.deepEqual(views, [saved]);
    documented(
      SavedViewDeletedAnswer,
      await t.call("DELETE", "/business/courier/operations/views/late%20ones", { key }),
      200,
      "delete a view",
    );

    // The report, with one shipment still open and alerts open and resolved.
    const report = documented(
      OperationsReportAnswer,
      await t.call("GET", "/business/courier/operations/report", { key }),
      200,
      "report",
    );
    assert.equal(report.open_shipments.total, 1, open.waybill);
    assert.ok(Object.keys(report.open_alerts.by_kind).length > 0);
  }));

Deno.test("answers: billing events, their endpoint, bodies, attempts and acknowledgements", async () => {
  const receiver = startReceiver();
  try {
    await withTestEnv(async (t) => {
      const [courier, client] = await ready(t, { redelivery_fee: 30 });
      const key = courier.business.api_key;
      const endpoint = documented(
        BillingEndpointAnswer,
        await t.call("GET", "/business/courier/billing/endpoint", { key }),
        200,
        "no endpoint",
      );
      assert.equal(endpoint.sends_to, null);

      // Booked with no endpoint anywhere: the event waits for one.
      const booked = await bookShipment(t, client);
      const charge = eventIdOf("billing", courier.business.id, client.id, booked.waybill);
      const event = (id: string) =>
        t.call("GET", `/business/courier/billing/events/${id}`, { key });
      await advance(t, 0);
      await until(
        t,
        async () => (await event(charge)).body.data?.endpoint_missing_at != null,
        "no endpoint",
      );
      const waiting = documented(BillingEventDetailAnswer, await event(charge), 200, "waiting");
      assert.equal(waiting.last_attempt, null, "finding no endpoint sends nothing");
      assert.equal(waiting.body.entry.reference, booked.waybill);
      const requeued = documented(
        BillingEventAnswer,
        await t.call("POST", `/business/courier/billing/events/${charge}/requeue`, {
          key,
          body: { reason: "endpoint coming" },
        }),
        200,
        "requeue",
      );
      assert.equal(requeued.requeues.length, 1);

      // An endpoint that fails once, then takes it.
      receiver.failFirst = 1;
      const set = documented(
        BillingEndpointSetAnswer,
        await t.call("PUT", "/business/courier/billing/endpoint", {
          key,
          body: { url: `${receiver.url}/billing` },
        }),
        200,
        "set the endpoint",
      );
      assert.equal(set.billing_endpoint_url, `${receiver.url}/billing`);
      await advance(t, 0);
      await until(
        t,
        async () => (await event(charge)).body.data.last_attempt?.result === "failed",
        "the failed attempt",
      );
      const failed = documented(BillingEventDetailAnswer, await event(charge), 200, "failed once");
      assert.equal(failed.last_attempt.http_status, 500);
      await advance(t, 60);
      await until(t, () => receiver.effects.has(charge), "the delivery");
      await until(
        t,
        async () => (await event(charge)).body.data.status === "delivered",
        "delivered",
      );
      const sent = documented(BillingEventDetailAnswer, await event(charge), 200, "delivered");
      assert.deepEqual(sent.attempts.map((a: { result: string }) => a.result).slice(-2), [
        "failed",
        "delivered",
      ]);
      documented(
        BillingEndpointAnswer,
        await t.call("GET", "/business/courier/billing/endpoint", { key }),
        200,
        "an endpoint",
      );

      const ack = (body: Record<string, unknown>) =>
        t.call("POST", `/business/courier/billing/events/${charge}/acknowledge`, { key, body });
      const first = documented(
        BillingEventAcknowledgedAnswer,
        await ack({ state: "acknowledged" }),
        200,
        "acknowledged with no reference",
      );
      assert.equal(first.external_reference, null);
      const invoiced = documented(
        BillingEventAcknowledgedAnswer,
        await ack({ state: "invoiced_externally", external_reference: "INV-1" }),
        200,
        "invoiced",
      );
      assert.deepEqual(invoiced.external_references, { invoiced_externally: "INV-1" });

      // A delivery after a failed attempt: a redelivery charge, then the completion event.
      for (
        const body of [
          { event: "collected" },
          { event: "out_for_delivery" },
          { event: "delivery_attempted", note: "nobody home" },
          { event: "out_for_delivery" },
          { event: "delivered", received_by: "Neo Kgosi" },
        ]
      ) {
        const r = await scan(t, courier, booked.waybill, body);
        assert.equal(r.status, 201, JSON.stringify(r.body));
        await t.settle(); // the redelivery's entry on the query side before the completion
      }
      const completion = eventIdOf(
        "billing.completion",
        courier.business.id,
        booked.waybill,
        "shipment.delivered",
      );
      await until(t, async () => (await event(completion)).status === 200, "the completion");
      const done = documented(BillingEventDetailAnswer, await event(completion), 200, "completion");
      assert.equal(done.client_id, client.id, "the completed shipment's client (courier 4.3)");
      assert.equal(done.body.shipment.pod, true);
      assert.equal(done.body.shipment.adjustments[0].kind, "redelivery");
      assert.equal(typeof done.body.shipment.adjustments[0].amount, "string", "decimal text");

      await t.settle();
      const outbox = listed(
        BillingEventAnswer,
        await t.call("GET", "/business/courier/billing/events", { key }),
        "the outbox",
      );
      assert.ok(outbox.length >= 3, "the booking, the redelivery, the completion");

      const cleared = documented(
        BillingEndpointSetAnswer,
        await t.call("PUT", "/business/courier/billing/endpoint", { key, body: { url: null } }),
        200,
        "clear the endpoint",
      );
      assert.equal(cleared.billing_endpoint_url, null);
    });
  } finally {
    await receiver.close();
  }
});
