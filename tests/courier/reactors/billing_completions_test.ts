/**
 * Completion billing events (courier 6.1 `shipment.delivered`, `.returned`, `.cancelled`: one per
 * completed shipment, each sent once) are not lost to a failure: one that fails for a moment is
 * made again within the bus delivery (so before the change's recovery marker goes); one that
 * keeps failing is reported without holding the flush, and made by the completion sweep from the
 * query side once the failure is over, once however often the sweep runs. Nor is a charge or note
 * the account booked before the completion left out of it (courier 2.7 adjustments) because the
 * query side had not caught up: the event waits for it.
 */
import assert from "node:assert/strict";
import { courierClientActor } from "../../../actors/courier/courier_client.ts";
import { outboundEventActor } from "../../../actors/platform/outbound_event/mod.ts";
import { shipmentActor } from "../../../actors/courier/shipment/mod.ts";
import { RetriesExhausted } from "../../../src/bus/retry.ts";
import { upsertSnapshots } from "../../../src/db/projection.ts";
import { eventIdOf } from "../../../src/courier/rules/billing_events.ts";
import { COMPLETION_SWEEP_PAGE_MAX } from "../../../src/limits.ts";
import { BillingEvents, SWEEP_AFTER_MS } from "../../../src/courier/reactors/billing_events.ts";
import { COURIER_READ_TABLES } from "../../../src/courier/queries/read_tables.ts";
import { writeReadTables } from "../../../src/db/read_tables.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { bookWaybill, newClient, newCourier, topUp } from "../../helpers/courier.ts";
import { flakyRuntime } from "../../helpers/faults.ts";
import {
  completionId,
  creations,
  isCompletionCreate,
  NO_WAIT,
  ready,
  record,
  reporting,
} from "./billing_completions_fixtures.ts";

Deno.test("completion events: a completion whose event fails to commit once is made in the delivery, once", () =>
  withTestEnv(async (t) => {
    const b = await ready(t);
    const flaky = flakyRuntime(t.env.runtime, {
      fails: (type, command) => type === outboundEventActor.type && isCompletionCreate(command),
    });
    const { billing, errors } = reporting(t, flaky.runtime);
    try {
      await record(t, b, ["out_for_delivery", "delivered"]);
      await t.env.bus.flush();
      assert.equal(flaky.failed(), 1, "the first try failed");
      assert.deepEqual(errors, []);
      assert.equal(await creations(t, completionId(b)), 1);
    } finally {
      await billing.close();
    }
  }));

Deno.test("completion events: a client read refused once (a busy account) no longer skips the completion", () =>
  withTestEnv(async (t) => {
    const b = await ready(t);
    const flaky = flakyRuntime(t.env.runtime, {
      fails: (type) => type === courierClientActor.type,
      refuse: true,
    });
    const billing = new BillingEvents({
      runtime: flaky.runtime,
      bus: t.env.bus,
      db: t.env.db,
      retry: NO_WAIT,
    });
    try {
      await record(t, b, ["out_for_delivery", "delivered"]);
      await t.env.bus.flush();
      assert.equal(flaky.failed(), 1);
      assert.equal(await creations(t, completionId(b)), 1);
    } finally {
      await billing.close();
    }
  }));

Deno.test("completion events: one that keeps failing is reported, then made by the sweep once", () =>
  withTestEnv(async (t) => {
    const b = await ready(t);
    const eventId = completionId(b);
    const flaky = flakyRuntime(t.env.runtime, {
      fails: (type, command) => type === outboundEventActor.type && isCompletionCreate(command),
      times: Infinity,
    });
    const errors: [unknown, string][] = [];
    const broken = new BillingEvents({
      runtime: flaky.runtime,
      bus: t.env.bus,
      db: t.env.db,
      retry: NO_WAIT,
      onError: (e, where) => errors.push([e, where]),
    });
    await record(t, b, ["out_for_delivery", "delivered"]);
    await t.settle(); // the flush is not held for ever
    await broken.close();
    assert.equal(flaky.failed(), 4, "one try and one per wait");
    assert.equal(errors.length, 1);
    assert.ok(errors[0]![0] instanceof RetriesExhausted);
    assert.equal(errors[0]![1], `completion event of ${b.waybill}`);
    assert.equal(await creations(t, eventId), 0);

    // The failure is over: the sweep finds the shipment without its event.
    const billing = new BillingEvents({ runtime: t.env.runtime, bus: t.env.bus, db: t.env.db });
    try {
      const closedAt = t.clock.now();
      assert.equal(
        await billing.sweepCompletions(t.env.db, closedAt + 1_000),
        0,
        "just closed: the bus handler's to make",
      );
      assert.equal(await billing.sweepCompletions(t.env.db, closedAt + SWEEP_AFTER_MS + 1), 1);
      assert.equal(await creations(t, eventId), 1);
      await t.settle();
      assert.equal(await billing.sweepCompletions(t.env.db, closedAt + SWEEP_AFTER_MS + 2), 0);
      assert.equal(await creations(t, eventId), 1);
      const got = await t.env.runtime.ask(outboundEventActor, b.courier.business.id, eventId, {
        kind: "get",
      });
      assert.ok(got.ok && got.reply);
      const body = JSON.parse(got.reply.raw_body);
      assert.equal(body.event_type, "shipment.delivered");
      assert.equal(body.shipment.waybill, b.waybill);
      assert.equal(body.shipment.pod, true);
    } finally {
      await billing.close();
    }
  }));

Deno.test("completion sweep: pages through the closed shipments in closing order and finds the one missing", () =>
  withTestEnv(async (t) => {
    const b = await ready(t);
    await record(t, b, ["out_for_delivery", "delivered"]);
    await t.settle();
    const shipment = await t.env.db.selectFrom("snapshots").select("data")
      .where("type", "=", shipmentActor.type)
      .where("id", "=", b.waybill)
      .executeTakeFirstOrThrow();
    const data = shipment.data as { closed_at: number };
    // More closed shipments than a page: all but one with their event on the query side.
    const count = COMPLETION_SWEEP_PAGE_MAX + 100;
    const missing = `WB-SWEEP-${COMPLETION_SWEEP_PAGE_MAX + 50}`;
    const waybills = Array.from({ length: count }, (_, i) => `WB-SWEEP-${i}`);
    const tenant = b.courier.business.id;
    const closed = waybills.map((w, i) => ({
      type: shipmentActor.type,
      id: w,
      tenant,
      version: 1,
      data: { ...data, waybill: w, closed_at: data.closed_at - count + i },
    }));
    await upsertSnapshots(t.env.db, closed);
    // And their rows of the read tables (migration 0016), as the projections write both.
    await writeReadTables(
      t.env.db,
      new Map(COURIER_READ_TABLES.map((r) => [r.actorType, r])),
      closed.map((c) => ({ ...c, env: "live", events: [], snapshot: c.data })),
    );
    await upsertSnapshots(
      t.env.db,
      [b.waybill, ...waybills].filter((w) => w !== missing).map((w) => ({
        type: outboundEventActor.type,
        id: completionId(b, w),
        tenant,
        version: 1,
        data: {},
      })),
    );
    const billing = new BillingEvents({ runtime: t.env.runtime, bus: t.env.bus, db: t.env.db });
    try {
      const now = data.closed_at + SWEEP_AFTER_MS + 1;
      assert.equal(await billing.sweepCompletions(t.env.db, now), 1);
      assert.equal(await creations(t, completionId(b, missing)), 1);
      await t.settle();
      assert.equal(await billing.sweepCompletions(t.env.db, now), 0);
      assert.equal(await creations(t, completionId(b, missing)), 1);
    } finally {
      await billing.close();
    }
  }));

Deno.test("completion events: pod is true only when the delivery names who received it", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const podOf = async (delivered: Record<string, unknown>) => {
      const waybill = await bookWaybill(t, client);
      for (const body of [{ event: "collected", holder: "D" }, delivered]) {
        const r = await t.call("POST", `/business/courier/shipments/${waybill}/scans`, {
          key: courier.business.api_key,
          body,
        });
        assert.equal(r.status, 201, JSON.stringify(r.body));
      }
      await t.env.settle();
      const id = eventIdOf(
        "billing.completion",
        courier.business.id,
        waybill,
        "shipment.delivered",
      );
      const got = await t.env.runtime.ask(outboundEventActor, courier.business.id, id, {
        kind: "get",
      });
      assert.ok(got.ok && got.reply, `the completion event of ${waybill}`);
      return JSON.parse(got.reply.raw_body).shipment.pod;
    };
    // spec: courier 6.1 "shipment.delivered (with POD)": a bare delivery scan proves nothing.
    assert.equal(await podOf({ event: "delivered" }), false);
    assert.equal(await podOf({ event: "delivered", note: "left at the gate" }), false);
    assert.equal(await podOf({ event: "delivered", received_by: "Mpho" }), true);
  }));
