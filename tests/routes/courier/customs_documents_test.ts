/**
 * Customs holds and papers (courier 2.9, 3.2, 4.5): a plain hold waits on customs, a request for
 * documents on the courier until papers put it back, one clearance charge; who may supply papers
 * (another courier finds nothing, a driver only for what they carry).
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { bookWaybill, newCourier, newDriver } from "../../helpers/courier.ts";
import { until } from "../../helpers/receiver.ts";
import { openCrossing } from "../../../src/courier/flows/customs.ts";
import { asApiError } from "../../../src/http/errors.ts";
import {
  alerts,
  billingEvent,
  CROSS_BORDER,
  crossings,
  ledger,
  move,
  presented,
  shipment,
  supply,
} from "./customs_fixtures.ts";

Deno.test("customs: a plain hold waits on customs; only a request for documents puts papers on the courier", () =>
  withTestEnv(async (t) => {
    const { courier, client, waybill, id } = await presented(t);
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
    const { courier, client, waybill, id } = await presented(t, { customs: true });

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

Deno.test("customs: another courier finds nothing; a driver supplies only for what they carry", () =>
  withTestEnv(async (t) => {
    const { courier, waybill, id } = await presented(t);
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
    const { courier, waybill, id } = await presented(t);
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
