/**
 * Customs moves a crash cut off (courier 2.6, 2.9): a clearance whose fee, or a release whose
 * scan and alert, a crash lost is completed by its retry or, with nobody sending it again, by
 * the charge retry; the clearance charge booked once.
 */
import assert from "node:assert/strict";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { bookWaybill } from "../../helpers/courier.ts";
import { advance, until } from "../../helpers/receiver.ts";
import { SCAN_CHARGE_RETRY_MS } from "../../../src/limits.ts";
import { vehicleLeft } from "../../../src/courier/flows/customs.ts";
import { whileFlaky } from "../../helpers/faults.ts";
import {
  alerts,
  billingEvent,
  crossings,
  ledger,
  move,
  presented,
  shipment,
} from "./customs_fixtures.ts";
import {
  checkpointStop,
  deliverStops,
  milestonesOf,
  newRun,
  post,
  ready,
  trailOf,
} from "./runs_fixtures.ts";

Deno.test("customs: a clearance whose fee a crash kept off the account is completed by its retry, also after the release", () =>
  withTestEnv(async (t) => {
    const { courier, waybill, id } = await presented(t, { customs: true });
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
    const { courier, waybill, id } = await presented(t, { customs: true });
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
    const { courier, id } = await presented(t, { customs: true });
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

/** A delivery run across the border carrying `a` and `b` (to ZA), presented and exited. */
async function pastTheExit(t: TestEnv) {
  const [courier, client] = await ready(t);
  const patched = await t.call("PATCH", `/operator/businesses/${courier.business.id}`, {
    operator: true,
    body: { api_key_scopes: ["billing:administer", "runs:override", "customs:approve"] },
  });
  assert.equal(patched.status, 200);
  const run = await newRun(t, courier, { countries: ["BW", "ZA"] });
  const a = await bookWaybill(t, client, { to_country: "ZA" });
  const b = await bookWaybill(t, client, { to_country: "ZA" });
  const checkpoint = await checkpointStop(t, courier, run);
  await deliverStops(t, courier, run, [a, b]);
  await post(t, courier, `/business/network-runs/${run}/depart`, {});
  const border = `/business/network-runs/${run}/stops/${checkpoint}`;
  await post(t, courier, `${border}/border`, {});
  await post(t, courier, `${border}/cross`, { side: "exit" });
  const crossingOf = async (waybill: string) => (await crossings(t, courier, waybill))[0]!.id;
  return { courier, a, b, border, crossingOf };
}

const runReads = (type: string, command: unknown) =>
  type === "network_run" && (command as { kind: string }).kind === "get";

/** The run's reads once the crossing is recorded (the stop action reads its run before). */
function runReadsAfterCross(): (type: string, command: unknown) => boolean {
  let crossed = false;
  return (type, command) => {
    if ((command as { kind: string }).kind === "stop_cross") crossed = true;
    return crossed && runReads(type, command);
  };
}

Deno.test("customs: a clearance or an entry meeting its run busy is answered 503, not done without the shipment going out; the retry sends it out once", () =>
  withTestEnv(async (t) => {
    const { courier, a, b, border, crossingOf } = await pastTheExit(t);
    const clear = (id: string, status?: number) =>
      move(t, courier, id, { action: "clear", customs_reference: `SARS-${id}` }, status);
    // a: cleared first, then the vehicle enters while its run cannot be read.
    await clear(await crossingOf(a));
    await whileFlaky(t.env, { fails: runReadsAfterCross(), times: 100, refuse: true }, async () => {
      await post(t, courier, `${border}/cross`, { side: "entry" }, 503);
    });
    await post(t, courier, `${border}/cross`, { side: "entry" });
    // b: cleared after the entry, while its run cannot be read.
    await whileFlaky(t.env, { fails: runReads, times: 100, refuse: true }, async () => {
      await clear(await crossingOf(b), 503);
    });
    await clear(await crossingOf(b));
    for (const waybill of [a, b]) {
      // spec: courier 3.2: across the border and let go by customs, it goes out, once.
      const trail = await trailOf(t, courier, waybill);
      assert.equal(trail.filter((e) => e === "out_for_delivery").length, 1, trail.join());
      assert.deepEqual(await milestonesOf(t, courier, waybill), ["delivery_attempt", "promise"]);
    }
  }));
