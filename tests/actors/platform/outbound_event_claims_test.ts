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
