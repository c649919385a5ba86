/** Completion events' adjustments: the shipment's later charges and notes, their bounds, charges awaiting a rate, and a completion waiting for the ledger (courier 3.1, 2.6); the completion itself and its sweep are in billing_completions_test.ts. */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { outboundEventActor } from "../../../actors/platform/outbound_event/mod.ts";
import { RetriesExhausted } from "../../../src/bus/retry.ts";
import { eventIdOf } from "../../../src/courier/rules/billing_events.ts";
import { COMPLETION_ADJUSTMENTS_MAX, NOTE_ADJUSTMENTS_MAX } from "../../../src/limits.ts";
import { LedgerCatchingUp, SWEEP_AFTER_MS } from "../../../src/courier/reactors/billing_events.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  bookWaybill,
  type Courier,
  newClient,
  newCourier,
  postCharge,
} from "../../helpers/courier.ts";
import { startReceiver, until } from "../../helpers/receiver.ts";
import { verifyV3 } from "../../../src/domain/signature_verification.ts";
import {
  completionBody,
  completionId,
  creations,
  laggingLedger,
  ready,
  record,
  reporting,
} from "./billing_completions_fixtures.ts";

/**
 * Once what was posted reached the query side, collects and delivers the shipment by scans;
 * answers its completion event's adjustments.
 */
async function deliveredAdjustments(
  t: TestEnv,
  courier: Courier,
  waybill: string,
): Promise<{ reference: string; amount: string; currency: string; status: string }[]> {
  const key = courier.business.api_key;
  // What is listed, not when: a query side behind the account has tests of its own below.
  await t.settle();
  for (const body of [{ event: "collected", holder: "D" }, { event: "delivered" }]) {
    const r = await t.call("POST", `/business/courier/shipments/${waybill}/scans`, { key, body });
    assert.equal(r.status, 201, JSON.stringify(r.body));
  }
  await t.env.settle();
  const id = eventIdOf("billing.completion", courier.business.id, waybill, "shipment.delivered");
  const got = await t.env.runtime.ask(outboundEventActor, courier.business.id, id, {
    kind: "get",
  });
  assert.ok(got.ok && got.reply, `the completion event of ${waybill}`);
  return JSON.parse(got.reply.raw_body).shipment.adjustments;
}

Deno.test("completion events: the adjustments are the shipment's later charges and notes, never cash remitted", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const key = courier.business.api_key;
    const client = await newClient(t, courier, { settlement_mode: "external" });
    const waybill = await bookWaybill(t, client);
    const collected = await t.call("POST", `/business/courier/shipments/${waybill}/cod-collected`, {
      key,
      body: { amount: 150, currency: "BWP" },
    });
    assert.equal(collected.status, 201, JSON.stringify(collected.body));
    const remitted = await t.call(
      "POST",
      `/business/courier/clients/${client.id}/billing/cod-remitted`,
      { key, body: { waybill, evidence: "remittance slip 7" } },
    );
    assert.equal(remitted.status, 201, JSON.stringify(remitted.body));
    await t.settle(); // a note finds its entry on the query side
    const note = await t.call("POST", `/business/courier/clients/${client.id}/billing/correct`, {
      key,
      body: { entry_reference: waybill, amount: "-8.92", reason: "goodwill", reference: "CN-1" },
    });
    assert.equal(note.status, 201, JSON.stringify(note.body));
    // spec: courier 2.7: adjustments are what changed the shipment's bill (later charges and
    // debit or credit notes); the cash collected on delivery and remitted is the client's money,
    // sent as its own `cod.remitted` event, never a cut in the shipment's price.
    const adjustments = await deliveredAdjustments(t, courier, waybill);
    assert.deepEqual(
      adjustments.map((a) => [a.reference, a.amount]),
      [["CN-1", "-8.92"]],
    );
  }));

Deno.test("completion events: notes on a shipment stop at their bound, so its completion lists every adjustment; charges from its work still book", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const key = courier.business.api_key;
    const client = await newClient(t, courier, { settlement_mode: "external" });
    const waybill = await bookWaybill(t, client);
    // Charges its work booked (courier 2.6 rule 3), one short of the bound notes may join.
    for (let i = 0; i < NOTE_ADJUSTMENTS_MAX - 1; i++) {
      await postCharge(t, courier, client, { reference: `ADM-${i}`, shipment: waybill });
    }
    await t.settle();
    const note = (reference: string) =>
      t.call("POST", `/business/courier/clients/${client.id}/billing/correct`, {
        key,
        body: { entry_reference: "ADM-0", amount: "-1.00", reason: "goodwill", reference },
      });
    // Sent together: the second is judged with the first, which the statement does not hold yet.
    const [first, second] = await Promise.all([note("CN-1"), note("CN-2")]);
    assert.deepEqual([first.status, second.status].sort(), [201, 422], JSON.stringify(second.body));
    await t.settle();
    const refused = await note("CN-3");
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.equal(refused.body.code, "adjustments_limit");
    assert.match(refused.body.message, new RegExp(waybill));
    // spec: courier 2.7: the completion lists them all; a charge the work causes is never refused.
    await postCharge(t, courier, client, { reference: "ADM-LAST", shipment: waybill });
    const adjustments = await deliveredAdjustments(t, courier, waybill);
    assert.equal(adjustments.length, NOTE_ADJUSTMENTS_MAX + 1);
    assert.equal(adjustments.filter((a) => a.reference.startsWith("CN-")).length, 1);
    assert.equal(adjustments.at(-1)?.reference, "ADM-LAST");
    assert.ok(NOTE_ADJUSTMENTS_MAX < COMPLETION_ADJUSTMENTS_MAX, "room for the work's charges");
  }));

Deno.test("completion events: a shipment whose work alone booked past the bound is listed to it and reported, never cut short unseen", () =>
  withTestEnv(async (t) => {
    const b = await ready(t);
    const { billing, errors } = reporting(t);
    try {
      for (let i = 0; i <= COMPLETION_ADJUSTMENTS_MAX; i++) {
        await postCharge(t, b.courier, b.client, { reference: `ADM-${i}`, shipment: b.waybill });
      }
      await t.settle();
      await record(t, b, ["out_for_delivery", "delivered"]);
      await t.env.bus.flush();
      const body = await completionBody(t, b);
      assert.equal(body?.shipment.adjustments.length, COMPLETION_ADJUSTMENTS_MAX);
      assert.deepEqual(errors.map((e) => (e as Error).message), [
        `${b.waybill} has more than ${COMPLETION_ADJUSTMENTS_MAX} adjustments; its ` +
        `shipment.delivered lists the first ${COMPLETION_ADJUSTMENTS_MAX}`,
      ]);
    } finally {
      await billing.close();
    }
  }));

Deno.test("completion events: a charge still awaiting its rate is listed as unresolved_fx, the others with their status", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier, { settlement_mode: "external" });
    const waybill = await bookWaybill(t, client);
    // spec: courier 2.6 rule 4: duties in another currency with no rate yet: not owed, not
    // converted one to one; a receiver adding the adjustments must be able to tell.
    await postCharge(t, courier, client, {
      reference: "DUT-Z1",
      entry_kind: "duties",
      amount_minor: 10_000,
      currency: "ZAR",
      source_event: "customs.duties:xing_z1",
      evidence_path: "evidence/duty-receipt.pdf",
      shipment: waybill,
      recoverable: true,
    });
    await postCharge(t, courier, client, {
      reference: "ADM-Z1",
      source_event: "customs.cleared:xing_z1",
      shipment: waybill,
    });
    const adjustments = await deliveredAdjustments(t, courier, waybill);
    assert.deepEqual(
      adjustments.map((
        a: { reference: string; amount: string; currency: string; status: string },
      ) => [a.reference, a.amount, a.currency, a.status]),
      [["DUT-Z1", "100.00", "ZAR", "unresolved_fx"], ["ADM-Z1", "75.00", "BWP", "external"]],
    );
  }));

/**
 * A waiting charge (`reference`) booked on the shipment while the ledger projection is held,
 * then the shipment delivered, with billing events of the test's own that report their errors.
 */
async function deliveredBehindLedger(t: TestEnv, reference: string) {
  const b = await ready(t);
  const ledger = await laggingLedger(t);
  const { billing, errors } = reporting(t);
  ledger.hold();
  await postCharge(t, b.courier, b.client, {
    reference,
    entry_kind: "waiting",
    amount_minor: 3_000,
    reason: "waiting at the sender",
    source_event: `run.waiting:stop_${reference}`,
    shipment: b.waybill,
  });
  await record(t, b, ["out_for_delivery", "delivered"]);
  await t.env.bus.flush();
  return { b, ledger, errors, billing };
}

Deno.test("completion events: a later charge the account booked before the delivery is listed, though the query side does not hold it yet", () =>
  withTestEnv(async (t) => {
    const { b, ledger, errors, billing } = await deliveredBehindLedger(t, "WAIT-L1");
    try {
      // spec: courier 6.1: the completion is sent once: made now, it would never list the
      // charge the account booked before it (courier 2.7 adjustments).
      assert.equal(await completionBody(t, b), null, "not made without the charge");
      assert.equal(errors.length, 1, "the wait outlasting the retries is reported");
      assert.ok(errors[0] instanceof RetriesExhausted);
      assert.ok(errors[0].cause instanceof LedgerCatchingUp);

      // The query side catches up: the completion is made (here by the sweep) with the charge.
      await ledger.release();
      const closedAt = t.clock.now();
      assert.equal(await billing.sweepCompletions(t.env.db, closedAt + SWEEP_AFTER_MS + 1), 1);
      const body = await completionBody(t, b);
      assert.deepEqual(body?.shipment.adjustments.map((a) => a.reference), ["WAIT-L1"]);
      assert.equal(await creations(t, completionId(b)), 1);
    } finally {
      await billing.close();
      await ledger.stop();
    }
  }));

Deno.test("completion events: a later charge parked on the query side holds the completion until it goes in, though later entries were written", () =>
  withTestEnv(async (t) => {
    const b = await ready(t);
    const { billing, errors } = reporting(t);
    const poison = (how: "add" | "drop") =>
      (how === "add"
        ? sql`alter table ledger_entries add constraint poison check (reference <> 'WAIT-P1')`
        : sql`alter table ledger_entries drop constraint poison`).execute(t.env.db);
    try {
      // The charge cannot be written to Postgres for a while (parked_changes.ts); the
      // account's next entry is, and moves its watermark past the charge.
      await poison("add");
      await postCharge(t, b.courier, b.client, {
        reference: "WAIT-P1",
        entry_kind: "waiting",
        amount_minor: 3_000,
        reason: "waiting at the sender",
        source_event: "run.waiting:stop_p1",
        shipment: b.waybill,
      });
      await postCharge(t, b.courier, b.client, { reference: "ADM-P2" });
      await t.settle();
      await record(t, b, ["out_for_delivery", "delivered"]);
      await t.env.bus.flush();
      // spec: courier 2.7, 6.1: sent once, so never without an adjustment booked before it.
      assert.equal(await completionBody(t, b), null, "not made without the parked charge");
      assert.ok(errors.length > 0 && (errors[0] as Error).cause instanceof LedgerCatchingUp);

      await poison("drop");
      assert.equal(await t.projections["ledger"]!.retryParked(), 1);
      const closedAt = t.clock.now();
      assert.equal(await billing.sweepCompletions(t.env.db, closedAt + SWEEP_AFTER_MS + 1), 1);
      const body = await completionBody(t, b);
      assert.deepEqual(body?.shipment.adjustments.map((a) => a.reference), ["WAIT-P1"]);
    } finally {
      await billing.close();
    }
  }));

Deno.test("completion events: on an account booking all the while, the completion waits for what it had booked when first tried, not for what it books meanwhile", () =>
  withTestEnv(async (t) => {
    const { b, ledger, errors, billing } = await deliveredBehindLedger(t, "WAIT-B1");
    try {
      assert.equal(errors.length, 1, "tried while the charge was not on the query side");
      // The account books on; the query side gets as far as the charge, not further.
      await postCharge(t, b.courier, b.client, { reference: "ADM-B2" });
      await ledger.release(1);

      const closedAt = t.clock.now();
      assert.equal(await billing.sweepCompletions(t.env.db, closedAt + SWEEP_AFTER_MS + 1), 1);
      const body = await completionBody(t, b);
      assert.deepEqual(body?.shipment.adjustments.map((a) => a.reference), ["WAIT-B1"]);
    } finally {
      await billing.close();
      await ledger.release();
      await ledger.stop();
    }
  }));

Deno.test("completion events: the completing scan's own charge is listed once, without waiting for the query side", () =>
  withTestEnv(async (t) => {
    const b = await ready(t, { redelivery_fee: 25 });
    const ledger = await laggingLedger(t);
    const { billing, errors } = reporting(t);
    try {
      ledger.hold();
      // Out again after a failed attempt: the delivery's own charge is the redelivery (2.6 rule 3).
      await record(t, b, [
        "out_for_delivery",
        "delivery_attempted",
        "out_for_delivery",
        "delivered",
      ]);
      await t.env.bus.flush();
      assert.deepEqual(errors, []);
      const body = await completionBody(t, b);
      assert.deepEqual(
        body?.shipment.adjustments.map((a) => [a.reference, a.kind]),
        [[`RDL-${b.waybill}-1`, "redelivery"]],
      );
    } finally {
      await billing.close();
      await ledger.release();
      await ledger.stop();
    }
  }));

Deno.test("completion events: a charge booked after the completion is not in it; it is sent as its own event", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier, { settlement_mode: "external" });
    const waybill = await bookWaybill(t, client);
    assert.deepEqual(await deliveredAdjustments(t, courier, waybill), []);
    await postCharge(t, courier, client, { reference: "ADM-LATE", shipment: waybill });
    await t.env.settle();
    const tenant = courier.business.id;
    const completion = eventIdOf("billing.completion", tenant, waybill, "shipment.delivered");
    const got = await t.env.runtime.ask(outboundEventActor, tenant, completion, { kind: "get" });
    assert.ok(got.ok && got.reply);
    assert.deepEqual(JSON.parse(got.reply.raw_body).shipment.adjustments, [], "sent once, as made");
    // spec: courier 6.1: one event per charge: the late one is reported on its own.
    const row = await t.env.db.selectFrom("ledger_entries").select("event_id")
      .where("tenant", "=", tenant)
      .where("client_id", "=", client.id)
      .where("reference", "=", "ADM-LATE")
      .executeTakeFirstOrThrow();
    assert.ok(row.event_id);
    const charge = await t.env.runtime.ask(outboundEventActor, tenant, row.event_id, {
      kind: "get",
    });
    assert.ok(charge.ok && charge.reply, "the charge's own event");
    const body = JSON.parse(charge.reply.raw_body);
    assert.equal(body.event_type, "customs.cleared:ADM-LATE");
    assert.equal(body.entry.reference, "ADM-LATE");
    assert.equal(body.shipment.waybill, waybill);
  }));

Deno.test("completion events: a completion over 32 KiB (30 charges with long reasons) is made, sent byte for byte and signed", () =>
  withTestEnv(async (t) => {
    const receiver = startReceiver();
    try {
      const courier = await newCourier(t);
      const key = courier.business.api_key;
      const endpoint = await t.call("PUT", "/business/courier/billing/endpoint", {
        key,
        body: { url: `${receiver.url}/billing` },
      });
      assert.equal(endpoint.status, 200, JSON.stringify(endpoint.body));
      const client = await newClient(t, courier, { settlement_mode: "external" });
      const waybill = await bookWaybill(t, client);
      // Each reason is within the ledger's bound (500 characters); 2 bytes each in UTF-8.
      const reason = "é".repeat(500);
      for (let i = 0; i < 30; i++) {
        await postCharge(t, courier, client, { reference: `ADM-${i}`, shipment: waybill, reason });
      }
      const adjustments = await deliveredAdjustments(t, courier, waybill);
      // spec: courier 2.7: every adjustment, whole; 6.1: the completion is sent once.
      assert.equal(adjustments.length, 30);
      const tenant = courier.business.id;
      const id = eventIdOf("billing.completion", tenant, waybill, "shipment.delivered");
      const got = await t.env.runtime.ask(outboundEventActor, tenant, id, { kind: "get" });
      assert.ok(got.ok && got.reply);
      const raw = got.reply.raw_body;
      assert.ok(new TextEncoder().encode(raw).length > 32_768, "larger than 32 KiB");
      await until(t, () => receiver.effects.has(id), "the completion's delivery");
      const sent = receiver.deliveries.filter((d) => d.headers.get("X-Service-Event-Id") === id);
      assert.equal(sent.length, 1);
      assert.equal(sent[0]!.body, raw, "the stored bytes, as made");
      const verdict = await verifyV3({
        secrets: { [sent[0]!.headers.get("X-Service-Key-Id")!]: courier.business.webhook_secret },
        rawBody: sent[0]!.body,
        headers: sent[0]!.headers,
        nowSeconds: Math.floor(t.clock.now() / 1000),
      });
      assert.deepEqual(verdict, { ok: true });
      const body = JSON.parse(sent[0]!.body);
      assert.deepEqual(
        body.shipment.adjustments.map((a: { reason: string }) => a.reason),
        Array(30).fill(reason),
      );
      // Recorded after the receiver answered: waited for, not raced.
      await until(t, async () => {
        const after = await t.env.runtime.ask(outboundEventActor, tenant, id, { kind: "get" });
        return after.ok && after.reply?.status === "delivered";
      }, "the completion recorded delivered");
    } finally {
      await receiver.close();
    }
  }));
