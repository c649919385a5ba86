/**
 * A run that leaves a border stop without recording the crossing (courier 2.9, 3.4): what customs
 * held there stays behind, so customs' release afterwards awaits collection, raised once.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { checkpointStop, crossBorderRun, deliverStops, post } from "./runs_fixtures.ts";

Deno.test("runs: a run that arrives without crossing the border where customs holds a shipment leaves it there; released, it awaits collection once", () =>
  withTestEnv(async (t) => {
    const { courier, run, waybill } = await crossBorderRun(t, 1, { customs: true });
    const checkpoint = await checkpointStop(t, courier, run);
    await deliverStops(t, courier, run, [waybill]);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    await post(t, courier, `/business/network-runs/${run}/stops/${checkpoint}/border`, {});
    const crossing = async () =>
      (await t.call("GET", `/business/shipments/${waybill}/customs`, {
        key: courier.business.api_key,
      })).body.data.crossings[0];
    const id = (await crossing()).id;
    await post(t, courier, `/business/customs/${id}/move`, { action: "hold", reason: "x-ray" });
    // spec: courier 2.9: the run arrives with no exit or entry recorded: the vehicle left it.
    await post(t, courier, `/business/network-runs/${run}/arrive`, {});
    await post(t, courier, `/business/network-runs/${run}/arrive`, {});
    assert.notEqual((await crossing()).vehicle_left_at, null);
    await post(t, courier, `/business/customs/${id}/move`, { action: "release", evidence: "RN-9" });
    await t.settle();
    const raised = await t.call(
      "GET",
      "/business/courier/alerts?kind=released_awaiting_collection",
      {
        key: courier.business.api_key,
      },
    );
    assert.deepEqual(raised.body.data.map((a: { waybill: string }) => a.waybill), [waybill]);
  }));

Deno.test("runs: a run that goes on to the next border without crossing the one where customs holds a shipment leaves it there; released, it awaits collection", () =>
  withTestEnv(async (t) => {
    const { courier, run, waybills } = await crossBorderRun(t, 2, { customs: true });
    const [held, along] = waybills as [string, string];
    const first = await checkpointStop(t, courier, run);
    const added = await post(t, courier, `/business/network-runs/${run}/stops`, {
      kind: "checkpoint",
      country: "ZA",
      to_country: "MZ",
      border_post: "Lebombo",
    }, 201);
    const second = added.data.stops.at(-1).id as string;
    await deliverStops(t, courier, run, [held, along]);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    await post(t, courier, `/business/network-runs/${run}/stops/${first}/border`, {});
    // The first border's crossing (the second's opens when presented, maybe in the same ms).
    const crossing = async () =>
      (await t.call("GET", `/business/shipments/${held}/customs`, {
        key: courier.business.api_key,
      })).body.data.crossings.find((c: { border_post: string }) => c.border_post !== "Lebombo");
    const id = (await crossing()).id;
    await post(t, courier, `/business/customs/${id}/move`, { action: "hold", reason: "x-ray" });
    // spec: courier 2.9: presented at the next border, the vehicle has left the first.
    await post(t, courier, `/business/network-runs/${run}/stops/${second}/border`, {});
    await t.settle();
    assert.notEqual((await crossing()).vehicle_left_at, null);
    await post(t, courier, `/business/customs/${id}/move`, { action: "release", evidence: "RN-9" });
    await t.settle();
    const raised = await t.call(
      "GET",
      "/business/courier/alerts?kind=released_awaiting_collection",
      {
        key: courier.business.api_key,
      },
    );
    assert.deepEqual(raised.body.data.map((a: { waybill: string }) => a.waybill), [held]);
  }));

Deno.test("runs: a run closed with the shipment customs holds at a border stop it never crossed leaves it there; released, it awaits collection", () =>
  withTestEnv(async (t) => {
    const { courier, run, waybill } = await crossBorderRun(t, 1, { customs: true });
    const checkpoint = await checkpointStop(t, courier, run);
    await deliverStops(t, courier, run, [waybill]);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    await post(t, courier, `/business/network-runs/${run}/stops/${checkpoint}/border`, {});
    const crossing = async () =>
      (await t.call("GET", `/business/shipments/${waybill}/customs`, {
        key: courier.business.api_key,
      })).body.data.crossings[0];
    const id = (await crossing()).id;
    await post(t, courier, `/business/customs/${id}/move`, { action: "hold", reason: "x-ray" });
    // spec: courier 3.4: held by customs is its end state on the run, which closes and leaves it.
    await post(t, courier, `/business/network-runs/${run}/report`, {
      waybill,
      condition: "customs_hold",
      note: "held at Tlokweng",
    });
    await post(t, courier, `/business/network-runs/${run}/close`, {});
    assert.notEqual((await crossing()).vehicle_left_at, null);
    await post(t, courier, `/business/customs/${id}/move`, { action: "release", evidence: "RN-9" });
    await t.settle();
    const raised = await t.call(
      "GET",
      "/business/courier/alerts?kind=released_awaiting_collection",
      {
        key: courier.business.api_key,
      },
    );
    assert.deepEqual(raised.body.data.map((a: { waybill: string }) => a.waybill), [waybill]);
  }));
