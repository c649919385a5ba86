/**
 * Billing events without an endpoint (courier 2.9, 3.1, 6.3): the event waits and retries hourly,
 * the billing_endpoint_missing alert is raised, resolved by a delivery or an export (with its
 * evidence) or closed by a failed schedule, which raises billing_export_failed.
 */
import assert from "node:assert/strict";
import {
  outboundEventActor,
  type OutboundEventCommand,
  type OutboundEventState,
  summaryOf,
  waitedForEndpoint,
} from "../../../actors/platform/outbound_event/mod.ts";
import { DEFERRED_WORK_RETRY_MS } from "../../../src/limits.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { billingCsv, bookWaybill, newClient, newCourier, topUp } from "../../helpers/courier.ts";
import { advance, until, untilRecorded } from "../../helpers/receiver.ts";
import { commandKind, flakyRuntime, holdAsk } from "../../helpers/faults.ts";
import { alertActor } from "../../../actors/courier/alert.ts";
import { DeferredWorks } from "../../../src/platform/reactors/deferred.ts";
import { OutboundDelivery } from "../../../src/platform/reactors/deliver.ts";
import { outboundAlerts } from "../../../src/courier/reactors/delivery_alerts.ts";
import { targetResolver } from "../../../src/courier/reactors/delivery_targets.ts";
import { endpointSet } from "../../../src/platform/reactors/endpoint_set.ts";
import {
  bookedEvent,
  endpointAlerts,
  setEndpoint,
  waitingForEndpoint,
  withReceiver,
} from "./billing_events_fixtures.ts";

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

      // Once an endpoint is set, the event goes at once, not at the next hourly try (made due by
      // the endpoint-set outbox of the setting's commit).
      await setEndpoint(t, courier, receiver.url);
      await t.settle();
      assert.equal((await state()).next_attempt_at, t.clock.now(), "due now");
      await advance(t, 0);
      await until(t, () => receiver.effects.has(eventId), "delivery after the endpoint is set");
      await until(t, async () => (await state()).status === "delivered", "delivered");
      assert.equal((await state()).attempts_total, 1);
    })
  ));

Deno.test("billing events: a business webhook URL set later sends the waiting events at once, once however often its outbox item is handed over", () =>
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
      // Made due by the endpoint-set outbox the profile's commit added, handled after it.
      await t.settle();
      assert.equal((await state()).next_attempt_at, t.clock.now(), "due now");
      // The sweep after a crash hands the item over again: nothing more is made due.
      const item = {
        business_id: courier.business.id,
        recipients: ["courier", "business"] as const,
      };
      const changes = async () =>
        (await Array.fromAsync(t.env.runtime.events(outboundEventActor, eventId))).length;
      const before = await changes();
      assert.equal(await endpointSet(t.env, item), 1, "found still waiting on the query side");
      assert.equal(await changes(), before, "already due: nothing more is decided");
      await advance(t, 0);
      await until(t, () => receiver.effects.has(eventId), "delivered without the hour's wait");
      await until(t, async () => (await state()).status === "delivered", "delivered");
      await t.settle();
      assert.equal(await endpointSet(t.env, item), 0, "delivered: nothing waits");
      await advance(t, 60 * 60);
      await t.settle();
      assert.equal((await state()).attempts_total, 1, "sent once");
      assert.equal(
        receiver.deliveries.filter((d) => d.headers.get("X-Service-Event-Id") === eventId).length,
        1,
      );
    })
  ));
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
