/**
 * Billing events end to end (courier 2.7, 3.1, 4.3, 6.1): a booking's charge goes to the
 * courier's billing endpoint as a V3-signed event that a real receiver verifies; failures are
 * retried on the manual clock; the courier's system acknowledges forward only; notes, resolutions
 * and the sweep after a crash. Without an endpoint: billing_endpoint_alerts_test.ts; the CSV
 * export: billing_export_test.ts.
 */
import assert from "node:assert/strict";
import { courierClientActor } from "../../../actors/courier/courier_client.ts";
import { entryAsk } from "../../../actors/courier/client_ledger.ts";
import { outboundEventActor } from "../../../actors/platform/outbound_event/mod.ts";
import { eventIdOf } from "../../../src/courier/rules/billing_events.ts";
import { entryOf } from "../../../src/courier/rules/ledger.ts";
import {
  BillingEvents,
  chargeEventIdOf,
  SWEEP_AFTER_MS,
} from "../../../src/courier/reactors/billing_events.ts";
import { SWEEP_DEEP_EVERY_MS } from "../../../src/limits.ts";
import { verifyV3 } from "../../../src/domain/signature_verification.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  billingCsv,
  billingCsvRows,
  bookWaybill,
  type Client,
  type Courier,
  newClient,
  newCourier,
  postCharge,
  topUp,
} from "../../helpers/courier.ts";
import { advance, until, untilRecorded } from "../../helpers/receiver.ts";
import { bookedEvent, setEndpoint, withReceiver } from "./billing_events_fixtures.ts";
import { commandKind, flakyRuntime } from "../../helpers/faults.ts";
import { outboxRetryDue } from "../../helpers/outbox_retry.ts";

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

Deno.test("billing events: a charge whose shipment read meets a busy actor is made by the retry with the shipment's references, never without them", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    await t.env.reactors["billing_events"]!.close();
    // The charge's handling reads the shipment while its mailbox is full.
    const busy = flakyRuntime(t.env.runtime, {
      fails: commandKind("get", "shipment"),
      refuse: true,
    });
    const billing = new BillingEvents({ runtime: busy.runtime, bus: t.env.bus, db: t.env.db });
    try {
      const waybill = await bookWaybill(t, client, { external_billing_reference: "EBR-9" });
      await t.env.runtime.outboxesIdle();
      // A later charge on the shipment: its event reads the shipment's references.
      await postCharge(t, courier, client, { reference: "ADM-9", shipment: waybill });
      await t.env.runtime.outboxesIdle();
      assert.equal(busy.failed(), 1);
      outboxRetryDue(t.clock);
      await t.env.runtime.sweepOutboxes();
      await t.env.runtime.outboxesIdle();
      const eventId = await eventIdOf("billing", courier.business.id, client.id, "ADM-9");
      const got = await t.env.runtime.read(outboundEventActor, courier.business.id, eventId, {
        kind: "get",
      });
      assert.ok(got.ok && got.reply, JSON.stringify(got));
      // spec: courier 2.7: a charge event carries the shipment's references.
      const body = JSON.parse(got.reply.raw_body);
      assert.equal(body.shipment?.external_billing_reference, "EBR-9");
    } finally {
      await billing.close();
    }
  }));
