/**
 * A border stop whose load changed before it was recorded (courier 3.4, 3.2, 2.9): the
 * presentation of a shipment that left the run is withdrawn, on its crossing and on the shipment,
 * so the run carrying it now presents it again; a crash or a refusal part way is completed.
 */
import assert from "node:assert/strict";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { bookWaybill } from "../../helpers/courier.ts";
import { advance, until } from "../../helpers/receiver.ts";
import { type Faults, flakyRuntime, whileFlaky } from "../../helpers/faults.ts";
import { withdrawShipmentPresentation } from "../../../src/courier/flows/customs_withdrawn.ts";
import { asApiError } from "../../../src/http/errors.ts";
import {
  alerts,
  CROSS_BORDER,
  crossings,
  move,
  present,
  ready,
  shipment,
} from "./customs_fixtures.ts";
import {
  checkpointStop,
  crossBorderRun,
  deliverStops,
  newRun,
  post,
  runtimeWithGap,
} from "./runs_fixtures.ts";
import { border } from "../../../src/courier/flows/runs/mod.ts";
import { shipmentIn } from "../../../src/courier/flows/shipments.ts";
import { shipmentActor } from "../../../actors/courier/shipment/mod.ts";

/**
 * A run presents its border stop with two shipments; one is handed over to `other` (a second run
 * across the same border, vehicle B 999 ZZZ) before the stop is recorded, so its presentation is
 * withdrawn there. `clearedBefore`: customs cleared its crossing before (pre-arrival);
 * `otherWaits`: the second run has not departed (the shipment does not depart with it);
 * `faults`: the border request's own asks meet them (the request then fails: `failure`);
 * `heldThere`: instead of the handover, customs holds it and the driver reports it customs_hold.
 */
async function leftWhilePresented(
  t: TestEnv,
  o: { clearedBefore?: boolean; otherWaits?: boolean; faults?: Faults; heldThere?: boolean } = {},
) {
  const { courier, run, waybills } = await crossBorderRun(t, 2, { customs: true });
  const [leaving, staying] = waybills as [string, string];
  const checkpoint = await checkpointStop(t, courier, run);
  await deliverStops(t, courier, run, [leaving, staying]);
  await post(t, courier, `/business/network-runs/${run}/depart`, {});
  const other = await newRun(t, courier, { countries: ["BW", "ZA"], vehicle: "B 999 ZZZ" });
  const otherCheckpoint = await checkpointStop(t, courier, other);
  if (!o.otherWaits) await post(t, courier, `/business/network-runs/${other}/depart`, {});
  const [booked] = await crossings(t, courier, leaving);
  if (o.clearedBefore) {
    await move(t, courier, booked!.id, { action: "clear", customs_reference: "PRE" });
  }
  // Presented with both, then the load changed before the stop was recorded: presented again.
  const handOver = async () => {
    if (!o.heldThere) {
      return await post(t, courier, `/business/network-runs/${run}/transfer`, {
        waybills: [leaving],
        to_run: other,
      });
    }
    await move(t, courier, booked!.id, { action: "hold", reason: "x-ray" });
    await post(t, courier, `/business/network-runs/${run}/report`, {
      waybill: leaving,
      condition: "customs_hold",
      note: "held at Tlokweng",
    });
  };
  const runtime = runtimeWithGap(t, "stop_border", handOver);
  const caller = { tenant: courier.business.id, by: "api_key", scopes: [], driver_id: null };
  const asked = o.faults ? flakyRuntime(runtime, o.faults).runtime : runtime;
  let failure: unknown = null;
  const answer = await border({ ...t.env, runtime: asked }, caller, run, checkpoint, {})
    .catch((e) => {
      if (!o.faults) throw e;
      failure = e;
      return undefined;
    });
  return {
    failure,
    courier,
    run,
    checkpoint,
    leaving,
    staying,
    booked: booked!,
    answer,
    other,
    otherCheckpoint,
  };
}

Deno.test("customs: a shipment that left the run while its border stop was presented is withdrawn there; the run carrying it now presents the same crossing", () =>
  withTestEnv(async (t) => {
    const { courier, leaving, booked, answer, other, otherCheckpoint } = await leftWhilePresented(
      t,
    );
    assert.equal(answer!.stop.status, "presented");
    assert.equal(answer!.stop.crossings.length, 1);
    // spec: courier 3.4: the stop presented what it carried: the crossing of the shipment that
    // left is bound to no stop, free for the run that carries it now.
    const [withdrawn, ...none] = await crossings(t, courier, leaving);
    assert.deepEqual(none, []);
    assert.equal(withdrawn!.id, booked.id);
    assert.deepEqual([withdrawn!.run_id, withdrawn!.stop_id], [null, null]);
    assert.equal(withdrawn!.border_post, booked.border_post);
    await post(t, courier, `/business/network-runs/${other}/stops/${otherCheckpoint}/border`, {});
    const [atOther, ...noSecond] = await crossings(t, courier, leaving);
    assert.deepEqual(noSecond, [], "one crossing, one clearance");
    assert.deepEqual([atOther!.id, atOther!.run_id, atOther!.stop_id], [
      booked.id,
      other,
      otherCheckpoint,
    ]);
  }));

Deno.test("customs: the shipment's presentation follows its crossing: presented again by the run carrying it, it is recorded with that run's holder and time", () =>
  withTestEnv(async (t) => {
    const { courier, leaving, other, otherCheckpoint } = await leftWhilePresented(t);
    const tenant = courier.business.id;
    t.clock.advanceBy(45 * 60_000);
    const presentedAt = t.clock.now();
    await post(t, courier, `/business/network-runs/${other}/stops/${otherCheckpoint}/border`, {});
    // spec: courier 3.4, 3.2: the presentation that counts is the one at the stop that carried
    // it across; customs_clearance runs from it, and the pieces are with that run's vehicle.
    const s = await shipmentIn(t.env.runtime, tenant, leaving);
    const last = s.trail.filter((e) => e.event === "presented_to_customs").at(-1)!;
    assert.deepEqual([last.at, last.holder], [presentedAt, "vehicle:B 999 ZZZ"]);
    const clearance = s.milestones.find((m) => m.name === "customs_clearance");
    assert.equal(clearance?.opened_at, presentedAt, JSON.stringify(s.milestones));
    assert.deepEqual(s.pieces.map((p) => p.holder), s.pieces.map(() => "vehicle:B 999 ZZZ"));
    // Presented again (a lost answer): recorded once.
    const before = s.trail.length;
    await post(t, courier, `/business/network-runs/${other}/stops/${otherCheckpoint}/border`, {});
    assert.equal((await shipmentIn(t.env.runtime, tenant, leaving)).trail.length, before);
  }));

Deno.test("customs: a crossing cleared before arrival, presented again by the run carrying it after its first presentation was withdrawn, leaves nothing open with customs", () =>
  withTestEnv(async (t) => {
    const { courier, leaving, other, otherCheckpoint } = await leftWhilePresented(t, {
      clearedBefore: true,
    });
    await post(t, courier, `/business/network-runs/${other}/stops/${otherCheckpoint}/border`, {});
    // spec: courier 3.2: customs_clearance closes when cleared: the presentation that opened it
    // again is closed by the clearance again.
    const s = await shipment(t, courier, leaving);
    assert.deepEqual(s.obligations.filter((o) => o.milestone.startsWith("customs")), []);
    assert.equal(s.status, "cleared");
  }));

Deno.test("customs: a presentation withdrawn from its crossing is withdrawn on the shipment: the customs_clearance it opened is taken back, the headline is the one before it, the trail keeps both; sent again, nothing more", () =>
  withTestEnv(async (t) => {
    const { courier, run, checkpoint, leaving, staying, booked } = await leftWhilePresented(t, {
      otherWaits: true,
    });
    const tenant = courier.business.id;
    // spec: courier 3.2: customs_clearance opens when presented; this presentation did not
    // happen, so it is not open (nor cleared), and the headline is the one it had before.
    const s = await shipmentIn(t.env.runtime, tenant, leaving);
    assert.deepEqual(s.milestones.filter((m) => m.name.startsWith("customs")), []);
    assert.equal(s.status, "in_transit");
    assert.notEqual(s.health, "waiting_customs");
    const customsLines = s.trail.map((e) => e.event).filter((e) =>
      e === "presented_to_customs" || e === "presentation_withdrawn"
    );
    assert.deepEqual(customsLines, ["presented_to_customs", "presentation_withdrawn"]);
    // The shipment still on board stays presented.
    const kept = await shipmentIn(t.env.runtime, tenant, staying);
    assert.equal(kept.status, "customs_processing");
    assert.ok(kept.milestones.some((m) => m.name === "customs_clearance"));
    // Sent again (a retry of the request, or of the actor's command): nothing more.
    const at = { waybill: leaving, crossing_id: booked.id, run_id: run, stop_id: checkpoint };
    await withdrawShipmentPresentation(t.env.runtime, tenant, { ...at, by: "api_key" });
    const again = await t.env.runtime.ask(shipmentActor, tenant, leaving, {
      kind: "withdraw_presentation",
      presentation: { crossing_id: booked.id, run_id: run, stop_id: checkpoint },
      by: "api_key",
    });
    assert.ok(again.ok);
    assert.equal((await shipmentIn(t.env.runtime, tenant, leaving)).trail_total, s.trail_total);
    // spec: courier 2.9: no deadline of the clearance that did not happen runs on to alerts.
    await advance(t, 10 * 24 * 3600);
    await until(
      t,
      async () =>
        (await alerts(t, courier, "customs_wait_exceeded")).some((a) => a.waybill === staying),
      "the shipment still presented waits on customs past its wait",
    );
    const overdue = await alerts(t, courier, "milestone_overdue");
    const customsOverdue = overdue.filter((a) => a.detail.milestone === "customs_clearance");
    assert.deepEqual(customsOverdue.map((a) => a.waybill), [staying]);
    const waits = await alerts(t, courier, "customs_wait_exceeded");
    assert.ok(waits.every((a) => a.waybill === staying), JSON.stringify(waits));
  }));

Deno.test("customs: a shipment whose presentation was withdrawn reads as not with customs through the operations API; the run carrying it now presents it again", () =>
  withTestEnv(async (t) => {
    const { courier, leaving, other, otherCheckpoint } = await leftWhilePresented(t);
    const s = await shipment(t, courier, leaving);
    assert.deepEqual(s.obligations.filter((o) => o.milestone.startsWith("customs")), []);
    assert.equal(s.status, "in_transit");
    assert.equal(s.trail.at(-1)!.event, "presentation_withdrawn");
    await post(t, courier, `/business/network-runs/${other}/stops/${otherCheckpoint}/border`, {});
    const again = await shipment(t, courier, leaving);
    assert.equal(again.status, "customs_processing");
    assert.deepEqual(
      again.obligations.filter((o) => o.milestone.startsWith("customs")).map((o) => o.milestone),
      ["customs_clearance"],
    );
  }));

Deno.test("customs: a border request that stops after the crossing withdrew a presentation and before the shipment did still has it withdrawn on the shipment", () =>
  withTestEnv(async (t) => {
    // The request's own withdrawal on the shipment is refused (a full mailbox, or the request
    // dies there): the crossing's withdrawal is committed, and nothing in a retry of the request
    // names the shipment that left.
    const withdrawal = (type: string, command: unknown) =>
      type === shipmentActor.type &&
      (command as { kind: string }).kind === "withdraw_presentation";
    const { courier, leaving, failure } = await leftWhilePresented(t, {
      otherWaits: true,
      faults: { fails: withdrawal, times: 100, refuse: true },
    });
    assert.equal(asApiError(failure)?.code, "actor_busy", String(failure));
    await t.settle();
    // spec: courier 3.2, 3.4: the commit that withdrew it from the crossing finishes it.
    const s = await shipmentIn(t.env.runtime, courier.business.id, leaving);
    assert.deepEqual(s.milestones.filter((m) => m.name.startsWith("customs")), []);
    assert.equal(s.status, "in_transit");
    assert.equal(s.trail.filter((e) => e.event === "presentation_withdrawn").length, 1);
  }));

Deno.test("customs: a presentation customs holds the shipment under stays where it is held when the shipment leaves the run before the stop is recorded", () =>
  withTestEnv(async (t) => {
    const { courier, run, checkpoint, leaving, booked, answer } = await leftWhilePresented(t, {
      heldThere: true,
    });
    // The stop went on with the other shipment's crossing alone.
    assert.equal(answer!.stop.crossings.length, 1);
    assert.ok(!answer!.stop.crossings.includes(booked.id));
    // spec: courier 3.4, 3.2: customs holds it at that border stop: it was presented there, and
    // customs_clearance runs on (customs owns the wait, 2.9 customs_wait_exceeded).
    const [held] = await crossings(t, courier, leaving);
    assert.deepEqual([held!.id, held!.run_id, held!.stop_id], [booked.id, run, checkpoint]);
    const s = await shipmentIn(t.env.runtime, courier.business.id, leaving);
    assert.equal(s.status, "customs_hold");
    assert.ok(s.milestones.some((m) => m.name === "customs_clearance"), JSON.stringify(s));
    assert.ok(!s.trail.some((e) => e.event === "presentation_withdrawn"));
  }));

Deno.test("customs: a border request refused before it withdrew the presentation of a shipment that left has it withdrawn by its retry; the run carrying it now presents the same crossing", () =>
  withTestEnv(async (t) => {
    // The crossing's withdrawal is refused (a full mailbox): the request fails, and its retry
    // knows nothing of what the first presented.
    const withdrawal = (type: string, command: unknown) =>
      type === "customs_crossing" &&
      (command as { kind: string }).kind === "withdraw_presentation";
    const { courier, run, checkpoint, leaving, booked, failure, other, otherCheckpoint } =
      await leftWhilePresented(t, { faults: { fails: withdrawal, times: 100, refuse: true } });
    assert.equal(asApiError(failure)?.code, "actor_busy", String(failure));
    const retried = await post(
      t,
      courier,
      `/business/network-runs/${run}/stops/${checkpoint}/border`,
      {},
    );
    assert.equal(retried.data.stop.crossings.length, 1);
    await t.settle();
    // spec: courier 3.4: presented with what it carries: the crossing is free for the run that
    // carries the shipment now, and the shipment no longer with customs (3.2).
    const [freed] = await crossings(t, courier, leaving);
    assert.deepEqual([freed!.id, freed!.run_id, freed!.stop_id], [booked.id, null, null]);
    const s = await shipment(t, courier, leaving);
    assert.deepEqual(s.obligations.filter((o) => o.milestone.startsWith("customs")), []);
    await post(t, courier, `/business/network-runs/${other}/stops/${otherCheckpoint}/border`, {});
    const [atOther, ...noSecond] = await crossings(t, courier, leaving);
    assert.deepEqual(noSecond, [], "one crossing, one clearance");
    assert.deepEqual([atOther!.run_id, atOther!.stop_id], [other, otherCheckpoint]);
  }));

Deno.test("customs: a border stop that cannot reach the shipment's booking crossing now is refused 503 and opens no second crossing; its retry presents the booking crossing", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const waybill = await bookWaybill(t, client, CROSS_BORDER);
    const [booked] = await crossings(t, courier, waybill);
    const presenting = (type: string, command: unknown) =>
      type === "customs_crossing" && (command as { kind: string }).kind === "present";
    // spec: courier 3.4, CONTRACT one crossing at booking: a busy crossing is no answer that it
    // was presented elsewhere.
    await whileFlaky(t.env, { fails: presenting, times: 1, refuse: true }, async () => {
      await assert.rejects(
        () => present(t, courier, waybill),
        (e: unknown) => asApiError(e)?.code === "actor_busy",
      );
    });
    assert.deepEqual((await crossings(t, courier, waybill)).map((c) => c.id), [booked!.id]);
    assert.equal(await present(t, courier, waybill), booked!.id);
    assert.deepEqual((await crossings(t, courier, waybill)).map((c) => c.id), [booked!.id]);
  }));

Deno.test("customs: a shipment that left the run while a second border stop presented it at that stop's own crossing is withdrawn there; the presentation at the first border stands", () =>
  withTestEnv(async (t) => {
    const { courier, run, waybills } = await crossBorderRun(t, 2, { customs: true });
    const [leaving, staying] = waybills as [string, string];
    const first = await checkpointStop(t, courier, run);
    const added = await post(t, courier, `/business/network-runs/${run}/stops`, {
      kind: "checkpoint",
      country: "ZA",
      to_country: "MZ",
      border_post: "Lebombo",
    }, 201);
    const second = added.data.stops.at(-1).id as string;
    await deliverStops(t, courier, run, [leaving, staying]);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    await post(t, courier, `/business/network-runs/${run}/stops/${first}/border`, {});
    const tenant = courier.business.id;
    t.clock.advanceBy(60 * 60_000);
    const firstClearance = (await shipmentIn(t.env.runtime, tenant, leaving)).milestones
      .find((m) => m.name === "customs_clearance")!;
    const other = await newRun(t, courier, { countries: ["ZA", "MZ"], vehicle: "B 999 ZZZ" });
    await post(t, courier, `/business/network-runs/${other}/depart`, {});
    const handOver = () =>
      post(t, courier, `/business/network-runs/${run}/transfer`, {
        waybills: [leaving],
        to_run: other,
      });
    const runtime = runtimeWithGap(t, "stop_border", handOver);
    const caller = { tenant, by: "api_key", scopes: [], driver_id: null };
    await border({ ...t.env, runtime }, caller, run, second, {});
    // spec: courier 3.4, 3.2: the second border's presentation did not happen: the shipment
    // waits on the first border's clearance as before it, not on the second's.
    const s = await shipmentIn(t.env.runtime, tenant, leaving);
    const lines = s.trail.map((e) => e.event).filter((e) =>
      e === "presented_to_customs" || e === "presentation_withdrawn"
    );
    assert.deepEqual(lines, [
      "presented_to_customs",
      "presented_to_customs",
      "presentation_withdrawn",
    ]);
    const clearances = s.milestones.filter((m) => m.name === "customs_clearance");
    assert.deepEqual(clearances, [firstClearance]);
  }));

Deno.test("customs: a border request cut after presenting a shipment that then left the run; the stop's next request withdraws that presentation", () =>
  withTestEnv(async (t) => {
    const { courier, run, waybills } = await crossBorderRun(t, 2, { customs: true });
    const [leaving] = waybills as [string, string];
    const checkpoint = await checkpointStop(t, courier, run);
    await deliverStops(t, courier, run, waybills);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    const other = await newRun(t, courier, { countries: ["BW", "ZA"] });
    const otherCheckpoint = await checkpointStop(t, courier, other);
    await post(t, courier, `/business/network-runs/${other}/depart`, {});
    const [booked] = await crossings(t, courier, leaving);
    // Presented with both, then the request died before the stop was recorded (a crash), and the
    // shipment left the run meanwhile.
    const cut = async () => {
      await post(t, courier, `/business/network-runs/${run}/transfer`, {
        waybills: [leaving],
        to_run: other,
      });
      throw new Error("the request died here");
    };
    const runtime = runtimeWithGap(t, "stop_border", cut);
    const caller = { tenant: courier.business.id, by: "api_key", scopes: [], driver_id: null };
    await assert.rejects(() => border({ ...t.env, runtime }, caller, run, checkpoint, {}));
    // spec: courier 3.4: the driver presents again; the stop goes on without the shipment.
    await post(t, courier, `/business/network-runs/${run}/stops/${checkpoint}/border`, {});
    const [withdrawn] = await crossings(t, courier, leaving);
    assert.deepEqual([withdrawn!.id, withdrawn!.run_id, withdrawn!.stop_id], [
      booked!.id,
      null,
      null,
    ]);
    await post(t, courier, `/business/network-runs/${other}/stops/${otherCheckpoint}/border`, {});
    const [atOther, ...noSecond] = await crossings(t, courier, leaving);
    assert.deepEqual(noSecond, [], "one crossing, one clearance");
    assert.deepEqual([atOther!.id, atOther!.run_id, atOther!.stop_id], [
      booked!.id,
      other,
      otherCheckpoint,
    ]);
  }));
