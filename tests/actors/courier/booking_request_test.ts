import assert from "node:assert/strict";
import {
  type BookingRequest,
  bookingRequestActor,
  type BookingRequestCommand,
} from "../../../actors/courier/booking_request.ts";

/** The actor's pure decide and evolve: no KV, no HTTP. */
function run(state: BookingRequest, command: BookingRequestCommand) {
  const d = bookingRequestActor.decide(state, command, { now: 0, newId: (p) => `${p}_1` });
  if (!d.ok) return { state, refused: d };
  let next = state;
  for (const e of d.events) next = bookingRequestActor.evolve(next, e);
  return { state: next, reply: d.reply?.(next), events: d.events.length };
}

Deno.test("booking request: the first request binds its offer; the same again resumes it", () => {
  let s = bookingRequestActor.initial;
  const first = run(s, { kind: "begin", reference: "prc_a", fingerprint: "f1" });
  assert.deepEqual(first.reply, { reference: "prc_a", resumed: false });
  s = first.state;
  const again = run(s, { kind: "begin", reference: "prc_b", fingerprint: "f1" });
  assert.deepEqual(again.reply, { reference: "prc_a", resumed: true });
  assert.equal(again.events, 0);
});

Deno.test("booking request: another request under a bound identity is refused, naming the offer", () => {
  const s = run(bookingRequestActor.initial, {
    kind: "begin",
    reference: "prc_a",
    fingerprint: "f1",
  }).state;
  const other = run(s, { kind: "begin", reference: "prc_b", fingerprint: "f2" });
  assert.equal(other.refused?.code, "idempotency_key_reused");
  assert.deepEqual(other.refused?.details, { reference: "prc_a", begun_at: 0 });
});

Deno.test("booking request: release frees only the offer it names", () => {
  let s = run(bookingRequestActor.initial, {
    kind: "begin",
    reference: "prc_a",
    fingerprint: "f1",
  }).state;
  const stale = run(s, { kind: "release", reference: "prc_old" });
  assert.equal(stale.events, 0);
  s = run(s, { kind: "release", reference: "prc_a" }).state;
  assert.deepEqual(s, { reference: null, fingerprint: null });
  const next = run(s, { kind: "begin", reference: "prc_c", fingerprint: "f2" });
  assert.deepEqual(next.reply, { reference: "prc_c", resumed: false });
});
