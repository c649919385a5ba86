/**
 * A signed-in person's session (actors/platform/session.ts; CONTRACT "Sign-in and people";
 * courier 5): open once with a durable expiry timer, checked until it expires or is closed, and
 * closed for good by sign-out or by its timer.
 */
import assert from "node:assert/strict";
import { type Session, sessionActor } from "../../../actors/platform/session.ts";
import { SESSION_TTL_MS } from "../../../src/limits.ts";
import { ActorHarness, kinds } from "../../helpers/actor.ts";

const T0 = Date.parse("2026-11-02T08:00:00Z");
const OPEN: Omit<Session, "closed"> = {
  owner: "staff",
  business_id: "biz_1",
  account_id: "biz_1",
  user_id: "usr_1",
  session_epoch: 0,
  expires_at: T0 + SESSION_TTL_MS,
};

function opened() {
  const h = new ActorHarness(sessionActor, { now: T0 });
  h.must({ kind: "open", session: OPEN });
  return h;
}

Deno.test("session: open records it open and sets the expiry timer at its expiry", () => {
  const h = new ActorHarness(sessionActor, { now: T0 });
  const step = h.must({ kind: "open", session: OPEN });
  assert.deepEqual(step.events, [{ kind: "opened", session: { ...OPEN, closed: false } }]);
  assert.deepEqual(step.timers, [{ op: "set", name: "expiry", at: OPEN.expires_at }]);
  assert.deepEqual(h.state, { ...OPEN, closed: false });
  h.refused({ kind: "open", session: OPEN }, "already_exists", "session exists");
});

Deno.test("session: check answers the session until the instant it expires", () => {
  const h = opened();
  h.now = OPEN.expires_at - 1;
  const ok = h.must({ kind: "check" });
  assert.deepEqual(ok.events, []);
  assert.deepEqual(ok.reply, { ...OPEN, closed: false });
  h.now = OPEN.expires_at;
  h.refused({ kind: "check" }, "unauthenticated", "session expired or signed out");
  // An unknown token gets the same answer: nothing tells it apart.
  new ActorHarness(sessionActor, { now: T0 }).refused(
    { kind: "check" },
    "unauthenticated",
    "session expired or signed out",
  );
});

Deno.test("session: sign-out closes it, cancels the expiry, and is a no-op once closed", () => {
  const h = opened();
  const closed = h.must({ kind: "close" });
  assert.deepEqual(kinds(closed.events), ["closed"]);
  assert.deepEqual(closed.timers, [{ op: "cancel", name: "expiry" }]);
  assert.equal(h.state?.closed, true);
  h.refused({ kind: "check" }, "unauthenticated");
  const again = h.must({ kind: "close" });
  assert.deepEqual(again.events, []);
  assert.deepEqual(again.timers, []);
  // Closing a session never opened (an unknown token signing out): nothing.
  assert.deepEqual(new ActorHarness(sessionActor).must({ kind: "close" }).events, []);
});

Deno.test("session: the expiry timer closes it; a late timer after sign-out does nothing", () => {
  const h = opened();
  h.now = OPEN.expires_at;
  assert.deepEqual(kinds(h.fire("expiry").events), ["closed"]);
  assert.equal(h.state?.closed, true);
  assert.deepEqual(h.fire("expiry").events, []);
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("session: a closed session stays closed even before its expiry", () => {
  const h = opened();
  h.must({ kind: "close" });
  h.now = T0 + 1;
  h.refused({ kind: "check" }, "unauthenticated");
  assert.equal(sessionActor.evolve(null, { kind: "closed" }), null, "closed before opened: none");
});
