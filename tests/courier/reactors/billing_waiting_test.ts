/**
 * Charge events made while the courier has no endpoint (courier 3.1, issue 36 item 2): each is a
 * delivery-log row, not an actor, and the courier's one `billing_wait` timer retries them all
 * hourly, raising their alerts as an actor's retry would; a pass that finds an endpoint set since
 * makes the due ones actors, due now, each sent once; a query side refusing the row leaves the
 * event waiting as an actor, as before.
 */
import assert from "node:assert/strict";
import type { Kysely } from "kysely";
import { billingWaitActor } from "../../../actors/courier/billing_wait.ts";
import { businessActor } from "../../../actors/platform/business/mod.ts";
import { outboundEventActor } from "../../../actors/platform/outbound_event/mod.ts";
import { sendBillingEvent } from "../../../src/courier/reactors/billing_outbox.ts";
import { retryWaiting } from "../../../src/courier/reactors/billing_wait.ts";
import { targetResolver } from "../../../src/courier/reactors/delivery_targets.ts";
import { waitingRows } from "../../../src/courier/reactors/waiting_rows.ts";
import { writeWaitingLogs } from "../../../src/courier/queries/outbound_log.ts";
import type { Database } from "../../../src/db/schema.ts";
import { NO_ENDPOINT_RETRY_MS } from "../../../src/platform/rules/delivery_schedule.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { bookWaybill, type Courier, newClient, newCourier, topUp } from "../../helpers/courier.ts";
import { advance, until } from "../../helpers/receiver.ts";
import { commandKind, flakyRuntime } from "../../helpers/faults.ts";
import {
  bookedEvent,
  endpointAlerts,
  setEndpoint,
  withReceiver,
} from "./billing_events_fixtures.ts";
import { EVENT } from "../../actors/platform/outbound_log_fixtures.ts";

/** The event's row, and whether an actor holds it (its snapshot is projected). */
async function held(t: TestEnv, courier: Courier, id: string) {
  await t.settle();
  const row = await t.env.db.selectFrom("outbound_events")
    .select(["version", "status", "raw_body", "endpoint_missing_at", "next_attempt_at"])
    .where("id", "=", id).where("tenant", "=", courier.business.id).executeTakeFirstOrThrow();
  const snapshot = await t.env.db.selectFrom("snapshots").select("id")
    .where("type", "=", outboundEventActor.type).where("id", "=", id).executeTakeFirst();
  return { ...row, actor: snapshot !== undefined };
}

async function waitingAt(t: TestEnv, courier: Courier): Promise<number | null> {
  const id = courier.business.id;
  const got = await t.env.runtime.ask(billingWaitActor, id, id, { kind: "get" });
  assert.ok(got.ok);
  return got.reply!.due_at;
}

Deno.test("billing events: with no endpoint a courier's charge events are rows, retried hourly by one timer", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const made = t.clock.now();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(await bookedEvent(t, courier, client, await bookWaybill(t, client)));
    }
    for (const id of ids) {
      const row = await held(t, courier, id);
      assert.equal(row.actor, false, "no actor per event");
      assert.deepEqual([row.version, row.status], [0, "pending"]);
      assert.equal(row.next_attempt_at, made + NO_ENDPOINT_RETRY_MS);
    }
    assert.equal(await waitingAt(t, courier), made + NO_ENDPOINT_RETRY_MS, "one timer, armed once");
    assert.deepEqual(await endpointAlerts(t, courier, "open"), []);

    // The hour: one pass retries every waiting event, each still finding no endpoint.
    await advance(t, 60 * 60);
    const now = t.clock.now();
    for (const id of ids) {
      await until(t, async () => (await held(t, courier, id)).endpoint_missing_at === now, id);
    }
    await until(t, async () => (await endpointAlerts(t, courier, "open")).length === 3, "alerts");
    const alerts = await endpointAlerts(t, courier, "open");
    assert.deepEqual(alerts.map((a) => a.subject.id).sort(), [...ids].sort());
    for (const id of ids) {
      const row = await held(t, courier, id);
      assert.equal(row.actor, false, "still no actor");
      assert.equal(row.next_attempt_at, now + NO_ENDPOINT_RETRY_MS);
      // Read as the actor would answer.
      const got = await t.env.runtime.ask(outboundEventActor, courier.business.id, id, {
        kind: "get",
      });
      assert.ok(got.ok && got.reply);
      assert.deepEqual(
        [got.reply.status, got.reply.endpoint_missing_at, got.reply.next_attempt_at],
        ["pending", now, now + NO_ENDPOINT_RETRY_MS],
      );
    }
    assert.equal(await waitingAt(t, courier), now + NO_ENDPOINT_RETRY_MS);
    // Another courier's id is not found.
    const other = await newCourier(t);
    const theirs = await t.env.runtime.ask(outboundEventActor, other.business.id, ids[0]!, {
      kind: "get",
    });
    assert.equal(theirs.ok ? "found" : theirs.code, "not_found");
  }));

Deno.test("billing events: a pass finding an endpoint set since makes its due rows actors, each sent once", () =>
  withTestEnv((t) =>
    withReceiver(async (receiver) => {
      const courier = await newCourier(t);
      const client = await newClient(t, courier);
      await topUp(t, courier, client, "500");
      const id = await bookedEvent(t, courier, client, await bookWaybill(t, client));
      // Past its retry without the timer firing yet: the endpoint set now finds it due already,
      // and leaves it to its pass.
      t.clock.advanceBy(2 * NO_ENDPOINT_RETRY_MS);
      await setEndpoint(t, courier, receiver.url);
      await t.settle();
      assert.equal((await held(t, courier, id)).actor, false);
      await advance(t, 0);
      await until(t, () => receiver.effects.has(id), "the delivery");
      await until(t, async () => (await held(t, courier, id)).status === "delivered", "delivered");
      assert.equal((await held(t, courier, id)).actor, true, "made an actor to be sent");
      await advance(t, 60 * 60);
      await t.settle();
      const sent = receiver.deliveries.filter((d) => d.headers.get("X-Service-Event-Id") === id);
      assert.equal(sent.length, 1);
      assert.equal(await waitingAt(t, courier), null, "nothing left waiting");
    })
  ));

Deno.test("billing events: the query side refusing a waiting row, the event waits as an actor", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const tenant = courier.business.id;
    // A query side that refuses every insert (the row), and answers reads as before.
    const refusing = new Proxy(t.env.db, {
      get: (db, name) =>
        name === "insertInto"
          ? () => {
            throw new Error("the query side is down");
          }
          : Reflect.get(db, name),
    }) as Kysely<Database>;
    await sendBillingEvent({
      runtime: t.env.runtime,
      db: refusing,
      waiting: waitingRows(t.env.runtime, refusing),
      targets: () => Promise.resolve(null),
      attemptFirst: () => Promise.resolve(null),
    }, {
      tenant,
      clientId: "cli_1",
      entry: { reference: "WB-1", kind: "shipment" },
      eventId: "evt_refused_row",
      eventType: "shipment.booked",
      rawBody: JSON.stringify({ event_id: "evt_refused_row" }),
    });
    const got = await t.env.runtime.ask(outboundEventActor, tenant, "evt_refused_row", {
      kind: "get",
    });
    assert.ok(got.ok && got.reply);
    assert.equal(got.reply.status, "pending");
    assert.equal(got.reply.next_attempt_at, t.clock.now() + NO_ENDPOINT_RETRY_MS);
    assert.equal((await held(t, courier, "evt_refused_row")).actor, true);
    assert.equal(await waitingAt(t, courier), null, "no pass needed: the actor has its timer");
  }));

Deno.test("billing events: a pass raises its page's alerts together, so their lookups share statements and commits", () =>
  withTestEnv(async (t) => {
    const tenant = "biz_waiting_page";
    const now = t.clock.now();
    const ids = ["evt_p1", "evt_p2", "evt_p3"];
    await writeWaitingLogs(
      t.env.db,
      ids.map((event_id) => ({
        tenant,
        log: { event: { ...EVENT, event_id }, created_at: now, missing_at: now, retry_at: now },
      })),
    );
    let inFlight = 0;
    let most = 0;
    const raised: string[] = [];
    const retried = await retryWaiting(
      {
        runtime: t.env.runtime,
        db: t.env.db,
        targets: () => Promise.resolve(null),
        onEndpointMissing: async (_tenant, event) => {
          most = Math.max(most, ++inFlight);
          await Promise.resolve();
          raised.push(event.event_id);
          inFlight--;
        },
      },
      tenant,
      now,
    );
    assert.equal(retried, 3);
    assert.deepEqual(raised.sort(), ids);
    assert.equal(most, 3, "the page's three raised at once, not one after another");
    const rows = await t.env.db.selectFrom("outbound_events").select("next_attempt_at")
      .where("tenant", "=", tenant).execute();
    assert.deepEqual(rows.map((r) => r.next_attempt_at), ids.map(() => now + NO_ENDPOINT_RETRY_MS));
  }));

Deno.test("billing events: a busy courier account is no missing endpoint: a pass notes nothing and raises no alert", () =>
  withTestEnv((t) =>
    withReceiver(async (receiver) => {
      const courier = await newCourier(t);
      const client = await newClient(t, courier);
      await topUp(t, courier, client, "500");
      const id = await bookedEvent(t, courier, client, await bookWaybill(t, client));
      t.clock.advanceBy(2 * NO_ENDPOINT_RETRY_MS);
      await setEndpoint(t, courier, receiver.url);
      const before = await held(t, courier, id);
      // The courier's account answers actor_busy once, as a full mailbox does.
      const busy = flakyRuntime(t.env.runtime, {
        fails: commandKind("get", businessActor.type),
        refuse: true,
      });
      const raised: string[] = [];
      const pass = {
        runtime: t.env.runtime,
        db: t.env.db,
        targets: targetResolver(busy.runtime, t.clock),
        onEndpointMissing: (_tenant: string, event: { event_id: string }) => {
          raised.push(event.event_id);
          return Promise.resolve();
        },
      };
      // spec: courier 3.1: "no billing endpoint set" is not known, so the pass is handed over
      // again rather than noting a retry an hour away and alerting billing_endpoint_missing.
      await assert.rejects(retryWaiting(pass, courier.business.id, t.clock.now()));
      assert.equal(busy.failed(), 1);
      assert.deepEqual(raised, []);
      const after = await held(t, courier, id);
      assert.equal(after.next_attempt_at, before.next_attempt_at);
      assert.equal(after.endpoint_missing_at, before.endpoint_missing_at);
      // Handed over again, the account answers: the event is made due and sent.
      await retryWaiting(pass, courier.business.id, t.clock.now());
      await advance(t, 0);
      await until(t, () => receiver.effects.has(id), "the delivery");
      assert.deepEqual(raised, []);
    })
  ));
