/**
 * Customs moves through the API (courier 2.6, 3.2, 4.5, 7): each move's required facts, the text
 * a charge keeps, the request cap, the scopes, a refusal ending the crossing, and a hold sent
 * again late. A cross-border shipment gets its crossing at booking; present() presents it, as a
 * run's border stop does (customs_fixtures.ts).
 */
import assert from "node:assert/strict";
import { postChunked, withTestEnv } from "../../helpers/test_env.ts";
import { grantScopes } from "../../helpers/courier.ts";
import { recordCrossing } from "../../../src/courier/flows/customs.ts";
import { asApiError } from "../../../src/http/errors.ts";
import { advance } from "../../helpers/receiver.ts";
import {
  alerts,
  billingEvent,
  crossings,
  ledger,
  move,
  present,
  presented,
  shipment,
  supply,
} from "./customs_fixtures.ts";

Deno.test("customs: each move needs its facts; a refused move changes nothing", () =>
  withTestEnv(async (t) => {
    const { courier, waybill, id } = await presented(t, { customs: true });
    assert.match(id, /^xing_[0-9a-f]{24}$/);
    assert.equal(await present(t, courier, waybill), id, "opening again is the same crossing");
    const s = await shipment(t, courier, waybill);
    assert.equal(s.status, "customs_processing");
    assert.equal(s.health, "waiting_customs");
    assert.equal(s.trail.filter((e) => e.event === "presented_to_customs").length, 1);

    const refusals: [Record<string, unknown>, string][] = [
      [{ action: "hold" }, "reason_required"],
      [{ action: "hold", reason: "   " }, "reason_required"],
      [{ action: "request_documents" }, "reason_required"],
      [{ action: "refuse", customs_reference: "X" }, "reason_required"],
      [{ action: "clear", reason: "all good" }, "customs_reference_required"],
      [{ action: "release", reason: "released" }, "evidence_required"],
      [
        { action: "duties", currency: "BWP", payer: "client", evidence: "r" },
        "duties_fields_required",
      ],
      [
        { action: "duties", amount: "10", payer: "client", evidence: "r" },
        "duties_fields_required",
      ],
      [
        { action: "duties", amount: "10", currency: "BWP", evidence: "r" },
        "duties_fields_required",
      ],
      [
        { action: "duties", amount: "10", currency: "BWP", payer: "client" },
        "duties_fields_required",
      ],
      [
        { action: "duties", amount: "-5", currency: "BWP", payer: "client", evidence: "r" },
        "invalid_amount",
      ],
      [
        { action: "duties", amount: "ten", currency: "BWP", payer: "client", evidence: "r" },
        "invalid_amount",
      ],
      [
        { action: "duties", amount: "10", currency: "XYZ", payer: "client", evidence: "r" },
        "invalid_currency",
      ],
      [{ action: "teleport", reason: "x" }, "validation_failed"],
    ];
    for (const [body, code] of refusals) {
      const r = await move(t, courier, id, body, 422);
      // A missing fact is a validation failure naming its field (CONTRACT), the rule kept.
      if (code.endsWith("_required")) {
        assert.equal(r.code, "validation_failed", JSON.stringify(body));
        assert.equal(r.rule, code, JSON.stringify(body));
        assert.ok(r.errors.length > 0, JSON.stringify(r));
      } else assert.equal(r.code, code, JSON.stringify(body));
    }
    const hold = await move(t, courier, id, { action: "hold" }, 422);
    assert.deepEqual(hold.errors.map((e: { path: string }) => e.path), ["reason"]);
    const clear = await move(t, courier, id, { action: "clear", reason: "ok" }, 422);
    assert.deepEqual(clear.errors.map((e: { path: string }) => e.path), ["customs_reference"]);
    const missing = await move(t, courier, id, { action: "duties", amount: "10" }, 422);
    assert.match(missing.message, /currency, payer, evidence/);
    assert.deepEqual(missing.errors.map((e: { path: string }) => e.path), [
      "currency",
      "payer",
      "evidence",
    ]);

    const [c] = await crossings(t, courier, waybill);
    assert.equal(c!.id, id);
    assert.equal(c!.status, "presented");
    assert.deepEqual(c!.history, []);
    assert.deepEqual(c!.duties, []);
    assert.equal((await shipment(t, courier, waybill)).status, "customs_processing");
    assert.deepEqual(await ledger(t, courier, "customs_admin"), []);
  }));

Deno.test("customs: a reason, customs reference or evidence a charge keeps is refused 422 with a control character; nothing moves", () =>
  withTestEnv(async (t) => {
    const { courier, waybill, id } = await presented(t, { customs: true });
    const duty = {
      action: "duties",
      amount: "125.50",
      currency: "BWP",
      payer: "client",
      evidence: "SARS receipt 9001",
    };
    // spec: courier 2.6 rule 1: the duty's reason and evidence, the clearance's customs reference
    // (its charge's evidence) are kept by the ledger and carried by the billing events (2.7).
    const bad: [Record<string, unknown>, string][] = [
      [{ ...duty, reason: "excise\u0001" }, "reason"],
      [{ ...duty, evidence: "SARS\u0000receipt" }, "evidence"],
      [{ ...duty, evidence: "SARS\treceipt" }, "evidence"],
      [{ action: "clear", customs_reference: "SARS-\u001f77" }, "customs_reference"],
    ];
    for (const [body, field] of bad) {
      const r = await move(t, courier, id, body, 422);
      assert.equal(r.code, "validation_failed", JSON.stringify(body));
      assert.deepEqual(r.errors.map((e: { path: string }) => e.path), [field], JSON.stringify(r));
    }
    const [c] = await crossings(t, courier, waybill);
    assert.equal(c!.status, "presented");
    assert.deepEqual(c!.history, []);
    assert.deepEqual(c!.duties, []);
    assert.deepEqual(await ledger(t, courier, "duties"), []);
    assert.deepEqual(await ledger(t, courier, "customs_admin"), []);
    // A reason may run over lines.
    await move(t, courier, id, { ...duty, reason: "excise,\r\nVAT" });
    await t.settle();
    const kept = await t.env.db.selectFrom("ledger_entries").select("reason")
      .where("tenant", "=", courier.business.id).where("kind", "=", "duties")
      .executeTakeFirstOrThrow();
    assert.match(kept.reason!, /: excise,\r\nVAT$/);
  }));

Deno.test("customs: a move past the request cap is refused 413 also when it declares no length, and nothing moves", () =>
  withTestEnv(async (t) => {
    const { courier, waybill, id } = await presented(t);
    const bytes = new TextEncoder().encode(
      JSON.stringify({ action: "hold", reason: "x".repeat(2_000_000) }),
    );
    const res = await postChunked(t, `/business/customs/${id}/move`, {
      "X-Business-API-Key": courier.business.api_key,
      "Content-Type": "application/json",
    }, bytes);
    const answer = await res.json();
    assert.equal(res.status, 413, JSON.stringify(answer).slice(0, 300));
    assert.equal(answer.code, "payload_too_large");
    assert.equal((await shipment(t, courier, waybill)).status, "customs_processing");
  }));

Deno.test("customs: clear, release and refuse need customs:approve; holds need runs:operate", () =>
  withTestEnv(async (t) => {
    const { courier, id } = await presented(t);
    for (
      const body of [
        { action: "clear", customs_reference: "SARS-1" },
        { action: "release", evidence: "release note 7" },
        { action: "refuse", reason: "prohibited goods" },
      ]
    ) {
      const r = await move(t, courier, id, body, 403);
      assert.equal(r.code, "scope_denied");
      assert.match(r.message, /customs:approve/);
    }
    // The courier's own key operates runs by default: holds and requests need nothing more.
    const held = await move(t, courier, id, { action: "hold", reason: "x-ray inspection" });
    assert.equal(held.data.status, "held");
    assert.equal(held.data.history.length, 1);
    await grantScopes(t, courier, "customs:approve");
    const cleared = await move(t, courier, id, { action: "clear", customs_reference: "SARS-1" });
    assert.equal(cleared.data.status, "cleared");
    await billingEvent(t, courier, `customs.cleared:${id}`);
  }));

Deno.test("customs: a refusal is an exception on the shipment and ends the crossing", () =>
  withTestEnv(async (t) => {
    const { courier, waybill, id } = await presented(t, { customs: true });
    const refused = await move(t, courier, id, { action: "refuse", reason: "prohibited goods" });
    assert.equal(refused.data.status, "refused");
    const s = await shipment(t, courier, waybill);
    assert.equal(s.health, "exception");
    assert.equal(s.exception?.reason, "customs refused: prohibited goods");
    for (
      const body of [
        { action: "clear", customs_reference: "SARS-9" },
        { action: "duties", amount: "1", currency: "BWP", payer: "client", evidence: "r" },
        { action: "refuse", reason: "something else" },
      ]
    ) {
      assert.equal((await move(t, courier, id, body, 422)).code, "crossing_closed");
    }
    const r = await t.call("POST", `/business/customs/${id}/supply`, {
      key: courier.business.api_key,
      body: { documents: [{ name: "permit" }] },
    });
    assert.equal(r.status, 422);
    assert.equal(r.body.code, "crossing_closed");
    await assert.rejects(
      () =>
        recordCrossing(t.env.runtime, courier.business.id, id, "exit", "d").then(() =>
          recordCrossing(t.env.runtime, courier.business.id, id, "entry", "d")
        ),
      (e: unknown) => asApiError(e)?.code === "crossing_closed",
    );
    assert.deepEqual(await ledger(t, courier, "customs_admin"), []);
  }));

Deno.test("customs: a refusal leaves nothing waiting on customs: no clearance open, no customs wait alerted", () =>
  withTestEnv(async (t) => {
    const { courier, waybill, id } = await presented(t, { customs: true });
    await move(t, courier, id, { action: "request_documents", reason: "permit missing" });
    await move(t, courier, id, { action: "refuse", reason: "prohibited goods" });
    // spec: courier 3.2, 2.9: customs refused it: neither a clearance nor papers will come, so
    // neither customs_clearance nor customs_documents stays open to run over its wait.
    const s = await shipment(t, courier, waybill);
    assert.equal(s.health, "exception");
    assert.deepEqual(s.obligations.filter((o) => o.milestone.startsWith("customs")), []);
    assert.equal(s.trail.at(-1)!.event, "customs_refused");
    await advance(t, 5 * 24 * 3600);
    assert.deepEqual(await alerts(t, courier, "customs_wait_exceeded"), []);
    const overdue = await alerts(t, courier, "milestone_overdue");
    assert.deepEqual(overdue.filter((a) => a.detail.milestone?.startsWith("customs")), []);
  }));

Deno.test("customs: a hold sent again after the crossing moved on answers the hold recorded and changes nothing", () =>
  withTestEnv(async (t) => {
    const { courier, waybill, id } = await presented(t, { customs: true });
    const hold = { action: "hold", reason: "x-ray inspection" };
    const ask = { action: "request_documents", reason: "commercial invoice missing" };
    const held = await move(t, courier, id, hold);
    const asked = await move(t, courier, id, ask);
    await supply(t, courier, id, ["commercial invoice"]);
    // spec: courier 2.6 rule 2, product rule: the hold and the request sent again late (a lost
    // answer retried) are the moves recorded, answered again; they hold nothing again.
    for (const [body, first] of [[hold, held], [ask, asked]] as const) {
      const again = await move(t, courier, id, body);
      assert.equal(again.data.replayed, true, JSON.stringify(body));
      assert.deepEqual(again.data.move, first.data.move);
      assert.equal(again.data.status, "presented");
      assert.equal(again.data.history.length, 2);
    }
    await move(t, courier, id, { action: "clear", customs_reference: "SARS-93" });
    await move(t, courier, id, { action: "release", evidence: "release RN-93" });
    for (const [body, first] of [[hold, held], [ask, asked]] as const) {
      const late = await move(t, courier, id, body);
      assert.equal(late.data.replayed, true, JSON.stringify(body));
      assert.deepEqual(late.data.move, first.data.move);
      assert.equal(late.data.status, "released");
    }
    const [c] = await crossings(t, courier, waybill);
    assert.deepEqual(c!.history.map((h) => h.action), [
      "hold",
      "request_documents",
      "clear",
      "release",
    ]);
    const s = await shipment(t, courier, waybill);
    assert.equal(s.status, "cleared");
    assert.equal(s.trail.filter((e) => e.event === "customs_hold").length, 1);
    assert.equal(s.trail.filter((e) => e.event === "documents_requested").length, 1);
    assert.ok(!s.obligations.some((o) => o.milestone === "customs_documents"));
    // Another hold, with facts of its own, is still refused once the crossing is cleared.
    const other = await move(t, courier, id, { action: "hold", reason: "re-inspection" }, 422);
    assert.equal(other.code, "crossing_closed");
  }));
