/**
 * A run that crosses two borders with a shipment (courier 3.4, 3.2): each border stop presents
 * it at a crossing of its own (the booking crossing at the first); it goes out for delivery past
 * the last border only once customs settled every crossing the run presented it at, and it waits
 * on customs while any of them does.
 */
import assert from "node:assert/strict";
import type { TestEnv } from "../../helpers/test_env.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { crossings, move, shipment } from "./customs_fixtures.ts";
import { checkpointStop, crossBorderRun, deliverStops, post, trailOf } from "./runs_fixtures.ts";

/**
 * A run across Botswana-South Africa (Tlokweng) then South Africa-Mozambique (Lebombo) with one
 * shipment, departed; the vehicle presented at the first border and crossed it while customs has
 * not settled its crossing (`booked`), then presented at the second (`own`, that stop's crossing).
 */
async function pastFirstBorder(t: TestEnv) {
  const { courier, run, waybill } = await crossBorderRun(t, 1, { customs: true });
  const first = await checkpointStop(t, courier, run);
  const added = await post(t, courier, `/business/network-runs/${run}/stops`, {
    kind: "checkpoint",
    country: "ZA",
    to_country: "MZ",
    border_post: "Lebombo",
  }, 201);
  const second = added.data.stops.at(-1).id as string;
  await deliverStops(t, courier, run, [waybill]);
  await post(t, courier, `/business/network-runs/${run}/depart`, {});
  const at = (stop: string, action: string) =>
    `/business/network-runs/${run}/stops/${stop}/${action}`;
  await post(t, courier, at(first, "border"), {});
  const [booked] = await crossings(t, courier, waybill);
  await post(t, courier, at(first, "cross"), { side: "exit" });
  await post(t, courier, at(first, "cross"), { side: "entry" });
  await post(t, courier, at(second, "border"), {});
  const own = (await crossings(t, courier, waybill)).find((c) => c.id !== booked!.id)!;
  assert.equal(own.stop_id, second);
  const crossSecond = async () => {
    await post(t, courier, at(second, "cross"), { side: "exit" });
    await post(t, courier, at(second, "cross"), { side: "entry" });
  };
  return { courier, waybill, booked: booked!, own, crossSecond };
}

/** The customs milestones the shipment waits on, by name. */
async function customsOpen(t: TestEnv, courier: Parameters<typeof shipment>[1], waybill: string) {
  const s = await shipment(t, courier, waybill);
  return {
    health: s.health,
    open: s.obligations.map((o) => o.milestone).filter((m) => m.startsWith("customs")),
  };
}

Deno.test("runs: a shipment past a second border while customs has not settled the first border's crossing does not go out for delivery until it does, then once", () =>
  withTestEnv(async (t) => {
    const { courier, waybill, booked, own, crossSecond } = await pastFirstBorder(t);
    await move(t, courier, own.id, { action: "clear", customs_reference: "MRA-2" });
    await crossSecond();
    // spec: courier 3.4, 3.2: customs has not settled the first border's crossing yet: the
    // shipment is not sent out for delivery past it.
    const first = (await crossings(t, courier, waybill)).find((c) => c.id === booked.id)!;
    assert.equal(first.status, "presented");
    assert.ok(!(await trailOf(t, courier, waybill)).includes("out_for_delivery"));
    await move(t, courier, booked.id, { action: "clear", customs_reference: "SARS-1" });
    const sent = (await trailOf(t, courier, waybill)).filter((e) => e === "out_for_delivery");
    assert.deepEqual(sent, ["out_for_delivery"]);
    // The second border's clearance sent again (a lost answer) sends nothing out again.
    await move(t, courier, own.id, { action: "clear", customs_reference: "MRA-2" });
    const again = (await trailOf(t, courier, waybill)).filter((e) => e === "out_for_delivery");
    assert.deepEqual(again, ["out_for_delivery"]);
  }));

Deno.test("runs: the second border's clearance leaves the shipment waiting on customs for the first border's crossing, until customs settles it", () =>
  withTestEnv(async (t) => {
    const { courier, waybill, booked, own } = await pastFirstBorder(t);
    await move(t, courier, own.id, { action: "clear", customs_reference: "MRA-2" });
    // spec: courier 3.2: customs_clearance closes when cleared or released: the first border's
    // crossing is neither, so its clearance is open again, with customs.
    assert.deepEqual(await customsOpen(t, courier, waybill), {
      health: "waiting_customs",
      open: ["customs_clearance"],
    });
    await move(t, courier, booked.id, { action: "clear", customs_reference: "SARS-1" });
    assert.deepEqual((await customsOpen(t, courier, waybill)).open, []);
  }));

Deno.test("runs: the first border's clearance, come late, leaves the second border's clearance open", () =>
  withTestEnv(async (t) => {
    const { courier, waybill, booked, own } = await pastFirstBorder(t);
    await move(t, courier, booked.id, { action: "clear", customs_reference: "SARS-1" });
    // spec: courier 3.2: the second border's crossing is presented, not cleared: the shipment
    // still waits on customs there.
    assert.deepEqual(await customsOpen(t, courier, waybill), {
      health: "waiting_customs",
      open: ["customs_clearance"],
    });
    assert.equal((await shipment(t, courier, waybill)).status, "customs_processing");
    await move(t, courier, own.id, { action: "clear", customs_reference: "MRA-2" });
    assert.deepEqual((await customsOpen(t, courier, waybill)).open, []);
  }));

Deno.test("runs: the first border's hold or refusal, come late, leaves the second border's clearance and headline as they were", () =>
  withTestEnv(async (t) => {
    const { courier, waybill, booked, own } = await pastFirstBorder(t);
    await move(t, courier, booked.id, { action: "hold", reason: "inspection at Tlokweng" });
    // spec: courier 3.2: the shipment stands presented at the second border, whose customs has
    // neither held nor settled it.
    assert.equal((await shipment(t, courier, waybill)).status, "customs_processing");
    await move(t, courier, booked.id, { action: "refuse", reason: "permit missing" });
    const s = await shipment(t, courier, waybill);
    assert.equal(s.status, "customs_processing");
    assert.equal(s.health, "exception");
    assert.deepEqual((await customsOpen(t, courier, waybill)).open, ["customs_clearance"]);
    await move(t, courier, own.id, { action: "clear", customs_reference: "MRA-2" });
    assert.deepEqual((await customsOpen(t, courier, waybill)).open, []);
  }));

Deno.test("runs: the second border's refusal leaves the shipment waiting on customs for the first border's crossing, until customs settles it", () =>
  withTestEnv(async (t) => {
    const { courier, waybill, booked, own } = await pastFirstBorder(t);
    await move(t, courier, own.id, { action: "refuse", reason: "permit missing" });
    // spec: courier 3.2: the refusal settles the second border's clearance only; the first
    // border's crossing is still with customs.
    assert.deepEqual(await customsOpen(t, courier, waybill), {
      health: "exception",
      open: ["customs_clearance"],
    });
    await move(t, courier, booked.id, { action: "clear", customs_reference: "SARS-1" });
    assert.deepEqual((await customsOpen(t, courier, waybill)).open, []);
  }));
