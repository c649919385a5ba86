/**
 * A transfer respects the shipment's claim (courier 3.4: one shipment, one run that carries it
 * out): a run that handed a shipment over (unloaded at a depot) and saw another run plan its
 * delivery transfers it to no third run; a run that has it open transfers it on purpose and the
 * claim passes to the target. Of a transfer and a deliver stop at once, one run holds it.
 */
import assert from "node:assert/strict";
import { shipmentRunsActor } from "../../../actors/courier/shipment_runs.ts";
import type { TestEnv } from "../../helpers/test_env.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { whileFlaky } from "../../helpers/faults.ts";
import { bookWaybill, type Courier } from "../../helpers/courier.ts";
import { collectStop, newRun, post, ready } from "./runs_fixtures.ts";

/** Adds a deliver stop for the shipment on the run; answers the route's answer. */
function planOn(t: TestEnv, courier: Courier, run: string, waybill: string) {
  return t.call("POST", `/business/network-runs/${run}/stops`, {
    key: courier.business.api_key,
    body: { kind: "deliver", waybill },
  });
}

/** Transfers the shipment from run `from` to run `to`; answers the route's answer. */
function transferOn(t: TestEnv, courier: Courier, from: string, to: string, waybill: string) {
  return t.call("POST", `/business/network-runs/${from}/transfer`, {
    key: courier.business.api_key,
    body: { waybills: [waybill], to_run: to },
  });
}

/** The run's items, as waybill and state. */
async function itemsOf(t: TestEnv, courier: Courier, run: string) {
  const r = await t.call("GET", `/business/network-runs/${run}`, {
    key: courier.business.api_key,
  });
  return r.body.data.items.map((i: { waybill: string; state: string }) => [i.waybill, i.state]);
}

/** The run the shipment's claim names, or null. */
async function claimOf(t: TestEnv, courier: Courier, waybill: string) {
  const r = await t.env.runtime.read(shipmentRunsActor, courier.business.id, waybill, {
    kind: "get",
  });
  return r.ok ? r.reply.planned_on?.run_id ?? null : null;
}

/** A trunk run that collected a new shipment; `unload`: then departed, arrived and unloaded it. */
async function trunkWith(t: TestEnv, unload: boolean) {
  const [courier, client] = await ready(t);
  const trunk = await newRun(t, courier);
  const stop = await collectStop(t, courier, trunk, client, { kg: 5, pieces: 2 });
  const waybill = await bookWaybill(t, client);
  await post(t, courier, `/business/network-runs/${trunk}/stops/${stop}/collect`, {
    waybill,
    idempotency_key: `c-${waybill}`,
  });
  if (unload) {
    for (const step of ["depart", "arrive", "unload"]) {
      await post(t, courier, `/business/network-runs/${trunk}/${step}`, {});
    }
  }
  return { courier, trunk, waybill };
}

Deno.test("runs transfer claim: a shipment another run planned after this run handed it over is not transferred to a third", () =>
  withTestEnv(async (t) => {
    const { courier, trunk, waybill } = await trunkWith(t, true);
    const [delivering, third] = [await newRun(t, courier), await newRun(t, courier)];
    assert.equal((await planOn(t, courier, delivering, waybill)).status, 201);
    const refused = await transferOn(t, courier, trunk, third, waybill);
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(refused.body.code, "planned_on_another_run");
    assert.match(refused.body.message, new RegExp(delivering));
    // Nothing taken by the third run, nothing changed on the trunk.
    assert.deepEqual(await itemsOf(t, courier, third), []);
    assert.deepEqual(await itemsOf(t, courier, trunk), [[waybill, "unloaded"]]);
    assert.deepEqual(await itemsOf(t, courier, delivering), [[waybill, "planned"]]);
    assert.equal(await claimOf(t, courier, waybill), delivering);
  }));

Deno.test("runs transfer claim: a shipment on board transferred on purpose passes its claim to the target", () =>
  withTestEnv(async (t) => {
    const { courier, trunk, waybill } = await trunkWith(t, false);
    const [to, other] = [await newRun(t, courier), await newRun(t, courier)];
    const moved = await transferOn(t, courier, trunk, to, waybill);
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.deepEqual(await itemsOf(t, courier, to), [[waybill, "planned"]]);
    // The target has it open: no other run plans it, nor does the trunk transfer it again.
    const planned = await planOn(t, courier, other, waybill);
    assert.equal(planned.status, 409, JSON.stringify(planned.body));
    assert.match(planned.body.message, new RegExp(to));
    const again = await transferOn(t, courier, trunk, other, waybill);
    assert.equal(again.status, 422, JSON.stringify(again.body));
    assert.equal(again.body.code, "not_transferable");
    assert.deepEqual(await itemsOf(t, courier, other), []);
  }));

Deno.test("runs transfer claim: a transfer refused by its target leaves the claim with the run that has the shipment", () =>
  withTestEnv(async (t) => {
    const { courier, trunk, waybill } = await trunkWith(t, false);
    const small = await newRun(t, courier, { capacity: { kg: 1, m3: 1, pieces: 10 } });
    const full = await transferOn(t, courier, trunk, small, waybill);
    assert.equal(full.status, 422, JSON.stringify(full.body));
    assert.equal(full.body.code, "capacity_exceeded");
    assert.equal(await claimOf(t, courier, waybill), trunk);
    const planned = await planOn(t, courier, await newRun(t, courier), waybill);
    assert.equal(planned.status, 409, JSON.stringify(planned.body));
    assert.match(planned.body.message, new RegExp(trunk));
  }));

Deno.test("runs transfer claim: a transfer of a shipment handed over and a deliver stop for it at once: exactly one run holds it", () =>
  withTestEnv(async (t) => {
    for (const transferFirst of [true, false]) {
      const { courier, trunk, waybill } = await trunkWith(t, true);
      const [delivering, third] = [await newRun(t, courier), await newRun(t, courier)];
      const moving = () => transferOn(t, courier, trunk, third, waybill);
      const planning = () => planOn(t, courier, delivering, waybill);
      const [moved, planned] = transferFirst
        ? await Promise.all([moving(), planning()])
        : await Promise.all([planning(), moving()]).then(([p, m]) => [m, p] as const);
      const answers = JSON.stringify([moved.body, planned.body]);
      assert.equal([moved, planned].filter((a) => a.status < 300).length, 1, answers);
      const loser = moved.status < 300 ? planned : moved;
      assert.equal(loser.status, 409, answers);
      assert.equal(loser.body.code, "planned_on_another_run");
      const open = [...await itemsOf(t, courier, delivering), ...await itemsOf(t, courier, third)];
      assert.equal(open.length, 1, JSON.stringify(open));
      assert.equal(await claimOf(t, courier, waybill), moved.status < 300 ? third : delivering);
      const trunkItems = await itemsOf(t, courier, trunk);
      assert.deepEqual(trunkItems, [[waybill, moved.status < 300 ? "transferred" : "unloaded"]]);
    }
  }));

Deno.test("runs transfer claim: two transfers of a shipment on board at once: one target carries it, with its claim", () =>
  withTestEnv(async (t) => {
    const { courier, trunk, waybill } = await trunkWith(t, false);
    const [c, d] = [await newRun(t, courier), await newRun(t, courier)];
    const answers = await Promise.all([
      transferOn(t, courier, trunk, c, waybill),
      transferOn(t, courier, trunk, d, waybill),
    ]);
    const bodies = JSON.stringify(answers.map((a) => a.body));
    assert.equal(answers.filter((a) => a.status === 200).length, 1, bodies);
    assert.ok(answers.every((a) => [200, 409, 422].includes(a.status)), bodies);
    const winner = answers[0].status === 200 ? c : d;
    const carried = [...await itemsOf(t, courier, c), ...await itemsOf(t, courier, d)];
    assert.deepEqual(carried, [[waybill, "planned"]]);
    assert.deepEqual(await itemsOf(t, courier, winner), [[waybill, "planned"]]);
    assert.equal(await claimOf(t, courier, waybill), winner);
    // The same transfer sent twice at once (a retry racing its first send) moves it once.
    const e = await newRun(t, courier);
    const twice = await Promise.all([
      transferOn(t, courier, winner, e, waybill),
      transferOn(t, courier, winner, e, waybill),
    ]);
    assert.deepEqual(twice.map((a) => a.status), [200, 200], JSON.stringify(twice));
    assert.deepEqual(await itemsOf(t, courier, e), [[waybill, "planned"]]);
    assert.equal(await claimOf(t, courier, waybill), e);
  }));

Deno.test("runs transfer claim: a claim passed to the target before a crash kept it from taking the shipment leaves the shipment with the run that has it; the retry completes", () =>
  withTestEnv(async (t) => {
    const { courier, trunk, waybill } = await trunkWith(t, false);
    const [to, other] = [await newRun(t, courier), await newRun(t, courier)];
    const tenant = courier.business.id;
    // Only the first step is committed: the claim passes to the target (planning.ts passClaim).
    const held = await t.env.runtime.read(shipmentRunsActor, tenant, waybill, { kind: "get" });
    const claim = held.ok ? held.reply.planned_on!.claim : 0;
    const pass = { kind: "plan", run_id: to, replacing: claim, from_run: trunk } as const;
    assert.ok((await t.env.runtime.ask(shipmentRunsActor, tenant, waybill, pass)).ok);
    // spec: courier 3.4: the trunk's driver still has it on board: no other run plans it.
    const planned = await planOn(t, courier, other, waybill);
    assert.equal(planned.status, 409, JSON.stringify(planned.body));
    assert.match(planned.body.message, new RegExp(trunk));
    assert.deepEqual(await itemsOf(t, courier, other), []);
    const moved = await transferOn(t, courier, trunk, to, waybill);
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.deepEqual(await itemsOf(t, courier, to), [[waybill, "planned"]]);
    assert.equal(await claimOf(t, courier, waybill), to);
  }));

Deno.test("runs transfer claim: a deliver stop meeting the runs that may have the shipment busy is answered 503, never planned past them", () =>
  withTestEnv(async (t) => {
    const { courier, trunk, waybill } = await trunkWith(t, false);
    const [to, other] = [await newRun(t, courier), await newRun(t, courier)];
    const tenant = courier.business.id;
    // The claim passed to the target, which a crash kept from taking the shipment (as above).
    const held = await t.env.runtime.read(shipmentRunsActor, tenant, waybill, { kind: "get" });
    const claim = held.ok ? held.reply.planned_on!.claim : 0;
    const pass = { kind: "plan", run_id: to, replacing: claim, from_run: trunk } as const;
    assert.ok((await t.env.runtime.ask(shipmentRunsActor, tenant, waybill, pass)).ok);
    // spec: courier 3.4: a run that cannot be read now is no answer that it has not the shipment.
    // The runs' reads once the claim was asked (the stop's own run is read before).
    let asked = false;
    const runReads = (type: string, command: unknown) => {
      const kind = (command as { kind: string }).kind;
      if (type === shipmentRunsActor.type && kind === "plan") asked = true;
      return asked && type === "network_run" && kind === "get";
    };
    await whileFlaky(t.env, { fails: runReads, times: 100, refuse: true }, async () => {
      const busy = await planOn(t, courier, other, waybill);
      assert.equal(busy.status, 503, JSON.stringify(busy.body));
      assert.equal(busy.body.code, "actor_busy");
    });
    assert.deepEqual(await itemsOf(t, courier, other), []);
    assert.equal(await claimOf(t, courier, waybill), to);
    const planned = await planOn(t, courier, other, waybill);
    assert.equal(planned.status, 409, JSON.stringify(planned.body));
    assert.match(planned.body.message, new RegExp(trunk));
  }));

Deno.test("runs transfer claim: a transfer refused by its target whose claim cannot be read back now is answered 503, never as given back; its retry gives the claim back", () =>
  withTestEnv(async (t) => {
    const { courier, trunk, waybill } = await trunkWith(t, false);
    const small = await newRun(t, courier, { capacity: { kg: 1, m3: 1, pieces: 10 } });
    // The claim's reads once the target refused (the claim had passed to it: planning.ts).
    let refused = false;
    const claimReads = (type: string, command: unknown) => {
      const kind = (command as { kind: string }).kind;
      if (type === "network_run" && kind === "transfer_in") refused = true;
      return refused && type === shipmentRunsActor.type && kind === "get";
    };
    await whileFlaky(t.env, { fails: claimReads, times: 100, refuse: true }, async () => {
      const busy = await transferOn(t, courier, trunk, small, waybill);
      assert.equal(busy.status, 503, JSON.stringify(busy.body));
      assert.equal(busy.body.code, "actor_busy");
    });
    // spec: courier 3.4: the retry finds the target refusing again and gives the claim back.
    const full = await transferOn(t, courier, trunk, small, waybill);
    assert.equal(full.status, 422, JSON.stringify(full.body));
    assert.equal(full.body.code, "capacity_exceeded");
    assert.equal(await claimOf(t, courier, waybill), trunk);
  }));
