/**
 * Who may claim an outbound event for an attempt (actors/platform/outbound_event/attempts.ts):
 * never before its next attempt is due, and a claim for the first attempt only never follows
 * another sender's.
 */
import assert from "node:assert/strict";
import {
  type AttemptOutcome,
  type NewOutboundEvent,
  outboundEventActor,
} from "../../../actors/platform/outbound_event/mod.ts";
import { RETRY_SCHEDULE_MINUTES } from "../../../src/platform/rules/delivery_schedule.ts";
import { ActorHarness } from "../../helpers/actor.ts";

const T0 = Date.parse("2026-11-02T08:00:00Z");
const MINUTE = 60_000;
const EVENT: NewOutboundEvent = {
  event_id: "evt_1",
  stream: "billing",
  event_type: "shipment.booked",
  raw_body: JSON.stringify({ api_version: "v1", event_id: "evt_1", amount: 65.5 }),
  recipient: { kind: "courier" },
  entry: { client_id: "cli_1", reference: "WB1", kind: "shipment" },
  client_id: "cli_1",
};
const FAILED = { result: "failed", http_status: 503, error: "unavailable" } as const;

function created() {
  const h = new ActorHarness(outboundEventActor, { now: T0 });
  h.must({ kind: "create", event: EVENT });
  return h;
}

function attempt(h: ReturnType<typeof created>, id: string, outcome: AttemptOutcome) {
  h.must({ kind: "claim", attempt_id: id });
  return h.must({ kind: "record_attempt", attempt_id: id, outcome });
}

Deno.test("outbound event: an attempt heard late, after another sender's failed one set the next, is refused not_due", () => {
  const h = created();
  attempt(h, "att_1", FAILED); // a sender made the first attempt; the retry is a minute later
  const next = h.state!.next_attempt_at!;
  assert.equal(next, T0 + RETRY_SCHEDULE_MINUTES[0]! * MINUTE);
  h.refused(
    { kind: "claim", attempt_id: "att_late" },
    "not_due",
    `the next attempt is due at ${next}`,
  );
  h.now = next;
  h.must({ kind: "claim", attempt_id: "att_2" });
});

Deno.test("outbound event: a claim for the first attempt only is refused once another sender made it", () => {
  const h = created();
  h.must({ kind: "claim", attempt_id: "att_1", first_only: true });
  const again = created();
  attempt(again, "att_pump", FAILED);
  again.refused(
    { kind: "claim", attempt_id: "att_test", first_only: true },
    "already_attempted",
    "another sender made the first attempt",
  );
  again.now = again.state!.next_attempt_at!;
  again.must({ kind: "claim", attempt_id: "att_test" }); // without it: the retry's sender
});

Deno.test("outbound event: retries whose times passed while it waited for an endpoint are spaced from the attempt made, never at once", () => {
  const h = created();
  attempt(h, "att_1", FAILED); // at T0; the retry is due at T0 + 1 min
  h.now = T0 + MINUTE;
  h.must({ kind: "claim", attempt_id: "att_2" });
  h.must({ kind: "record_attempt", attempt_id: "att_2", outcome: { result: "no_endpoint" } });
  // Three hours on an endpoint is set: the retries of +5, +30 and +120 minutes are past.
  h.now = T0 + 3 * 60 * MINUTE;
  h.must({ kind: "endpoint_set" });
  // spec: courier 6.1: retried "after 1, 5, 30, 120 and 720 minutes": a retry whose time has
  // passed follows the attempt just made by the schedule's gap, not at once (a burst spending
  // the schedule in a second); one still ahead keeps its time, counted from the first try.
  const gaps = [5 - 1, 30 - 5, 120 - 30];
  for (const [n, gap] of gaps.entries()) {
    attempt(h, `att_${n + 3}`, FAILED);
    assert.equal(h.state!.next_attempt_at, h.now + gap * MINUTE);
    h.refused({ kind: "claim", attempt_id: `att_burst_${n}` }, "not_due", /due at/);
    h.now = h.state!.next_attempt_at!;
  }
  attempt(h, "att_6", FAILED);
  assert.equal(h.state!.next_attempt_at, T0 + RETRY_SCHEDULE_MINUTES[4]! * MINUTE);
  h.now = h.state!.next_attempt_at!;
  attempt(h, "att_7", FAILED);
  assert.deepEqual([h.state!.status, h.state!.round_attempts], ["failed", 6]);
});
