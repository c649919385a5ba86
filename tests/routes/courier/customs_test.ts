/**
 * Customs crossings through the API (courier 2.6, 2.9, 2.10, 3.2, 3.4, 4.5, 5, 7): each move's
 * required facts, the scopes, what a move does to the shipment, the customs-administration
 * charge booked once per clearance, duties kept apart from revenue, the release after the
 * vehicle left, the border stop's exit before entry, and tenancy. A cross-border shipment gets
 * its crossing at booking; openCrossing presents it, as a run's border stop does.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { postChunked, type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  billingAction,
  bookWaybill,
  type Client,
  type Courier,
  DOMESTIC,
  grantScopes,
  newClient,
  newCourier,
  newDriver,
  postCharge,
  topUp,
} from "../../helpers/courier.ts";
import { advance, until } from "../../helpers/receiver.ts";
import { SCAN_CHARGE_RETRY_MS } from "../../../src/limits.ts";
import { UNRESOLVED_FX_MAX } from "../../../src/courier/rules/ledger.ts";
import { openCrossing, recordCrossing, vehicleLeft } from "../../../src/courier/flows/customs.ts";
import { asApiError } from "../../../src/http/errors.ts";
import { whileFlaky } from "../../helpers/faults.ts";

const CROSS_BORDER = { ...DOMESTIC, to_country: "ZA", recipient_address: "12 Long St, Rustenburg" };

async function ready(t: TestEnv): Promise<[Courier, Client]> {
  const courier = await newCourier(t);
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "2000");
  return [courier, client];
}

function present(t: TestEnv, courier: Courier, waybill: string, stop = "stop_tlokweng") {
  return openCrossing(t.env.runtime, courier.business.id, {
    waybill,
    country: "BW",
    to_country: "ZA",
    border_post: "Tlokweng",
    run_id: "run_test",
    stop_id: stop,
    by: "driver:test",
  });
}

async function move(
  t: TestEnv,
  courier: Courier,
  crossing: string,
  body: Record<string, unknown>,
  status = 200,
) {
  const r = await t.call("POST", `/business/customs/${crossing}/move`, {
    key: courier.business.api_key,
    body,
  });
  assert.equal(r.status, status, `${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
  return r.body;
}

async function supply(t: TestEnv, courier: Courier, crossing: string, names: string[]) {
  const r = await t.call("POST", `/business/customs/${crossing}/supply`, {
    key: courier.business.api_key,
    body: { documents: names.map((name) => ({ name, reference: `${name}-1` })) },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data;
}

async function crossings(t: TestEnv, courier: Courier, waybill: string) {
  await t.settle();
  const r = await t.call("GET", `/business/shipments/${waybill}/customs`, {
    key: courier.business.api_key,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.crossings as {
    id: string;
    status: string;
    border_post: string;
    country: string;
    to_country: string;
    history: { action: string; reason: string | null }[];
    documents: { name: string }[];
    duties: { amount: number; payer: string }[];
    exit_at: string | null;
    entry_at: string | null;
    vehicle_left_at: string | null;
    released_at: string | null;
  }[];
}

async function shipment(t: TestEnv, courier: Courier, waybill: string) {
  const r = await t.call("GET", `/business/courier/operations/${waybill}`, {
    key: courier.business.api_key,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data as {
    status: string;
    health: string;
    exception: { reason: string } | null;
    obligations: { milestone: string; owner: string }[];
    trail: { event: string }[];
  };
}

async function ledger(t: TestEnv, courier: Courier, kind: string) {
  await t.settle();
  const r = await sql<{
    reference: string;
    amount_minor: number;
    currency: string;
    recoverable: boolean;
    evidence_path: string | null;
    source_event: string | null;
    status: string;
  }>`select reference, amount_minor, currency, recoverable, evidence_path, source_event, status
    from ledger_entries where tenant = ${courier.business.id} and kind = ${kind}
    order by seq`.execute(t.env.db);
  return r.rows.map((row) => ({ ...row, amount_minor: Number(row.amount_minor) }));
}

async function alerts(t: TestEnv, courier: Courier, kind: string) {
  await t.settle();
  const r = await t.call("GET", `/business/courier/alerts?kind=${kind}`, {
    key: courier.business.api_key,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data as {
    kind: string;
    waybill: string;
    owner: string;
    message: string;
    detail: Record<string, string>;
  }[];
}

/** Waits for the billing event a charge produces (courier 6.1), bus-driven. */
async function billingEvent(t: TestEnv, courier: Courier, eventType: string): Promise<void> {
  await until(t, async () => {
    const r = await t.call("GET", `/business/courier/billing/events?event_type=${eventType}`, {
      key: courier.business.api_key,
    });
    return r.status === 200 && r.body.data.length === 1;
  }, `billing event ${eventType}`);
}

Deno.test("customs: each move needs its facts; a refused move changes nothing", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await grantScopes(t, courier, "customs:approve");
    const waybill = await bookWaybill(t, client, CROSS_BORDER);
    const id = await present(t, courier, waybill);
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
    const [courier, client] = await ready(t);
    await grantScopes(t, courier, "customs:approve");
    const waybill = await bookWaybill(t, client, CROSS_BORDER);
    const id = await present(t, courier, waybill);
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
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client, CROSS_BORDER);
    const id = await present(t, courier, waybill);
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
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client, CROSS_BORDER);
    const id = await present(t, courier, waybill);
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

Deno.test("customs: a plain hold waits on customs; only a request for documents puts papers on the courier", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client, CROSS_BORDER);
    const id = await present(t, courier, waybill);
    const customsObligations = async () =>
      (await shipment(t, courier, waybill)).obligations
        .filter((o) => o.milestone.startsWith("customs"))
        .map((o) => [o.milestone, o.owner]);

    // spec: courier 3.2: a hold without papers asked for stays with customs.
    await move(t, courier, id, { action: "hold", reason: "x-ray inspection" });
    let s = await shipment(t, courier, waybill);
    assert.equal(s.status, "customs_hold");
    assert.equal(s.health, "waiting_customs");
    assert.deepEqual(await customsObligations(), [["customs_clearance", "customs"]]);
    assert.equal(s.trail.filter((e) => e.event === "customs_hold").length, 1);

    // Customs holds for papers: customs_documents opens, owned by the courier (3.2), and
    // documents_missing is raised (2.9).
    const asked = await move(t, courier, id, {
      action: "request_documents",
      reason: "commercial invoice missing",
    });
    assert.equal(asked.data.status, "documents_requested");
    s = await shipment(t, courier, waybill);
    assert.equal(s.status, "customs_hold");
    assert.equal(s.health, "waiting_courier");
    assert.deepEqual(await customsObligations(), [
      ["customs_clearance", "customs"],
      ["customs_documents", "courier"],
    ]);
    await until(
      t,
      async () => (await alerts(t, courier, "documents_missing")).length > 0,
      "documents missing",
    );
    // Raised after the hold's scan was published: had the hold raised one, it would show too.
    const missing = await alerts(t, courier, "documents_missing");
    assert.equal(missing.length, 1, JSON.stringify(missing));
    assert.match(missing[0]!.message, /commercial invoice missing/);
    assert.equal(missing[0]!.owner, "courier");

    // Held on its booking crossing before any border stop presented it: waiting on customs too.
    const early = await bookWaybill(t, client, CROSS_BORDER);
    const [booked] = await crossings(t, courier, early);
    await move(t, courier, booked!.id, { action: "hold", reason: "pre-arrival risk check" });
    const e = await shipment(t, courier, early);
    assert.equal(e.status, "customs_hold");
    assert.equal(e.health, "waiting_customs");
    assert.ok(!e.obligations.some((o) => o.milestone === "customs_documents"));
  }));

Deno.test("customs: a request for documents waits on the courier, papers put it back with customs, one clearance charge", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await grantScopes(t, courier, "customs:approve");
    const waybill = await bookWaybill(t, client, CROSS_BORDER);
    const id = await present(t, courier, waybill);

    const asked = await move(t, courier, id, {
      action: "request_documents",
      reason: "commercial invoice missing",
    });
    assert.equal(asked.data.status, "documents_requested");
    let s = await shipment(t, courier, waybill);
    assert.equal(s.status, "customs_hold");
    assert.equal(s.health, "waiting_courier");
    await until(
      t,
      async () => (await alerts(t, courier, "documents_missing")).length === 1,
      "documents missing",
    );
    // The same request again is a replay: nothing moves twice.
    const again = await move(t, courier, id, {
      action: "request_documents",
      reason: "commercial invoice missing",
    });
    assert.equal(again.data.replayed, true);
    assert.equal(again.data.history.length, 1);

    const supplied = await supply(t, courier, id, ["commercial invoice"]);
    assert.equal(supplied.status, "presented");
    assert.equal(supplied.documents.length, 1);
    s = await shipment(t, courier, waybill);
    assert.equal(s.status, "customs_processing");
    assert.equal(s.health, "waiting_customs");
    assert.equal(s.trail.filter((e) => e.event === "documents_requested").length, 1);
    assert.equal(s.trail.filter((e) => e.event === "documents_supplied").length, 1);

    const cleared = await move(t, courier, id, { action: "clear", customs_reference: "SARS-42" });
    assert.equal(cleared.data.status, "cleared");
    assert.equal(cleared.data.replayed, false);
    assert.equal(cleared.data.charge_reference, `CUS-${id}`);
    const twice = await move(t, courier, id, { action: "clear", customs_reference: "SARS-42" });
    assert.equal(twice.data.replayed, true);
    assert.equal(twice.data.history.length, 2);
    // Nothing but duties follows a clearance.
    const other = await move(
      t,
      courier,
      id,
      { action: "clear", customs_reference: "SARS-43" },
      422,
    );
    assert.equal(other.code, "crossing_closed");
    assert.equal(
      (await move(t, courier, id, { action: "hold", reason: "x" }, 422)).code,
      "crossing_closed",
    );
    s = await shipment(t, courier, waybill);
    assert.equal(s.status, "cleared");
    assert.equal(s.trail.filter((e) => e.event === "cleared").length, 1);

    const charges = await ledger(t, courier, "customs_admin");
    assert.equal(charges.length, 1, "one charge per crossing cleared");
    assert.equal(charges[0]!.reference, `CUS-${id}`);
    assert.equal(charges[0]!.amount_minor, 7500);
    assert.equal(charges[0]!.currency, "BWP");
    assert.equal(charges[0]!.recoverable, false);
    assert.equal(charges[0]!.evidence_path, "SARS-42");
    assert.equal(charges[0]!.source_event, `customs.cleared:${id}`);
    const bill = await t.call("GET", `/business/courier/clients/${client.id}/billing`, {
      key: courier.business.api_key,
    });
    assert.equal(bill.status, 200, JSON.stringify(bill.body));
    const kinds = bill.body.data.statement.entries.map((e: { kind: string }) => e.kind);
    assert.equal(kinds.filter((k: string) => k === "customs_admin").length, 1);
    await billingEvent(t, courier, `customs.cleared:${id}`);

    const [c] = await crossings(t, courier, waybill);
    assert.deepEqual(c!.history.map((h) => h.action), ["request_documents", "clear"]);
    assert.deepEqual(c!.documents.map((d) => d.name), ["commercial invoice"]);
  }));

Deno.test("customs: duties paid for the client are recoverable, apart from revenue; others are not charged", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await grantScopes(t, courier, "customs:approve");
    const waybill = await bookWaybill(t, client, CROSS_BORDER);
    const id = await present(t, courier, waybill);
    const duty = {
      action: "duties",
      amount: "125.50",
      currency: "BWP",
      payer: "client",
      evidence: "SARS receipt 9001",
    };
    const first = await move(t, courier, id, duty);
    assert.equal(first.data.charge_reference, `DUT-${id}-1`);
    // An amount is a JSON number in its currency, as every other answer states one (courier 9.4).
    assert.equal(first.data.move.amount, 125.5);
    assert.equal(first.data.duties[0].amount, 125.5);
    const replay = await move(t, courier, id, duty);
    assert.equal(replay.data.replayed, true);
    await move(t, courier, id, { ...duty, amount: 30, evidence: "SARS receipt 9002" });
    const recipient = await move(t, courier, id, {
      ...duty,
      amount: "12",
      payer: "recipient",
      evidence: "paid at the counter",
    });
    assert.equal(recipient.data.charge_reference, null);
    // Duties still follow a clearance.
    await move(t, courier, id, { action: "clear", customs_reference: "SARS-77" });
    await move(t, courier, id, { ...duty, amount: "5", evidence: "late excise" });

    const duties = await ledger(t, courier, "duties");
    assert.deepEqual(duties.map((d) => [d.reference, d.amount_minor, d.source_event]), [
      [`DUT-${id}-1`, 12550, `customs.duties:${id}`],
      [`DUT-${id}-2`, 3000, `customs.duties:${id}:2`],
      [`DUT-${id}-4`, 500, `customs.duties:${id}:4`],
    ]);
    assert.ok(duties.every((d) => d.recoverable && d.status === "posted"));
    assert.equal(duties[0]!.evidence_path, "SARS receipt 9001");
    assert.equal((await ledger(t, courier, "customs_admin")).length, 1);

    const bill = await t.call("GET", `/business/courier/clients/${client.id}/billing`, {
      key: courier.business.api_key,
    });
    assert.equal(bill.status, 200, JSON.stringify(bill.body));
    const totals = bill.body.data.statement.totals.find((x: { currency: string }) =>
      x.currency === "BWP"
    );
    assert.equal(Number(totals.recoverable_duties), 160.5);
    const shipmentCharge = bill.body.data.statement.entries
      .filter((e: { kind: string }) => e.kind === "shipment")
      .reduce((sum: number, e: { amount: string }) => sum + Math.round(Number(e.amount) * 100), 0);
    const charges = Math.round(Number(totals.charges) * 100);
    assert.equal(charges, shipmentCharge + 7500, "revenue leaves the duties out");

    const [c] = await crossings(t, courier, waybill);
    assert.deepEqual(c!.duties.map((d) => [d.amount, d.payer]), [
      [125.5, "client"],
      [30, "client"],
      [12, "recipient"],
      [5, "client"],
    ]);
    for (const n of ["", ":2", ":4"]) await billingEvent(t, courier, `customs.duties:${id}${n}`);
    await billingEvent(t, courier, `customs.cleared:${id}`);
  }));

Deno.test("customs: a release after the vehicle left awaits collection; entry only after exit", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await grantScopes(t, courier, "customs:approve");
    const waybill = await bookWaybill(t, client, CROSS_BORDER);
    const id = await present(t, courier, waybill);
    const tenant = courier.business.id;

    await assert.rejects(
      () => recordCrossing(t.env.runtime, tenant, id, "entry", "driver:test"),
      (e: unknown) => asApiError(e)?.code === "entry_before_exit" && asApiError(e)?.status === 422,
    );
    await recordCrossing(t.env.runtime, tenant, id, "exit", "driver:test");
    const crossed = await recordCrossing(t.env.runtime, tenant, id, "entry", "driver:test");
    assert.ok(crossed.exit_at !== null && crossed.entry_at !== null);
    assert.ok(crossed.exit_at <= crossed.entry_at);

    await move(t, courier, id, { action: "hold", reason: "inspection" });
    const left = await vehicleLeft(t.env.runtime, tenant, id, "driver:test");
    assert.notEqual(left.vehicle_left_at, null);
    const released = await move(t, courier, id, { action: "release", evidence: "release RN-5" });
    assert.equal(released.data.status, "released");
    assert.equal(released.data.released_after_departure, true);
    await until(
      t,
      async () => (await alerts(t, courier, "released_awaiting_collection")).length === 1,
      "released awaiting collection",
    );
    const [alert] = await alerts(t, courier, "released_awaiting_collection");
    assert.equal(alert!.waybill, waybill);
    assert.equal(alert!.owner, "courier");
    assert.equal((await shipment(t, courier, waybill)).status, "cleared");
    // Its detail states the release time as every answer does (ISO 8601), as the crossing does.
    const [crossing] = await crossings(t, courier, waybill);
    assert.match(alert!.detail.released_at ?? "", /^\d{4}-\d\d-\d\dT.*Z$/);
    assert.equal(alert!.detail.released_at, crossing!.released_at);
    // A release repeated raises nothing new; clearance may still follow a release.
    await move(t, courier, id, { action: "release", evidence: "release RN-5" });
    await move(t, courier, id, { action: "clear", customs_reference: "SARS-5" });
    await billingEvent(t, courier, `customs.cleared:${id}`);

    // Released before the vehicle left: nothing awaits collection.
    const second = await bookWaybill(t, client, CROSS_BORDER);
    const other = await present(t, courier, second);
    await move(t, courier, other, { action: "release", evidence: "release RN-6" });
    await vehicleLeft(t.env.runtime, tenant, other, "driver:test");
    await t.settle();
    assert.equal((await alerts(t, courier, "released_awaiting_collection")).length, 1);

    const [c] = await crossings(t, courier, waybill);
    assert.notEqual(c!.exit_at, null);
    assert.notEqual(c!.entry_at, null);
    assert.notEqual(c!.vehicle_left_at, null);

    // Cleared while the vehicle had gone on, then released to be collected: the release follows
    // the clearance too; once both happened only duties do.
    const third = await bookWaybill(t, client, CROSS_BORDER);
    const xing = await present(t, courier, third);
    await vehicleLeft(t.env.runtime, tenant, xing, "driver:test");
    await move(t, courier, xing, { action: "clear", customs_reference: "SARS-7" });
    const out = await move(t, courier, xing, { action: "release", evidence: "release RN-7" });
    assert.equal(out.data.status, "released");
    await until(
      t,
      async () => (await alerts(t, courier, "released_awaiting_collection")).length === 2,
      "the cleared one released awaits collection too",
    );
    const again = await move(
      t,
      courier,
      xing,
      { action: "clear", customs_reference: "SARS-8" },
      422,
    );
    assert.equal(again.code, "crossing_closed");
    await move(t, courier, xing, {
      action: "duties",
      amount: "10.00",
      currency: "BWP",
      payer: "client",
      evidence: "receipt 7",
    });
  }));

Deno.test("customs: a refusal is an exception on the shipment and ends the crossing", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await grantScopes(t, courier, "customs:approve");
    const waybill = await bookWaybill(t, client, CROSS_BORDER);
    const id = await present(t, courier, waybill);
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

Deno.test("customs: another courier finds nothing; a driver supplies only for what they carry", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client, CROSS_BORDER);
    const id = await present(t, courier, waybill);
    const other = await newCourier(t);
    const key = other.business.api_key;
    assert.equal(
      (await t.call("GET", `/business/shipments/${waybill}/customs`, { key })).status,
      404,
    );
    const moved = await t.call("POST", `/business/customs/${id}/move`, {
      key,
      body: { action: "hold", reason: "x" },
    });
    assert.equal(moved.status, 404);
    const supplied = await t.call("POST", `/business/customs/${id}/supply`, {
      key,
      body: { documents: [{ name: "invoice" }] },
    });
    assert.equal(supplied.status, 404);
    await assert.rejects(
      () =>
        openCrossing(t.env.runtime, other.business.id, {
          waybill,
          country: "BW",
          to_country: "ZA",
          border_post: "Tlokweng",
          run_id: null,
          stop_id: null,
          by: "x",
        }),
      (e: unknown) => asApiError(e)?.code === "not_found",
    );

    const body = { documents: [{ name: "commercial invoice", reference: "INV-9" }] };
    const mine = await newDriver(t, courier.business.id);
    const theirs = await newDriver(t, other.business.id);
    for (const d of [mine, theirs]) {
      const r = await t.call("POST", `/driver/customs/${id}/supply`, { bearer: d.token, body });
      assert.equal(r.status, 404, JSON.stringify(r.body));
    }

    // Once a run carrying the shipment is assigned to the driver, the driver may supply papers.
    const run = await t.call("POST", "/business/network-runs", {
      key: courier.business.api_key,
      body: {
        facility_id: "GBE-HUB",
        kind: "linehaul",
        countries: ["BW", "ZA"],
        capacity: { kg: 1000, m3: 10, pieces: 100 },
        driver_id: mine.id,
      },
    });
    assert.equal(run.status, 201, JSON.stringify(run.body));
    const stop = await t.call("POST", `/business/network-runs/${run.body.data.id}/stops`, {
      key: courier.business.api_key,
      body: { kind: "deliver", waybill },
    });
    assert.equal(stop.status, 201, JSON.stringify(stop.body));
    const r = await t.call("POST", `/driver/customs/${id}/supply`, { bearer: mine.token, body });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.data.documents.map((d: { name: string }) => d.name), [
      "commercial invoice",
    ]);
    assert.equal(r.body.data.duties, undefined, "a driver never sees customs values");
    const denied = await t.call("POST", `/driver/customs/${id}/supply`, {
      bearer: theirs.token,
      body,
    });
    assert.equal(denied.status, 404);
  }));

Deno.test("customs: a driver not carrying the shipment gets the 404 of a crossing that does not exist, naming no waybill", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client, CROSS_BORDER);
    const id = await present(t, courier, waybill);
    const driver = await newDriver(t, courier.business.id);
    const body = { documents: [{ name: "commercial invoice" }] };
    const unknown = await t.call("POST", "/driver/customs/xing_none/supply", {
      bearer: driver.token,
      body,
    });
    assert.equal(unknown.status, 404, JSON.stringify(unknown.body));
    // spec: courier 4.5: limited to runs assigned to the driver; one of the courier's crossings
    // the driver does not carry answers as one that does not exist, its waybill unnamed.
    const notMine = await t.call("POST", `/driver/customs/${id}/supply`, {
      bearer: driver.token,
      body,
    });
    assert.equal(notMine.status, 404, JSON.stringify(notMine.body));
    assert.deepEqual(notMine.body, unknown.body);
    assert.ok(!JSON.stringify(notMine.body).includes(waybill), JSON.stringify(notMine.body));
  }));

Deno.test("customs: a cross-border shipment has one crossing from booking, worked before any run; the first border stop presents that crossing", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await grantScopes(t, courier, "customs:approve");
    const waybill = await bookWaybill(t, client, CROSS_BORDER);
    // Listed as soon as the booking answered, before the projection writes it.
    const r = await t.call("GET", `/business/shipments/${waybill}/customs`, {
      key: courier.business.api_key,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const [booked, ...none] = r.body.data.crossings;
    assert.deepEqual(none, []);
    assert.match(booked.id, /^xing_[0-9a-f]{24}$/);
    assert.equal(booked.status, "presented");
    assert.equal(booked.country, "BW");
    assert.equal(booked.to_country, "ZA");
    // Nothing happened at a border yet: the shipment is not with customs.
    assert.equal((await shipment(t, courier, waybill)).status, "booked");
    assert.equal((await crossings(t, courier, waybill)).length, 1, "projected once");

    // Papers can be worked from booking on.
    await supply(t, courier, booked.id, ["commercial_invoice"]);
    // The first border stop presents the same crossing: no second one, no second clearance.
    assert.equal(await present(t, courier, waybill), booked.id);
    assert.equal(await present(t, courier, waybill), booked.id, "the same stop again");
    const [atStop, ...noMore] = await crossings(t, courier, waybill);
    assert.deepEqual(noMore, []);
    assert.equal(atStop!.border_post, "Tlokweng");
    assert.deepEqual([atStop!.country, atStop!.to_country], ["BW", "ZA"]);
    assert.deepEqual(atStop!.documents.map((d) => d.name), ["commercial_invoice"]);
    await move(t, courier, booked.id, { action: "clear", customs_reference: "ZA-CUS-1" });
    await move(t, courier, booked.id, { action: "clear", customs_reference: "ZA-CUS-1" });
    assert.deepEqual(
      (await ledger(t, courier, "customs_admin")).map((e) => e.source_event),
      [`customs.cleared:${booked.id}`],
    );
    // Another border later on is a crossing of its own.
    const onward = await present(t, courier, waybill, "stop_ramatlabama");
    assert.notEqual(onward, booked.id);
    assert.equal((await crossings(t, courier, waybill)).length, 2);

    // Bound for Mozambique through South Africa: the first border stop's crossing is BW to ZA.
    const transit = await bookWaybill(t, client, { ...CROSS_BORDER, to_country: "MZ" });
    const [toMz] = await crossings(t, courier, transit);
    assert.deepEqual([toMz!.country, toMz!.to_country], ["BW", "MZ"]);
    assert.equal(await present(t, courier, transit), toMz!.id);
    const [atBorder] = await crossings(t, courier, transit);
    assert.deepEqual([atBorder!.country, atBorder!.to_country], ["BW", "ZA"]);

    // A domestic shipment crosses nothing.
    const domestic = await bookWaybill(t, client);
    assert.deepEqual(await crossings(t, courier, domestic), []);
  }));

Deno.test("customs: a clearance whose fee a crash kept off the account is completed by its retry, also after the release", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await grantScopes(t, courier, "customs:approve");
    const waybill = await bookWaybill(t, client, CROSS_BORDER);
    const id = await present(t, courier, waybill);
    const clear = { action: "clear", customs_reference: "SARS-88" };
    // The process dies after the crossing recorded the clearance, before the fee was booked.
    const failed = await whileFlaky(t.env, {
      fails: (type, command) =>
        type === "courier_client" && (command as { kind: string }).kind === "post_charge",
    }, async () => {
      await move(t, courier, id, clear, 500);
    });
    assert.equal(failed, 1);
    // Customs releases the goods before the clearance is sent again.
    await move(t, courier, id, { action: "release", evidence: "release RN-88" });
    const retried = await move(t, courier, id, clear);
    assert.equal(retried.data.replayed, true, "the clearance recorded, answered again");
    assert.equal(retried.data.charge_reference, `CUS-${id}`);
    await move(t, courier, id, clear);
    // spec: courier 2.6 rules 2, 3: one customs-administration entry per crossing cleared.
    const charges = await ledger(t, courier, "customs_admin");
    assert.deepEqual(charges.map((c) => c.reference), [`CUS-${id}`]);
    const s = await shipment(t, courier, waybill);
    assert.equal(s.trail.filter((e) => e.event === "cleared").length, 1);
    assert.equal(s.trail.filter((e) => e.event === "released").length, 1);
    const [c] = await crossings(t, courier, waybill);
    assert.deepEqual(c!.history.map((h) => h.action), ["clear", "release"]);
    // Another clearance is still refused: only the one recorded is answered again.
    const other = await move(
      t,
      courier,
      id,
      { action: "clear", customs_reference: "SARS-89" },
      422,
    );
    assert.equal(other.code, "crossing_closed");
  }));

Deno.test("customs: a release whose scan and alert a crash lost is completed by its retry, also after the clearance", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await grantScopes(t, courier, "customs:approve");
    const waybill = await bookWaybill(t, client, CROSS_BORDER);
    const id = await present(t, courier, waybill);
    await vehicleLeft(t.env.runtime, courier.business.id, id, "driver:test");
    const release = { action: "release", evidence: "release RN-90" };
    // The process dies after the crossing recorded the release, before the shipment heard it.
    await whileFlaky(t.env, {
      fails: (type, command) =>
        type === "shipment" && (command as { kind: string }).kind === "record",
    }, async () => {
      await move(t, courier, id, release, 500);
    });
    await move(t, courier, id, { action: "clear", customs_reference: "SARS-90" });
    const retried = await move(t, courier, id, release);
    assert.equal(retried.data.replayed, true);
    const s = await shipment(t, courier, waybill);
    assert.equal(s.trail.filter((e) => e.event === "released").length, 1);
    assert.equal(s.trail.filter((e) => e.event === "cleared").length, 1);
    await until(
      t,
      async () => (await alerts(t, courier, "released_awaiting_collection")).length === 1,
      "released awaiting collection",
    );
    assert.equal((await ledger(t, courier, "customs_admin")).length, 1);
  }));

Deno.test("customs: a clearance whose fee a crash kept off the account is booked once without the clearance sent again", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await grantScopes(t, courier, "customs:approve");
    const waybill = await bookWaybill(t, client, CROSS_BORDER);
    const id = await present(t, courier, waybill);
    // The process dies after the crossing recorded the clearance, before the fee was booked.
    const failed = await whileFlaky(t.env, {
      fails: (type, command) =>
        type === "courier_client" && (command as { kind: string }).kind === "post_charge",
    }, async () => {
      await move(t, courier, id, { action: "clear", customs_reference: "SARS-91" }, 500);
    });
    assert.equal(failed, 1);
    // Nobody sends the clearance again: customs releases the goods, and time passes.
    await move(t, courier, id, { action: "release", evidence: "release RN-91" });
    await advance(t, SCAN_CHARGE_RETRY_MS / 1000);
    // spec: courier 2.6 rule 3: one customs-administration entry per crossing cleared.
    await until(
      t,
      async () => (await ledger(t, courier, "customs_admin")).length > 0,
      "the clearance fee booked",
    );
    await billingEvent(t, courier, `customs.cleared:${id}`);
    // spec: courier 2.6 rule 2: booked once, however often it is due or sent again.
    await move(t, courier, id, { action: "clear", customs_reference: "SARS-91" });
    await advance(t, SCAN_CHARGE_RETRY_MS / 1000);
    const charges = await ledger(t, courier, "customs_admin");
    assert.deepEqual(charges.map((c) => [c.reference, c.amount_minor, c.source_event]), [
      [`CUS-${id}`, 7500, `customs.cleared:${id}`],
    ]);
  }));

Deno.test("customs: duties the client's account was too busy to take stay on the crossing and are booked once", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await grantScopes(t, courier, "customs:approve");
    const waybill = await bookWaybill(t, client, CROSS_BORDER);
    const id = await present(t, courier, waybill);
    const duty = {
      action: "duties",
      amount: "40",
      currency: "BWP",
      payer: "client",
      evidence: "SARS receipt 9100",
    };
    // The client's account answers actor_busy (its mailbox full) while the duties are recorded:
    // not now is no refusal, so the duties the courier paid stay on the crossing, due.
    await whileFlaky(t.env, {
      fails: (type, command) =>
        type === "courier_client" && (command as { kind: string }).kind === "post_charge",
      times: Infinity,
      refuse: true,
    }, async () => {
      const busy = await move(t, courier, id, duty, 503);
      assert.equal(busy.code, "actor_busy");
    });
    const [held] = await crossings(t, courier, waybill);
    assert.deepEqual(held!.duties.map((d) => [d.amount, d.payer]), [[40, "client"]]);
    // Nobody sends the duties again: they are booked once time passes (courier 2.6 rules 2, 3).
    await advance(t, SCAN_CHARGE_RETRY_MS / 1000);
    await until(
      t,
      async () => (await ledger(t, courier, "duties")).length > 0,
      "the duties booked",
    );
    const again = await move(t, courier, id, duty);
    assert.equal(again.data.replayed, true);
    assert.equal(again.data.charge_reference, `DUT-${id}-1`);
    await advance(t, SCAN_CHARGE_RETRY_MS / 1000);
    const duties = await ledger(t, courier, "duties");
    assert.deepEqual(duties.map((d) => [d.reference, d.amount_minor]), [[`DUT-${id}-1`, 4000]]);
  }));

Deno.test("customs: a hold sent again after the crossing moved on answers the hold recorded and changes nothing", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await grantScopes(t, courier, "customs:approve");
    const waybill = await bookWaybill(t, client, CROSS_BORDER);
    const id = await present(t, courier, waybill);
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

Deno.test("customs: duties the client's account refuses are not recorded on the crossing; sent again once it takes them, booked once", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client, CROSS_BORDER);
    const id = await present(t, courier, waybill);
    // The account holds as many charges awaiting an FX rate as it keeps (size bound: 80).
    for (let n = 1; n <= UNRESOLVED_FX_MAX; n++) {
      await postCharge(t, courier, client, {
        reference: `OLD-${n}`,
        entry_kind: "duties",
        amount_minor: 1_000,
        currency: "ZAR",
        evidence_path: `receipt ${n}`,
        recoverable: true,
      });
    }
    const duty = {
      action: "duties",
      amount: "300.00",
      currency: "ZAR",
      payer: "client",
      evidence: "SARS receipt 9100",
    };
    // spec: courier 2.6 rule 4: a conversion without a rate awaits one; the account takes no more.
    const refused = await move(t, courier, id, duty, 422);
    assert.equal(refused.code, "unresolved_fx_limit");
    // Refused: nothing changed, the crossing claims no duty the client was not charged.
    let [c] = await crossings(t, courier, waybill);
    assert.deepEqual(c!.history, []);
    assert.deepEqual(c!.duties, []);
    assert.deepEqual(await ledger(t, courier, "duties").then((d) => d.map((e) => e.reference)), [
      ...Array.from({ length: UNRESOLVED_FX_MAX }, (_, i) => `OLD-${i + 1}`),
    ]);
    // Once a conversion is resolved, the same duties sent again are booked, once.
    const resolved = await billingAction(t, courier, client, "resolve-fx", {
      entry_reference: "OLD-1",
      rate: "0.75",
      source: "central bank",
    });
    assert.equal(resolved.status, 201, JSON.stringify(resolved.body));
    const booked = await move(t, courier, id, duty);
    assert.equal(booked.data.replayed, false);
    assert.equal(booked.data.charge_reference, `DUT-${id}-1`);
    const again = await move(t, courier, id, duty);
    assert.equal(again.data.replayed, true);
    [c] = await crossings(t, courier, waybill);
    assert.deepEqual(c!.history.map((h) => h.action), ["duties"]);
    assert.deepEqual(c!.duties.map((d) => [d.amount, d.payer]), [[300, "client"]]);
    const mine = (await ledger(t, courier, "duties")).filter((e) => e.reference.startsWith("DUT"));
    assert.deepEqual(mine.map((e) => [e.reference, e.amount_minor, e.currency, e.status]), [
      [`DUT-${id}-1`, 30_000, "ZAR", "unresolved_fx"],
    ]);
  }));

Deno.test("customs: a crossing cleared before the border stop presents it leaves nothing open with customs", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await grantScopes(t, courier, "customs:approve");
    const customsObligations = async (waybill: string) =>
      (await shipment(t, courier, waybill)).obligations.filter((o) =>
        o.milestone.startsWith("customs")
      );
    // Customs clears (or releases) the shipment on its booking crossing before it reaches the
    // border: pre-arrival processing.
    for (
      const body of [
        { action: "clear", customs_reference: "PRE-1" },
        { action: "release", evidence: "pre-arrival release PRE-2" },
      ]
    ) {
      const waybill = await bookWaybill(t, client, CROSS_BORDER);
      const [booked] = await crossings(t, courier, waybill);
      await move(t, courier, booked!.id, body);
      assert.equal((await shipment(t, courier, waybill)).status, "cleared");
      // The border stop presents it: custody moves to the border, and customs owes nothing more
      // (courier 3.2: customs_clearance closes when cleared or released).
      assert.equal(await present(t, courier, waybill), booked!.id);
      const s = await shipment(t, courier, waybill);
      assert.deepEqual(await customsObligations(waybill), [], JSON.stringify(body));
      assert.notEqual(s.health, "waiting_customs", JSON.stringify(body));
      assert.equal(s.status, "cleared", JSON.stringify(body));
      assert.equal(s.trail.filter((e) => e.event === "presented_to_customs").length, 1);
      // Presented again (a retry): nothing more.
      await present(t, courier, waybill);
      assert.deepEqual(await customsObligations(waybill), []);
      assert.equal(
        (await shipment(t, courier, waybill)).trail.length,
        s.trail.length,
        "a retry records nothing",
      );
    }
  }));

Deno.test("customs: duties whose charge a crash kept off the account are booked once without the duties sent again", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client, CROSS_BORDER);
    const id = await present(t, courier, waybill);
    const duty = {
      action: "duties",
      amount: "125.50",
      currency: "BWP",
      payer: "client",
      evidence: "SARS receipt 9200",
    };
    // The process dies after the crossing recorded the duties, before the ledger booked them.
    const failed = await whileFlaky(t.env, {
      fails: (type, command) =>
        type === "courier_client" && (command as { kind: string }).kind === "post_charge",
    }, async () => {
      await move(t, courier, id, duty, 500);
    });
    assert.equal(failed, 1);
    const [c] = await crossings(t, courier, waybill);
    assert.deepEqual(c!.duties.map((d) => [d.amount, d.payer]), [[125.5, "client"]]);
    // Nobody sends the duties again; time passes.
    await advance(t, SCAN_CHARGE_RETRY_MS / 1000);
    // spec: courier 2.6 rules 2, 3: the duties the crossing records are on the client's account,
    // once, however often they are due or sent again.
    await until(
      t,
      async () => (await ledger(t, courier, "duties")).length > 0,
      "the duties booked",
    );
    await billingEvent(t, courier, `customs.duties:${id}`);
    const again = await move(t, courier, id, duty);
    assert.equal(again.data.replayed, true);
    await advance(t, SCAN_CHARGE_RETRY_MS / 1000);
    const duties = await ledger(t, courier, "duties");
    assert.deepEqual(
      duties.map((d) => [d.reference, d.amount_minor, d.recoverable, d.source_event]),
      [
        [`DUT-${id}-1`, 12550, true, `customs.duties:${id}`],
      ],
    );
  }));

Deno.test("customs: the same duties sent again in other words are the duties recorded, booked once", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client, CROSS_BORDER);
    const id = await present(t, courier, waybill);
    const duty = {
      action: "duties",
      amount: "125.50",
      currency: "BWP",
      payer: "client",
      evidence: "SARS receipt 9300",
    };
    await move(t, courier, id, { ...duty, reason: "excise" });
    // spec: courier 2.6 rule 2: the same duties (amount, currency, payer, receipt) retyped with
    // another reason, or none, are one event: booked once.
    for (const reason of ["excise and VAT", null]) {
      const again = await move(t, courier, id, { ...duty, reason });
      assert.equal(again.data.replayed, true, JSON.stringify(again.data.move));
      assert.equal(again.data.charge_reference, `DUT-${id}-1`);
    }
    const [c] = await crossings(t, courier, waybill);
    assert.equal(c!.duties.length, 1);
    assert.deepEqual(
      (await ledger(t, courier, "duties")).map((d) => d.reference),
      [`DUT-${id}-1`],
    );
  }));
