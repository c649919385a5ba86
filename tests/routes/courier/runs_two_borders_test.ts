/**
 * A run that crosses two borders with a shipment (courier 3.4, 3.2): each border stop presents
 * it at a crossing of its own (the booking crossing at the first); it goes out for delivery past
 * the last border only once customs settled every crossing the run presented it at.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { crossings, move } from "./customs_fixtures.ts";
import { checkpointStop, crossBorderRun, deliverStops, post, trailOf } from "./runs_fixtures.ts";

Deno.test("runs: a shipment past a second border while customs has not settled the first border's crossing does not go out for delivery until it does, then once", () =>
  withTestEnv(async (t) => {
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
    await move(t, courier, own.id, { action: "clear", customs_reference: "MRA-2" });
    await post(t, courier, at(second, "cross"), { side: "exit" });
    await post(t, courier, at(second, "cross"), { side: "entry" });
    // spec: courier 3.4, 3.2: customs has not settled the first border's crossing yet: the
    // shipment is not sent out for delivery past it.
    assert.equal(
      (await crossings(t, courier, waybill)).find((c) => c.id === booked!.id)!.status,
      "presented",
    );
    assert.ok(!(await trailOf(t, courier, waybill)).includes("out_for_delivery"));
    await move(t, courier, booked!.id, { action: "clear", customs_reference: "SARS-1" });
    const sent = (await trailOf(t, courier, waybill)).filter((e) => e === "out_for_delivery");
    assert.deepEqual(sent, ["out_for_delivery"]);
    // The second border's clearance sent again (a lost answer) sends nothing out again.
    await move(t, courier, own.id, { action: "clear", customs_reference: "MRA-2" });
    const again = (await trailOf(t, courier, waybill)).filter((e) => e === "out_for_delivery");
    assert.deepEqual(again, ["out_for_delivery"]);
  }));
