/**
 * A charge's billing event attempted by its outbox's handler (issue 36 item 2, courier 3.1, 6.1):
 * delivered at the first attempt it is one delivery-log row and no actor, read, listed,
 * acknowledged and refused a requeue as an actor's event would be, and another courier's id is
 * not found; a crash after the attempt and before its row sends it again, never loses it.
 */
import assert from "node:assert/strict";
import { outboundEventActor } from "../../../actors/platform/outbound_event/mod.ts";
import { eventIdOf } from "../../../src/courier/rules/billing_events.ts";
import { BillingEvents } from "../../../src/courier/reactors/billing_events.ts";
import { targetResolver } from "../../../src/courier/reactors/delivery_targets.ts";
import type { OutboundDelivery } from "../../../src/platform/reactors/deliver.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { bookWaybill, type Courier, newClient, newCourier, topUp } from "../../helpers/courier.ts";
import { type Receiver, startReceiver, until } from "../../helpers/receiver.ts";
import { outboxRetryDue } from "../../helpers/outbox_retry.ts";

async function withReceiver(fn: (r: Receiver) => Promise<void>) {
  const receiver = startReceiver();
  try {
    await fn(receiver);
  } finally {
    await receiver.close();
  }
}

/** A courier whose billing endpoint is the receiver, and a client with money to book. */
async function billed(t: TestEnv, receiver: Receiver) {
  const courier = await newCourier(t);
  const r = await t.call("PUT", "/business/courier/billing/endpoint", {
    key: courier.business.api_key,
    body: { url: receiver.url },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "500");
  return { courier, client };
}

/** The event's row: whether it is a delivery log, and whether an actor's snapshot exists. */
async function held(t: TestEnv, courier: Courier, id: string) {
  const row = await t.env.db.selectFrom("outbound_events")
    .select(["version", "status", "raw_body", "attempts_total", "next_attempt_at"])
    .where("id", "=", id).where("tenant", "=", courier.business.id).executeTakeFirst();
  const snapshot = await t.env.db.selectFrom("snapshots").select("id")
    .where("type", "=", outboundEventActor.type).where("id", "=", id).executeTakeFirst();
  return { row, actor: snapshot !== undefined };
}

Deno.test("billing events: a charge delivered at its first attempt is a delivery-log row, no actor, read as before", () =>
  withTestEnv((t) =>
    withReceiver(async (receiver) => {
      const { courier, client } = await billed(t, receiver);
      const waybill = await bookWaybill(t, client);
      const id = await eventIdOf("billing", courier.business.id, client.id, waybill);
      await until(t, () => receiver.effects.has(id), "the first attempt");
      await t.settle();
      const sent = receiver.deliveries.filter((d) => d.headers.get("X-Service-Event-Id") === id);
      assert.equal(sent.length, 1);
      const log = await held(t, courier, id);
      assert.equal(log.actor, false, "no actor was made");
      assert.deepEqual(log.row, {
        version: 0,
        status: "delivered",
        raw_body: sent[0]!.body,
        attempts_total: 1,
        next_attempt_at: null,
      });

      const key = courier.business.api_key;
      const one = await t.call("GET", `/business/courier/billing/events/${id}`, { key });
      assert.equal(one.status, 200, JSON.stringify(one.body));
      assert.equal(one.body.data.status, "delivered");
      assert.deepEqual(one.body.data.body, JSON.parse(sent[0]!.body));
      assert.equal(one.body.data.attempts.length, 1);
      assert.equal(
        one.body.data.attempts[0].attempt_id,
        sent[0]!.headers.get("X-Service-Attempt-Id"),
      );
      assert.deepEqual([one.body.data.attempts[0].result, one.body.data.next_attempt_at], [
        "delivered",
        null,
      ]);
      const listed = await t.call("GET", "/business/courier/billing/events?status=delivered", {
        key,
      });
      assert.deepEqual(listed.body.data.map((e: { event_id: string }) => e.event_id), [id]);
      assert.equal(listed.body.data[0].attempts, 1);
      assert.equal(listed.body.data[0].last_attempt.result, "delivered");

      // spec: courier 1.1: another courier's call finds nothing and changes nothing.
      const other = await newCourier(t);
      const theirs = { key: other.business.api_key };
      assert.equal(
        (await t.call("GET", `/business/courier/billing/events/${id}`, theirs)).status,
        404,
      );
      const foreign = await t.call("POST", `/business/courier/billing/events/${id}/acknowledge`, {
        ...theirs,
        body: { state: "acknowledged", external_reference: "ERP-X" },
      });
      assert.equal(foreign.status, 404);
      // A requeue of a delivered event is refused, and makes no actor either.
      const requeue = await t.call("POST", `/business/courier/billing/events/${id}/requeue`, {
        key,
        body: { reason: "again" },
      });
      assert.equal(requeue.body.code, "not_requeueable");
      await t.settle();
      assert.equal((await held(t, courier, id)).actor, false);

      // An acknowledgement makes the actor from the row, and the list follows it.
      const ack = await t.call("POST", `/business/courier/billing/events/${id}/acknowledge`, {
        key,
        body: { state: "acknowledged", external_reference: "ERP-1" },
      });
      assert.equal(ack.status, 200, JSON.stringify(ack.body));
      assert.deepEqual([ack.body.data.status, ack.body.data.reported_state], [
        "delivered",
        "acknowledged",
      ]);
      await t.settle();
      const after = await held(t, courier, id);
      assert.equal(after.actor, true);
      assert.ok(after.row!.version > 0, "the actor's projection replaced the row's columns");
      const again = await t.call("GET", `/business/courier/billing/events/${id}`, { key });
      assert.deepEqual(again.body.data.attempts, one.body.data.attempts);
      assert.equal(again.body.data.external_reference, "ERP-1");
      const relisted = await t.call("GET", "/business/courier/billing/events", { key });
      assert.equal(relisted.body.data[0].reported_state, "acknowledged");
      assert.equal(receiver.deliveries.length, 1, "nothing sent again");
    })
  ));

Deno.test("billing events: a crash after the first attempt, before its row, sends it again from the outbox; never lost", () =>
  withTestEnv((t) =>
    withReceiver(async (receiver) => {
      const { courier, client } = await billed(t, receiver);
      const engine = t.env.reactors["outbound"] as unknown as OutboundDelivery;
      // The process dies once the attempt is made: the outbox item stays. Dead, it attempts
      // nothing more, though a sweep (each `until` turn fires timers, and on a manual clock that
      // sweeps the outboxes) may hand it the failed item again before it is closed.
      let died = false;
      const dying = new BillingEvents({
        runtime: t.env.runtime,
        bus: t.env.bus,
        db: t.env.db,
        targets: targetResolver(t.env.runtime, t.clock),
        attemptFirst: async (...args) => {
          if (!died) {
            died = true;
            await engine.attemptFirst(...args);
          }
          throw new Error("the process died");
        },
      });
      const waybill = await bookWaybill(t, client);
      const id = await eventIdOf("billing", courier.business.id, client.id, waybill);
      await until(t, () => receiver.effects.has(id), "the first attempt");
      await t.env.runtime.outboxesIdle();
      await dying.close();
      assert.deepEqual(await held(t, courier, id), { row: undefined, actor: false });
      // Started again: the outbox sweep hands the item over, and the event is sent again.
      const restarted = new BillingEvents({
        runtime: t.env.runtime,
        bus: t.env.bus,
        db: t.env.db,
        targets: targetResolver(t.env.runtime, t.clock),
        attemptFirst: (...args) => engine.attemptFirst(...args),
      });
      try {
        outboxRetryDue(t.clock);
        await t.env.runtime.sweepOutboxes();
        const sent = receiver.deliveries.filter((d) => d.headers.get("X-Service-Event-Id") === id);
        assert.equal(sent.length, 2, "sent again");
        assert.equal(sent[1]!.body, sent[0]!.body, "the same bytes");
        assert.equal((await held(t, courier, id)).row?.status, "delivered");
        // Handled: the item is gone, and a later sweep sends nothing.
        await t.env.runtime.sweepOutboxes();
        assert.equal(receiver.deliveries.length, 2);
        assert.equal(receiver.effects.size, 1);
      } finally {
        await restarted.close();
      }
    })
  ));
