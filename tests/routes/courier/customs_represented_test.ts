/**
 * A shipment presented again at the border stop whose presentation of it was withdrawn (courier
 * 3.4, 3.2): the new presentation is one of its own, not a replay of the one withdrawn, so the
 * shipment is with customs again and customs_clearance runs from it.
 */
import assert from "node:assert/strict";
import type { RunCommand } from "../../../actors/courier/network_run/mod.ts";
import type { ActorRuntime } from "../../../src/runtime/runtime.ts";
import { border } from "../../../src/courier/flows/runs/mod.ts";
import { shipmentIn } from "../../../src/courier/flows/shipments.ts";
import type { TestEnv } from "../../helpers/test_env.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { commandKind, failAsks } from "../../helpers/faults.ts";
import { advance } from "../../helpers/receiver.ts";
import { crossings } from "./customs_fixtures.ts";
import { checkpointStop, crossBorderRun, deliverStops, newRun, post } from "./runs_fixtures.ts";

/**
 * The environment's own runtime, except that each of `befores` runs once, in order, just before
 * a run's change of `kind` goes through (runs_fixtures.ts runtimeWithGap, several times).
 */
function runtimeWithGaps(
  t: TestEnv,
  kind: string,
  befores: (() => Promise<unknown>)[],
): ActorRuntime {
  const due = [...befores];
  return new Proxy(t.env.runtime, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property !== "ask") return value.bind(target);
      return async (...args: unknown[]) => {
        const [def, , , command] = args as [{ type: string }, string, string, RunCommand];
        let change: RunCommand = command;
        while (change.kind === "keyed" || change.kind === "as_driver") change = change.change;
        if (def.type === "network_run" && change.kind === kind) await due.shift()?.();
        return await value.apply(target, args);
      };
    },
  });
}

Deno.test("customs: a shipment whose presentation at a border stop was withdrawn, back on the run and presented at that stop again, is with customs again", () =>
  withTestEnv(async (t) => {
    const { courier, run, waybills } = await crossBorderRun(t, 2, { customs: true });
    const [leaving] = waybills as [string, string];
    const checkpoint = await checkpointStop(t, courier, run);
    await deliverStops(t, courier, run, waybills);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    const other = await newRun(t, courier, { countries: ["BW", "ZA"], vehicle: "B 999 ZZZ" });
    await post(t, courier, `/business/network-runs/${other}/depart`, {});
    const [booked] = await crossings(t, courier, leaving);
    const hand = (from: string, to: string) => () =>
      post(t, courier, `/business/network-runs/${from}/transfer`, {
        waybills: [leaving],
        to_run: to,
      });
    // Presented with both; the shipment leaves before the stop is recorded (its presentation is
    // withdrawn), then comes back on board before the stop is recorded: presented there again.
    const runtime = runtimeWithGaps(t, "stop_border", [hand(run, other), hand(other, run)]);
    const caller = { tenant: courier.business.id, by: "api_key", scopes: [], driver_id: null };
    const answer = await border({ ...t.env, runtime }, caller, run, checkpoint, {});
    assert.ok(answer.stop.crossings.includes(booked!.id), JSON.stringify(answer.stop));
    const [again] = await crossings(t, courier, leaving);
    assert.deepEqual([again!.id, again!.run_id, again!.stop_id], [booked!.id, run, checkpoint]);
    // spec: courier 3.4, 3.2: presented again, it waits on customs again: the crossing and the
    // shipment say the same.
    const s = await shipmentIn(t.env.runtime, courier.business.id, leaving);
    const lines = s.trail.map((e) => e.event).filter((e) =>
      e === "presented_to_customs" || e === "presentation_withdrawn"
    );
    assert.deepEqual(lines, [
      "presented_to_customs",
      "presentation_withdrawn",
      "presented_to_customs",
    ]);
    assert.equal(s.status, "customs_processing");
    assert.ok(s.milestones.some((m) => m.name === "customs_clearance"), JSON.stringify(s));
    assert.deepEqual(
      [s.presentation?.crossing_id, s.presentation?.run_id, s.presentation?.stop_id],
      [booked!.id, run, checkpoint],
    );
    // Presented again (a lost answer): recorded once.
    await post(t, courier, `/business/network-runs/${run}/stops/${checkpoint}/border`, {});
    const after = await shipmentIn(t.env.runtime, courier.business.id, leaving);
    assert.equal(after.trail_total, s.trail_total);
  }));

Deno.test("customs: a withdrawal the shipment could not take before the shipment was presented at that stop again leaves it with customs when the outbox sends it late", () =>
  withTestEnv(async (t) => {
    const { courier, run, waybills } = await crossBorderRun(t, 2, { customs: true });
    const [leaving] = waybills as [string, string];
    const checkpoint = await checkpointStop(t, courier, run);
    await deliverStops(t, courier, run, waybills);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    const other = await newRun(t, courier, { countries: ["BW", "ZA"], vehicle: "B 999 ZZZ" });
    await post(t, courier, `/business/network-runs/${other}/depart`, {});
    const [booked] = await crossings(t, courier, leaving);
    const hand = (from: string, to: string) =>
      post(t, courier, `/business/network-runs/${from}/transfer`, {
        waybills: [leaving],
        to_run: to,
      });
    // The shipment's withdrawal fails (a store failing), for the request and the outbox alike:
    // the crossing's is committed, the shipment's waits in the outbox.
    const stop = failAsks(t.env.runtime, commandKind("withdraw_presentation", "shipment"));
    const runtime = runtimeWithGaps(t, "stop_border", [() => hand(run, other)]);
    const caller = { tenant: courier.business.id, by: "api_key", scopes: [], driver_id: null };
    await assert.rejects(() => border({ ...t.env, runtime }, caller, run, checkpoint, {}));
    // Back on board, presented at the stop again before the outbox sent the withdrawal.
    await hand(other, run);
    await post(t, courier, `/business/network-runs/${run}/stops/${checkpoint}/border`, {});
    stop();
    await advance(t, 600);
    await t.env.runtime.sweepOutboxes();
    await t.env.runtime.outboxesIdle();
    // spec: courier 3.4, 3.2: the crossing is presented at the stop: so is the shipment.
    const [c] = await crossings(t, courier, leaving);
    assert.deepEqual([c!.id, c!.run_id, c!.stop_id], [booked!.id, run, checkpoint]);
    const s = await shipmentIn(t.env.runtime, courier.business.id, leaving);
    // Its withdrawal, sent late, did not take back the presentation that stands.
    assert.ok(!s.trail.some((e) => e.event === "presentation_withdrawn"));
    assert.equal(s.status, "customs_processing");
    assert.ok(s.milestones.some((m) => m.name === "customs_clearance"), JSON.stringify(s.trail));
  }));

/** `runtime`, except that `after` runs once just after its first ask `picks` chooses. */
function gapAfter(
  runtime: ActorRuntime,
  picks: (type: string, command: unknown) => boolean,
  after: () => Promise<unknown>,
): ActorRuntime {
  let armed = true;
  return new Proxy(runtime, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property !== "ask") return value.bind(target);
      return async (...args: unknown[]) => {
        const [def, , , command] = args as [{ type: string }, string, string, unknown];
        const answer = await value.apply(target, args);
        if (armed && picks(def.type, command)) {
          armed = false;
          await after();
        }
        return answer;
      };
    },
  });
}

Deno.test("customs: a border request whose own withdrawal from the shipment meets the shipment presented at that stop again leaves it with customs", () =>
  withTestEnv(async (t) => {
    const { courier, run, waybills } = await crossBorderRun(t, 2, { customs: true });
    const [leaving] = waybills as [string, string];
    const checkpoint = await checkpointStop(t, courier, run);
    await deliverStops(t, courier, run, waybills);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    const other = await newRun(t, courier, { countries: ["BW", "ZA"], vehicle: "B 999 ZZZ" });
    await post(t, courier, `/business/network-runs/${other}/depart`, {});
    const [booked] = await crossings(t, courier, leaving);
    const hand = (from: string, to: string) =>
      post(t, courier, `/business/network-runs/${from}/transfer`, {
        waybills: [leaving],
        to_run: to,
      });
    // The shipment leaves before the stop is recorded: the request withdraws its presentation
    // from the crossing; just after, before the shipment's withdrawal, it is back on board and
    // presented at the stop again by another request.
    const represented = async () => {
      await hand(other, run);
      await post(t, courier, `/business/network-runs/${run}/stops/${checkpoint}/border`, {});
    };
    const gaps = runtimeWithGaps(t, "stop_border", [() => hand(run, other)]);
    const withdrawn = commandKind("withdraw_presentation", "customs_crossing");
    const runtime = gapAfter(gaps, withdrawn, represented);
    const caller = { tenant: courier.business.id, by: "api_key", scopes: [], driver_id: null };
    await border({ ...t.env, runtime }, caller, run, checkpoint, {});
    await t.env.runtime.outboxesIdle();
    // spec: courier 3.4, 3.2: the crossing is presented at the stop: so is the shipment.
    const [c] = await crossings(t, courier, leaving);
    assert.deepEqual([c!.id, c!.run_id, c!.stop_id], [booked!.id, run, checkpoint]);
    const s = await shipmentIn(t.env.runtime, courier.business.id, leaving);
    assert.deepEqual(
      [s.presentation?.crossing_id, s.presentation?.run_id, s.presentation?.stop_id],
      [booked!.id, run, checkpoint],
      JSON.stringify(s.trail.map((e) => e.event)),
    );
    assert.equal(s.status, "customs_processing");
  }));
