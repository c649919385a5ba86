import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type Alert,
  ALERT_DETAIL_BYTES_MAX,
  ALERT_HISTORY_MAX,
  ALERT_MESSAGE_CHARS_MAX,
  alertActor,
  type AlertCommand,
  type AlertEvent,
  type AlertState,
  type NewAlert,
  summaryOf,
} from "../../../actors/courier/alert.ts";
import type { Rejection } from "../../../src/runtime/actor.ts";
import { alertIdOf } from "../../../src/courier/flows/alerts.ts";

const T0 = Date.parse("2026-10-12T09:00:00Z");

type Answer =
  | { readonly ok: true; readonly reply: Alert | undefined; readonly events: AlertEvent[] }
  | Rejection;

/** One alert driven through the actor's pure decide and evolve: no KV, no HTTP. */
class AlertHarness {
  state: AlertState = null;
  now = T0;

  send(command: AlertCommand): Answer {
    const d = alertActor.decide(this.state, command, { now: this.now, newId: (p) => `${p}_1` });
    if (!d.ok) return d;
    for (const e of d.events) this.state = alertActor.evolve(this.state, e);
    return { ok: true, reply: d.reply?.(this.state), events: [...d.events] };
  }

  must(command: AlertCommand): Alert {
    const r = this.send(command);
    assert.ok(r.ok, r.ok ? "" : `${r.code}: ${r.message}`);
    assert.ok(r.reply);
    return r.reply;
  }

  refused(command: AlertCommand, code: string): void {
    const before = this.state;
    const r = this.send(command);
    assert.equal(r.ok, false);
    assert.equal((r as Rejection).code, code);
    assert.equal(this.state, before, "a refusal changes nothing");
  }
}

const NEW: NewAlert = {
  id: "alr_1",
  kind: "notification_failed",
  owner: "courier",
  subject: { type: "outbound_event", id: "evt_1" },
  waybill: "WB123",
  message: "client webhook could not be delivered: evt_1",
  detail: { attempts: 6 },
};

function raised(): AlertHarness {
  const h = new AlertHarness();
  h.must({ kind: "raise", alert: NEW, by: "system" });
  return h;
}

Deno.test("alert: raise opens the alert once; raising again answers it unchanged", () => {
  const h = new AlertHarness();
  const first = h.must({ kind: "raise", alert: NEW, by: "system" });
  assert.equal(first.status, "open");
  assert.equal(first.raised_at, T0);
  assert.equal(first.assigned_to, null);
  assert.deepEqual(first.history, [{ action: "raised", by: "system", at: T0, to: null }]);
  h.now += 60_000;
  const again = h.send({
    kind: "raise",
    alert: { ...NEW, message: "something else", owner: "billing" },
    by: "system",
  });
  assert.ok(again.ok);
  assert.deepEqual(again.events, []);
  assert.deepEqual(again.reply, first, "each condition is raised once");
});

Deno.test("alert: raise refuses an unknown kind, clips a long message", () => {
  const h = new AlertHarness();
  h.refused(
    { kind: "raise", alert: { ...NEW, kind: "meteor_strike" as NewAlert["kind"] }, by: "system" },
    "invalid_alert",
  );
  h.refused({ kind: "raise", alert: { ...NEW, message: "  " }, by: "system" }, "invalid_alert");
  const a = h.must({
    kind: "raise",
    alert: { ...NEW, message: "m".repeat(ALERT_MESSAGE_CHARS_MAX * 2) },
    by: "system",
  });
  assert.equal(a.message.length, ALERT_MESSAGE_CHARS_MAX);
});

Deno.test("alert: assign records who and to whom; the same assignee again changes nothing", () => {
  const h = raised();
  h.now += 1_000;
  const a = h.must({ kind: "assign", to: "staff:stf_2", by: "staff:stf_1" });
  assert.equal(a.assigned_to, "staff:stf_2");
  assert.equal(a.status, "open", "assignment alone is not an acknowledgement");
  assert.deepEqual(a.history.at(-1), {
    action: "assigned",
    by: "staff:stf_1",
    at: T0 + 1_000,
    to: "staff:stf_2",
  });
  const again = h.send({ kind: "assign", to: "staff:stf_2", by: "staff:stf_1" });
  assert.ok(again.ok);
  assert.deepEqual(again.events, []);
  h.refused({ kind: "assign", to: "  ", by: "staff:stf_1" }, "assignee_required");
});

Deno.test("alert: acknowledge moves open to acknowledged; repeating it is a no-op", () => {
  const h = raised();
  h.now += 5_000;
  const a = h.must({ kind: "acknowledge", by: "api_key" });
  assert.equal(a.status, "acknowledged");
  assert.equal(a.acknowledged_at, T0 + 5_000);
  assert.equal(a.acknowledged_by, "api_key");
  h.now += 5_000;
  const again = h.send({ kind: "acknowledge", by: "staff:stf_9" });
  assert.ok(again.ok);
  assert.deepEqual(again.events, []);
  assert.equal(again.reply?.acknowledged_by, "api_key");
  assert.equal(again.reply?.acknowledged_at, T0 + 5_000);
});

Deno.test("alert: resolve needs both a resolution and evidence", () => {
  const h = raised();
  const base = { kind: "resolve" as const, by: "api_key" };
  h.refused({ ...base, resolution: "", evidence: "photo 12" }, "resolution_required");
  h.refused({ ...base, resolution: "  ", evidence: "photo 12" }, "resolution_required");
  h.refused({ ...base, resolution: "re-sent by hand", evidence: "" }, "evidence_required");
  h.refused({ ...base, resolution: "re-sent by hand", evidence: " \n " }, "evidence_required");
  assert.equal(h.state?.status, "open");
  h.now += 10_000;
  const a = h.must({ ...base, resolution: " re-sent by hand ", evidence: "receipt 4411" });
  assert.equal(a.status, "resolved");
  assert.equal(a.resolution, "re-sent by hand");
  assert.equal(a.evidence, "receipt 4411");
  assert.equal(a.evidence_file, null);
  assert.equal(a.resolved_at, T0 + 10_000);
  assert.equal(a.resolved_by, "api_key");
});

Deno.test("alert: resolving twice is refused; a resolved alert takes no more actions", () => {
  const h = raised();
  h.must({ kind: "resolve", resolution: "done", evidence: "proof", by: "api_key" });
  h.refused(
    { kind: "resolve", resolution: "again", evidence: "more", by: "api_key" },
    "alert_already_resolved",
  );
  h.refused({ kind: "assign", to: "staff:stf_2", by: "api_key" }, "alert_already_resolved");
  h.refused({ kind: "acknowledge", by: "api_key" }, "alert_already_resolved");
  const raisedAgain = h.send({ kind: "raise", alert: NEW, by: "system" });
  assert.ok(raisedAgain.ok);
  assert.deepEqual(raisedAgain.events, [], "a resolved condition is not raised again");
  assert.equal(raisedAgain.reply?.status, "resolved");
});

Deno.test("alert: resolving with a file keeps its reference", () => {
  const h = raised();
  const file = { sha256: "a".repeat(64), name: "pod.jpg", size: 1234, content_type: "image/jpeg" };
  const a = h.must({
    kind: "resolve",
    resolution: "delivered; webhook replayed",
    evidence: `file:sha256:${file.sha256}`,
    evidence_file: file,
    by: "staff:stf_1",
  });
  assert.deepEqual(a.evidence_file, file);
  assert.equal(a.evidence, `file:sha256:${file.sha256}`);
});

Deno.test("alert: get and actions on a missing alert answer not_found", () => {
  const h = new AlertHarness();
  h.refused({ kind: "get" }, "not_found");
  h.refused({ kind: "assign", to: "x", by: "y" }, "not_found");
  h.refused({ kind: "acknowledge", by: "y" }, "not_found");
  h.refused({ kind: "resolve", resolution: "r", evidence: "e", by: "y" }, "not_found");
});

Deno.test("alert: the history is bounded and the projection leaves it out", () => {
  const h = raised();
  for (let i = 0; i < ALERT_HISTORY_MAX + 10; i++) {
    h.now += 1;
    h.must({ kind: "assign", to: `staff:stf_${i % 2}`, by: "api_key" });
  }
  const a = h.state!;
  assert.equal(a.history.length, ALERT_HISTORY_MAX);
  assert.equal(a.actions_total, ALERT_HISTORY_MAX + 11);
  const projected = alertActor.project!(a) as Record<string, unknown>;
  assert.equal("history" in projected, false);
  assert.deepEqual(projected, summaryOf(a));
  assert.deepEqual(projected.last_action, a.history.at(-1));
  assert.equal(alertActor.project!(null), undefined);
});

Deno.test("alertIdOf() is deterministic per kind and condition key", async () => {
  const a = await alertIdOf("no_scan", "WB1");
  assert.match(a, /^alr_[0-9a-f]{24}$/);
  assert.equal(await alertIdOf("no_scan", "WB1"), a);
  assert.notEqual(await alertIdOf("no_scan", "WB2"), a);
  assert.notEqual(await alertIdOf("milestone_overdue", "WB1"), a);
});

Deno.test("alert: an oversized detail is cut, never a reason to raise none", () => {
  // spec: courier 2.9: each condition is raised; its facts are bounded, the condition is not.
  fc.assert(fc.property(
    fc.dictionary(
      fc.constantFrom("reason", "places", "milestone", "due_at", "days_over", "event_id"),
      fc.oneof(fc.string({ maxLength: 3_000 }), fc.integer(), fc.array(fc.string())),
      { maxKeys: 8 },
    ),
    (detail) => {
      const h = new AlertHarness();
      const a = h.must({ kind: "raise", alert: { ...NEW, detail }, by: "system" });
      assert.ok(JSON.stringify(a.detail).length <= ALERT_DETAIL_BYTES_MAX);
      if (JSON.stringify(detail).length <= ALERT_DETAIL_BYTES_MAX) {
        assert.deepEqual({ ...a.detail }, { ...detail });
      } else {
        assert.equal(a.detail["detail_cut"], true);
      }
    },
  ));
  const h = new AlertHarness();
  const a = h.must({
    kind: "raise",
    alert: { ...NEW, detail: { reason: "\u0001".repeat(400), attempts: 3 } },
    by: "system",
  });
  assert.deepEqual(a.detail, { reason: "(2402 characters, cut)", attempts: 3, detail_cut: true });
});
