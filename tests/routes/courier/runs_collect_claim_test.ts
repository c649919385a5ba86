/**
 * A collection claims its shipment as a deliver stop does (courier 3.4: one shipment, one run
 * that carries it out): collected on an open run, it is planned on no other until that run ends
 * its item there; planned on one, it is collected by no other. Of two at once, one wins; a claim
 * a crash left before the run recorded the collection blocks no other run.
 */
import assert from "node:assert/strict";
import { networkRunActor, NO_LOAD } from "../../../actors/courier/network_run/mod.ts";
import { shipmentRunsActor } from "../../../actors/courier/shipment_runs.ts";
import { boardRun } from "../../../src/courier/flows/runs/mod.ts";
import type { TestEnv } from "../../helpers/test_env.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { bookWaybill, type Client, type Courier } from "../../helpers/courier.ts";
import { collectStop, newRun, post, ready } from "./runs_fixtures.ts";

/** Adds a deliver stop for the shipment on the run; answers the route's answer. */
function planOn(t: TestEnv, courier: Courier, run: string, waybill: string) {
  return t.call("POST", `/business/network-runs/${run}/stops`, {
    key: courier.business.api_key,
    body: { kind: "deliver", waybill },
  });
}

/** Collects the shipment at the stop; answers the route's answer. */
function collectAt(t: TestEnv, courier: Courier, at: { run: string; stop: string }, w: string) {
  return t.call("POST", `/business/network-runs/${at.run}/stops/${at.stop}/collect`, {
    key: courier.business.api_key,
    body: { waybill: w, idempotency_key: `c-${at.stop}-${w}` },
  });
}

/** A run with a collect stop for the client's work order; answers both ids. */
async function collectingRun(t: TestEnv, courier: Courier, client: Client) {
  const run = await newRun(t, courier);
  return { run, stop: await collectStop(t, courier, run, client, { kg: 5, pieces: 2 }) };
}

/** The run's items, as waybill and state. */
async function itemsOf(t: TestEnv, courier: Courier, run: string) {
  const r = await t.call("GET", `/business/network-runs/${run}`, {
    key: courier.business.api_key,
  });
  return r.body.data.items.map((i: { waybill: string; state: string }) => [i.waybill, i.state]);
}

Deno.test("runs collect claim: a shipment collected on an open run is not planned on another until that run unloads it", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const trunk = await collectingRun(t, courier, client);
    const other = await newRun(t, courier);
    const waybill = await bookWaybill(t, client);
    assert.equal((await collectAt(t, courier, trunk, waybill)).status, 200);
    // spec: courier 3.4: the trunk's driver has it on board: no other driver carries it out.
    const refused = await planOn(t, courier, other, waybill);
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(refused.body.code, "planned_on_another_run");
    assert.match(refused.body.message, new RegExp(trunk.run));
    assert.deepEqual(await itemsOf(t, courier, other), []);
    // Unloaded at the depot, its item there is done: another run plans its delivery.
    for (const step of ["depart", "arrive", "unload"]) {
      await post(t, courier, `/business/network-runs/${trunk.run}/${step}`, {});
    }
    const planned = await planOn(t, courier, other, waybill);
    assert.equal(planned.status, 201, JSON.stringify(planned.body));
    assert.deepEqual(await itemsOf(t, courier, other), [[waybill, "planned"]]);
  }));

Deno.test("runs collect claim: a shipment planned for delivery on an open run is not collected on another", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const delivering = await newRun(t, courier);
    const collecting = await collectingRun(t, courier, client);
    const waybill = await bookWaybill(t, client);
    assert.equal((await planOn(t, courier, delivering, waybill)).status, 201);
    const refused = await collectAt(t, courier, collecting, waybill);
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(refused.body.code, "planned_on_another_run");
    assert.match(refused.body.message, new RegExp(delivering));
    assert.deepEqual(await itemsOf(t, courier, collecting.run), []);
  }));

Deno.test("runs collect claim: a collection and a deliver stop on the same run keep the run's own claim", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const run = await collectingRun(t, courier, client);
    const [collected, planned] = [await bookWaybill(t, client), await bookWaybill(t, client)];
    assert.equal((await collectAt(t, courier, run, collected)).status, 200);
    assert.equal((await planOn(t, courier, run.run, planned)).status, 201);
    // A deliver stop for the one it collected meets the run's own claim: refused only as one
    // item per shipment on a run, as before claims were taken.
    const same = await planOn(t, courier, run.run, collected);
    assert.equal(same.body.code, "already_on_run", JSON.stringify(same.body));
    // The collection sent again (lost signal) answers as it did.
    assert.equal((await collectAt(t, courier, run, collected)).status, 200);
    const r = await t.env.runtime.read(shipmentRunsActor, courier.business.id, collected, {
      kind: "get",
    });
    assert.equal(r.ok ? r.reply.planned_on?.run_id : null, run.run);
  }));

Deno.test("runs collect claim: a collection and a deliver stop on another run at once: exactly one holds the shipment", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const collecting = await collectingRun(t, courier, client);
    const delivering = await newRun(t, courier);
    const waybill = await bookWaybill(t, client);
    const answers = await Promise.all([
      collectAt(t, courier, collecting, waybill),
      planOn(t, courier, delivering, waybill),
    ]);
    const ok = answers.filter((a) => a.status < 300);
    assert.equal(ok.length, 1, JSON.stringify(answers.map((a) => a.body)));
    const loser = answers.find((a) => a.status >= 300)!;
    assert.equal(loser.status, 409, JSON.stringify(loser.body));
    assert.equal(loser.body.code, "planned_on_another_run");
    const carried = [
      ...await itemsOf(t, courier, collecting.run),
      ...await itemsOf(t, courier, delivering),
    ];
    assert.equal(carried.length, 1, JSON.stringify(carried));
  }));

Deno.test("runs collect claim: a claim a crash left before the run recorded the collection blocks no other run; its retry completes or is refused", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const tenant = courier.business.id;
    const [first, second] = [
      await collectingRun(t, courier, client),
      await collectingRun(t, courier, client),
    ];
    const [lost, kept] = [await bookWaybill(t, client), await bookWaybill(t, client)];
    // Each claimed for the first run, recorded before a crash kept the run from collecting.
    for (const waybill of [lost, kept]) {
      const claim = { kind: "plan", run_id: first.run } as const;
      assert.ok((await t.env.runtime.ask(shipmentRunsActor, tenant, waybill, claim)).ok);
    }
    // Another run takes the one over; the first run's retry is refused, no item left there.
    assert.equal((await planOn(t, courier, second.run, lost)).status, 201);
    const late = await collectAt(t, courier, first, lost);
    assert.equal(late.status, 409, JSON.stringify(late.body));
    assert.equal(late.body.code, "planned_on_another_run");
    assert.match(late.body.message, new RegExp(second.run));
    // The other one, left alone, is collected by the retry under the claim it left.
    assert.equal((await collectAt(t, courier, first, kept)).status, 200);
    assert.deepEqual(await itemsOf(t, courier, first.run), [[kept, "on_board"]]);
  }));

Deno.test("runs collect claim: a shipment collected before collections took claims is not planned on another run while the first carries it", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const tenant = courier.business.id;
    const first = await collectingRun(t, courier, client);
    const second = await newRun(t, courier);
    const waybill = await bookWaybill(t, client);
    // Collected as runs collected then: boarded, no claim taken.
    await boardRun(t.env.runtime, tenant, waybill, first.run);
    const collected = await t.env.runtime.ask(networkRunActor, tenant, first.run, {
      kind: "stop_collect",
      stop_id: first.stop,
      waybill,
      labels: [],
      load: NO_LOAD,
      override_reason: null,
      by: "api_key",
    });
    assert.ok(collected.ok, JSON.stringify(collected));
    // spec: courier 3.4: one run carries a shipment out at a time.
    const refused = await planOn(t, courier, second, waybill);
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(refused.body.code, "planned_on_another_run");
    assert.match(refused.body.message, new RegExp(first.run));
    assert.deepEqual(await itemsOf(t, courier, second), []);
    // The first run carries it on under the claim taken for it.
    const claims = await t.env.runtime.read(shipmentRunsActor, tenant, waybill, { kind: "get" });
    assert.equal(claims.ok && claims.reply.planned_on?.run_id, first.run);
  }));
