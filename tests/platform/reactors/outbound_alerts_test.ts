/**
 * Which alert callbacks an outbound event's change calls for (courier 2.9, 3.1, 6.3; issue 42 item
 * 4): a failure raises `onFailed`, and of an event that waited for an endpoint also
 * `onFailedAfterWait`; a delivery after a wait `onDeliveredAfterWait`; nothing for a delivery
 * that did not wait.
 */
import assert from "node:assert/strict";
import {
  outboundEventActor,
  type OutboundEventCommand,
  type OutboundEventEvent,
  type OutboundEventState,
  summaryOf,
} from "../../../actors/platform/outbound_event/mod.ts";
import type { ActorChange } from "../../../src/bus/bus.ts";
import { type AlertCallbacks, alertsOf } from "../../../src/platform/reactors/outbound_alerts.ts";
import {
  ATTEMPTS_MAX,
  NO_ENDPOINT_RETRY_MS,
} from "../../../src/platform/rules/delivery_schedule.ts";

const noop = () => {};
const CALLBACKS: AlertCallbacks = {
  onFailed: noop,
  onEndpointMissing: noop,
  onDeliveredAfterWait: noop,
  onFailedAfterWait: noop,
};

type Step = OutboundEventCommand | ((now: number) => OutboundEventCommand);

/** An event driven by `commands` on a clock `step` ms apart; answers the last decision's change. */
function changeAfter(commands: Step[], step: number): ActorChange {
  const ctx = { now: Date.parse("2026-11-02T08:00:00Z"), newId: (p: string) => `${p}_1` };
  let state: OutboundEventState = null;
  let events: readonly OutboundEventEvent[] = [];
  for (const command of commands) {
    const r = outboundEventActor.decide(
      state,
      typeof command === "function" ? command(ctx.now) : command,
      ctx,
    );
    assert.ok(r.ok, JSON.stringify(r));
    events = r.events;
    for (const e of events) state = outboundEventActor.evolve(state, e);
    ctx.now += step;
  }
  return {
    env: "test",
    tenant: "biz_a",
    type: outboundEventActor.type,
    id: "evt_1",
    version: commands.length,
    events: events.map((event, i) => ({ seq: i + 1, at: ctx.now, event })),
    snapshot: summaryOf(state!),
  };
}

const create = (waiting: boolean): OutboundEventCommand => ({
  kind: "create",
  event: {
    event_id: "evt_1",
    stream: "billing",
    event_type: "shipment.booked",
    raw_body: "{}",
    recipient: { kind: "courier" },
  },
  ...(waiting ? { endpoint_missing: true } : {}),
});
/** An hourly try, due now, that finds no endpoint. */
const hourlyTry = (now: number): OutboundEventCommand => ({
  kind: "endpoint_missing",
  due_at: now,
});
const fails = (n: number): OutboundEventCommand[] =>
  Array.from({ length: n }, (_, i) => ({
    kind: "record_attempt",
    attempt_id: `att_${i}`,
    outcome: { result: "failed", http_status: 503, error: null },
  }));
const delivered: OutboundEventCommand = {
  kind: "record_attempt",
  attempt_id: "att_ok",
  outcome: { result: "delivered", http_status: 200 },
};

const names = (change: ActorChange) => alertsOf(change, CALLBACKS).map((a) => a.name);

Deno.test("outbound alerts: an event that waited an hourly try, then failed its whole schedule, also calls onFailedAfterWait", () => {
  // A day between decisions: each retry of the schedule is due by then.
  const day = 24 * NO_ENDPOINT_RETRY_MS;
  const change = changeAfter([create(true), hourlyTry, ...fails(ATTEMPTS_MAX)], day);
  assert.equal((change.snapshot as { status: string }).status, "failed");
  assert.deepEqual(names(change), ["onFailed", "onFailedAfterWait"]);
});

Deno.test("outbound alerts: a failed schedule that never waited for an endpoint calls onFailed alone", () => {
  const day = 24 * NO_ENDPOINT_RETRY_MS;
  assert.deepEqual(names(changeAfter([create(false), ...fails(ATTEMPTS_MAX)], day)), ["onFailed"]);
  // Found none only at its first try (no hourly try): no endpoint alert was raised to close.
  assert.deepEqual(names(changeAfter([create(true), ...fails(ATTEMPTS_MAX)], day)), ["onFailed"]);
});

Deno.test("outbound alerts: a delivery after a wait calls onDeliveredAfterWait; one without a wait nothing", () => {
  const day = 24 * NO_ENDPOINT_RETRY_MS;
  assert.deepEqual(names(changeAfter([create(true), hourlyTry, delivered], day)), [
    "onDeliveredAfterWait",
  ]);
  assert.deepEqual(names(changeAfter([create(false), ...fails(2), delivered], day)), []);
});
