/**
 * A border stop customs refuses (courier 3.4: customs:approve records a border stop cleared or
 * refused): the shipments it presented are turned back, so their crossings are refused and
 * nothing stays waiting on customs that will never move (courier 3.2, 2.9).
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { advance } from "../../helpers/receiver.ts";
import { alerts, crossings, move, shipment } from "./customs_fixtures.ts";
import { checkpointStop, crossBorderRun, deliverStops, post } from "./runs_fixtures.ts";

Deno.test("runs: a border stop customs refuses refuses the crossings it presented; a crossing customs cleared before stays cleared", () =>
  withTestEnv(async (t) => {
    const { courier, run, waybills } = await crossBorderRun(t, 2, { customs: true });
    const [turned, cleared] = waybills as [string, string];
    const checkpoint = await checkpointStop(t, courier, run);
    await deliverStops(t, courier, run, waybills);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    const at = (action: string) => `/business/network-runs/${run}/stops/${checkpoint}/${action}`;
    await post(t, courier, at("border"), {});
    const [pre] = await crossings(t, courier, cleared);
    await move(t, courier, pre!.id, { action: "clear", customs_reference: "SARS-1" });
    const refused = await post(t, courier, at("fail"), { reason: "vehicle papers expired" });
    assert.equal(refused.data.stop.status, "refused");
    // spec: courier 3.4: the stop's shipments were turned back: their crossings are refused,
    // with the stop's reason, unless customs had already let one go.
    const [c] = await crossings(t, courier, turned);
    assert.equal(c!.status, "refused");
    assert.deepEqual(c!.history.map((h) => [h.action, h.reason]), [
      ["refuse", "vehicle papers expired"],
    ]);
    assert.equal((await crossings(t, courier, cleared))[0]!.status, "cleared");
    // spec: courier 3.2, 2.9: nothing waits on customs for the refused one: no clearance open,
    // no customs wait run over; the refusal is an exception.
    const s = await shipment(t, courier, turned);
    assert.equal(s.health, "exception");
    assert.equal(s.exception?.reason, "customs refused: vehicle papers expired");
    assert.deepEqual(s.obligations.filter((o) => o.milestone.startsWith("customs")), []);
    await advance(t, 5 * 24 * 3600);
    assert.deepEqual(await alerts(t, courier, "customs_wait_exceeded"), []);
    // Sent again (a lost answer): refused once.
    await post(t, courier, at("fail"), { reason: "vehicle papers expired" });
    assert.equal((await crossings(t, courier, turned))[0]!.history.length, 1);
  }));
