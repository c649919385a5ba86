import assert from "node:assert/strict";
import {
  outboundEventActor,
  type OutboundEventCommand,
  type OutboundEventState,
  summaryOf,
} from "../../../actors/platform/outbound_event/mod.ts";
import { eventIdOf } from "../../../src/courier/rules/billing_events.ts";
import { exportedLookup, outboundAlerts } from "../../../src/courier/reactors/delivery_alerts.ts";
import { ATTEMPTS_MAX, REQUEUES_MAX } from "../../../src/platform/rules/delivery_schedule.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  billingCsv,
  bookWaybill,
  type Courier,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";
import { advance, startReceiver, until } from "../../helpers/receiver.ts";

Deno.test("alerting: entries asked about at once are each answered whether they went out in an export", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const [a, b] = [await newClient(t, courier), await newClient(t, courier)];
    await topUp(t, courier, a, "500");
    await topUp(t, courier, b, "500");
    const wa = await bookWaybill(t, a);
    const wb = await bookWaybill(t, b);
    await t.settle();
    // Only the first client's entries go out.
    await billingCsv(t, courier, "POST", `client_id=${a.id}`);
    const exported = exportedLookup(t.env.db);
    const tenant = courier.business.id;
    const answers = await Promise.all([
      exported({ tenant, client_id: a.id, reference: wa }),
      exported({ tenant, client_id: a.id, reference: wa, kind: "shipment" }),
      exported({ tenant, client_id: a.id, reference: wa, kind: "waiting" }),
      exported({ tenant, client_id: b.id, reference: wb }),
      exported({ tenant, client_id: b.id, reference: wa }),
      exported({ tenant: "biz_other", client_id: a.id, reference: wa }),
    ]);
    assert.deepEqual(answers, [true, true, false, false, false, false]);
  }));

Deno.test("alerting: a requeued billing event that fails again alerts again, however often it was requeued", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const tenant = courier.business.id;
    const key = courier.business.api_key;
    const ctx = { now: t.clock.now(), newId: (p: string) => `${p}_x` };
    let state: OutboundEventState = null;
    const apply = (command: OutboundEventCommand) => {
      const r = outboundEventActor.decide(state, command, ctx);
      assert.ok(r.ok, JSON.stringify(r));
      for (const e of r.events) state = outboundEventActor.evolve(state, e);
    };
    const failSchedule = () => {
      for (let i = 0; i < ATTEMPTS_MAX; i++) {
        ctx.now += 12 * 60 * 60_000;
        apply({
          kind: "record_attempt",
          attempt_id: `att_${ctx.now}`,
          outcome: { result: "failed", http_status: 500, error: null },
        });
      }
      assert.equal(state?.status, "failed");
    };
    apply({
      kind: "create",
      event: {
        event_id: "evt_requeued_often",
        stream: "billing",
        event_type: "shipment.booked",
        raw_body: "{}",
        recipient: { kind: "courier" },
      },
    });
    const alerts = outboundAlerts(t.env.runtime, t.env.db);
    const raised = async () => {
      await t.settle();
      const r = await t.call("GET", "/business/courier/alerts?kind=billing_export_failed", { key });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.data.length as number;
    };
    failSchedule();
    await alerts.onFailed!(tenant, summaryOf(state!));
    // spec: courier 3.1: each time the schedule fails, operations is alerted; a requeue makes
    // the next failure a condition of its own, past the requeues the event's history keeps too.
    for (let requeue = 1; requeue <= REQUEUES_MAX + 2; requeue++) {
      apply({ kind: "requeue", reason: `try ${requeue}`, by: "ops" });
      failSchedule();
      await alerts.onFailed!(tenant, summaryOf(state!));
    }
    assert.equal(await raised(), REQUEUES_MAX + 3);
  }));

Deno.test("alerting: billing_endpoint_missing once per waiting spell: again only after it was resolved and an hourly retry still finds no endpoint", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const tenant = courier.business.id;
    const key = courier.business.api_key;
    const ctx = { now: t.clock.now(), newId: (p: string) => `${p}_x` };
    let state: OutboundEventState = null;
    const apply = (command: OutboundEventCommand) => {
      const r = outboundEventActor.decide(state, command, ctx);
      assert.ok(r.ok, JSON.stringify(r));
      for (const e of r.events) state = outboundEventActor.evolve(state, e);
    };
    const hourlyRetry = () => {
      ctx.now += 60 * 60_000;
      t.clock.advanceBy(60 * 60_000);
      apply({ kind: "endpoint_missing", due_at: ctx.now });
      return summaryOf(state!);
    };
    apply({
      kind: "create",
      event: {
        event_id: "evt_waits_long",
        stream: "billing",
        event_type: "shipment.booked",
        raw_body: "{}",
        recipient: { kind: "courier" },
      },
      endpoint_missing: true,
    });
    const alerts = outboundAlerts(t.env.runtime, t.env.db);
    const raised = async () => {
      await t.settle();
      const r = await t.call("GET", "/business/courier/alerts?kind=billing_endpoint_missing", {
        key,
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return (r.body.data as { id: string; status: string }[]).map((a) => a.status).sort();
    };
    const first = hourlyRetry();
    // The same retry delivered twice, and two deliveries at once: one alert.
    await alerts.onEndpointMissing!(tenant, first);
    await Promise.all([
      alerts.onEndpointMissing!(tenant, first),
      alerts.onEndpointMissing!(tenant, first),
    ]);
    assert.deepEqual(await raised(), ["open"]);
    const [open] = (await t.call("GET", "/business/courier/alerts?status=open", { key })).body
      .data as { id: string }[];
    t.clock.advanceBy(60_000);
    const resolved = await t.call("POST", `/business/courier/alerts/${open!.id}/resolve`, {
      key,
      body: { resolution: "endpoint being set up", evidence: "ticket 12" },
    });
    assert.equal(resolved.status, 200, JSON.stringify(resolved.body));
    // The retry before the resolution, delivered again: the condition the resolution closed.
    await alerts.onEndpointMissing!(tenant, first);
    assert.deepEqual(await raised(), ["resolved"]);
    // spec: courier 2.9, 3.1: an hour later the event still has nowhere to go and its entry
    // was not exported: the condition is back and someone must act, raised once.
    const later = hourlyRetry();
    await Promise.all([
      alerts.onEndpointMissing!(tenant, later),
      alerts.onEndpointMissing!(tenant, later),
    ]);
    await alerts.onEndpointMissing!(tenant, hourlyRetry());
    assert.deepEqual(await raised(), ["open", "resolved"]);
  }));

/** The courier's alerts of `kind` in `status`, as its team lists them. */
async function alerts(t: TestEnv, courier: Courier, kind: string, status: string) {
  await t.settle();
  const r = await t.call("GET", `/business/courier/alerts?kind=${kind}&status=${status}`, {
    key: courier.business.api_key,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data as {
    subject: { id: string };
    resolution: string | null;
    evidence: string | null;
    resolved_by: string | null;
  }[];
}

Deno.test("billing events: an endpoint alert is closed once its event fails its whole schedule at an endpoint set since", () =>
  withTestEnv(async (t) => {
    const receiver = startReceiver();
    try {
      receiver.failFirst = 100;
      const courier = await newCourier(t);
      const client = await newClient(t, courier);
      await topUp(t, courier, client, "500");
      const waybill = await bookWaybill(t, client);
      const eventId = await eventIdOf("billing", courier.business.id, client.id, waybill);
      const state = async () => {
        const got = await t.env.runtime.ask(outboundEventActor, courier.business.id, eventId, {
          kind: "get",
        });
        return got.ok ? got.reply : undefined;
      };
      await until(t, async () => (await state()) !== undefined, "the billing event");
      await advance(t, 0);
      await until(t, async () => (await state())?.endpoint_missing_at != null, "no endpoint");
      // The hourly try still finds none: the billing team is alerted to set one.
      await advance(t, 60 * 60);
      const open = () => alerts(t, courier, "billing_endpoint_missing", "open");
      await until(t, async () => (await open()).length === 1, "the endpoint alert");

      // An endpoint is set, and every attempt at it fails (1, 5, 30, 120, 720 minutes apart).
      const set = await t.call("PUT", "/business/courier/billing/endpoint", {
        key: courier.business.api_key,
        body: { url: receiver.url },
      });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      let attempts = 0;
      for (const seconds of [0, 60, 4 * 60, 25 * 60, 90 * 60, 600 * 60]) {
        await advance(t, seconds);
        attempts++;
        // Recorded, not only received: the next retry is set from the recorded attempt.
        await until(
          t,
          async () => ((await state())?.attempts_total ?? 0) >= attempts,
          `attempt ${attempts}`,
        );
      }
      await until(t, async () => (await state())?.status === "failed", "failed");

      // spec: courier 2.9, 3.1: it no longer waits for an endpoint: closed, never silently.
      await until(t, async () => (await open()).length === 0, "the endpoint alert closed");
      const [closed] = await alerts(t, courier, "billing_endpoint_missing", "resolved");
      assert.equal(closed!.subject.id, eventId);
      assert.match(closed!.resolution ?? "", /failed its whole schedule/);
      assert.match(closed!.evidence ?? "", /failed after 6 attempts, the last .*: HTTP 5\d\d$/);
      assert.ok(!closed!.evidence!.includes(receiver.url), "never the URL");
      // spec: courier 3.1, 6.3: the failure is what operations is alerted of now.
      const failed = await alerts(t, courier, "billing_export_failed", "open");
      assert.deepEqual(failed.map((a) => a.subject.id), [eventId]);
    } finally {
      await receiver.close();
    }
  }));
