/**
 * Network runs at customs (courier 3.4, 4.5): customs decides a border stop only once the driver
 * presented it, and a refused stop is never crossed; a shipment customs holds is neither
 * delivered, attempted, nor transferred to another run, not even when the hold lands while the
 * delivery is being recorded.
 */
import assert from "node:assert/strict";
import { crossingIdOf } from "../../../src/courier/flows/customs.ts";
import { border, deliver, fail, report, transfer } from "../../../src/courier/flows/runs/mod.ts";
import { Refused } from "../../../src/runtime/actor.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { whileFlaky } from "../../helpers/faults.ts";
import { bookWaybill } from "../../helpers/courier.ts";
import {
  checkpointStop,
  crossBorderRun,
  deliverStops,
  newRun,
  post,
  ready,
  runtimeWithGap,
  trailOf,
} from "./runs_fixtures.ts";

Deno.test("runs: customs clears or refuses a border stop only once it is presented; a refused stop is never cleared", () =>
  withTestEnv(async (t) => {
    const { courier, run, waybill } = await crossBorderRun(t, 1, { customs: true });
    const checkpoint = await checkpointStop(t, courier, run);
    await deliverStops(t, courier, run, [waybill]);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    const at = (action: string) => `/business/network-runs/${run}/stops/${checkpoint}/${action}`;
    // spec: courier 3.4: the driver presents; customs then records cleared or refused.
    for (const [action, body] of [["cross", { side: "exit" }], ["fail", { reason: "papers" }]]) {
      const early = await post(t, courier, at(action as string), body, 409);
      assert.equal(early.code, "border_not_presented", JSON.stringify(early));
    }
    const stopNow = async () => {
      const r = await t.call("GET", `/business/network-runs/${run}`, {
        key: courier.business.api_key,
      });
      return r.body.data.stops.find((s: { id: string }) => s.id === checkpoint);
    };
    assert.equal((await stopNow()).status, "pending");
    assert.equal((await stopNow()).exit_at, null);
    await post(t, courier, at("border"), {});
    await post(t, courier, at("fail"), { reason: "vehicle papers expired" });
    for (const side of ["exit", "entry"]) {
      const r = await post(t, courier, at("cross"), { side }, 409);
      assert.equal(r.code, "border_refused", JSON.stringify(r));
    }
    const stop = await stopNow();
    assert.equal(stop.status, "refused");
    assert.equal(stop.exit_at, null);
    assert.ok(!(await trailOf(t, courier, waybill)).includes("out_for_delivery"));
  }));

Deno.test("runs: a border stop is presented only by a run under way, so no shipment passes customs unseen", () =>
  withTestEnv(async (t) => {
    const { courier, run, waybill } = await crossBorderRun(t, 1, { customs: true });
    const checkpoint = await checkpointStop(t, courier, run);
    await deliverStops(t, courier, run, [waybill]);
    const at = `/business/network-runs/${run}/stops/${checkpoint}`;
    // spec: courier 3.4: the driver presents the vehicle with what it carries; a run still at
    // its depot carries nothing yet, and a stop presented empty would let its shipments by.
    const early = await post(t, courier, `${at}/border`, {}, 422);
    assert.equal(early.code, "run_not_departed", JSON.stringify(early));
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    const presented = await post(t, courier, `${at}/border`, {});
    assert.equal(presented.data.stop.status, "presented");
    assert.equal(presented.data.stop.crossings.length, 1);
    assert.ok((await trailOf(t, courier, waybill)).includes("presented_to_customs"));
  }));

Deno.test("runs: a shipment customs holds, asks papers for or refused is not delivered; released, it is", () =>
  withTestEnv(async (t) => {
    const { courier, run, waybills } = await crossBorderRun(t, 2, { customs: true });
    const [held, refused] = waybills as [string, string];
    await deliverStops(t, courier, run, [held, refused]);
    const stops = (await post(t, courier, `/business/network-runs/${run}/depart`, {})).data.stops
      .map((s: { id: string }) => s.id) as string[];
    const crossingOf = async (waybill: string) => {
      const r = await t.call("GET", `/business/shipments/${waybill}/customs`, {
        key: courier.business.api_key,
      });
      return r.body.data.crossings[0].id as string;
    };
    const move = async (waybill: string, body: Record<string, unknown>) =>
      await post(t, courier, `/business/customs/${await crossingOf(waybill)}/move`, body);
    const deliver = (n: number, status: number) =>
      post(t, courier, `/business/network-runs/${run}/stops/${stops[n]}/deliver`, {
        received_by: "Kagiso",
      }, status);
    // spec: courier 3.4: a shipment held by customs stays held; it moves on once let go.
    await move(held, { action: "hold", reason: "x-ray" });
    assert.equal((await deliver(0, 409)).code, "held_by_customs");
    await move(held, { action: "request_documents", reason: "invoice" });
    assert.equal((await deliver(0, 409)).code, "held_by_customs");
    await move(refused, { action: "refuse", reason: "prohibited goods" });
    assert.equal((await deliver(1, 409)).code, "held_by_customs");
    for (const waybill of [held, refused]) {
      assert.ok(!(await trailOf(t, courier, waybill)).includes("delivered"), waybill);
    }
    await move(held, { action: "release", evidence: "release note 4411" });
    const delivered = await deliver(0, 200);
    assert.equal(delivered.data.stop.status, "done");
    assert.equal((await trailOf(t, courier, held)).at(-1), "delivered");
  }));

Deno.test("runs: a shipment customs holds is not transferred to another run; reported customs_hold, the run closes", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const run = await newRun(t, courier, { countries: ["BW", "ZA"] });
    const other = await newRun(t, courier, { countries: ["BW", "ZA"] });
    const waybill = await bookWaybill(t, client, { to_country: "ZA" });
    await deliverStops(t, courier, run, [waybill]);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    const customs = await t.call("GET", `/business/shipments/${waybill}/customs`, {
      key: courier.business.api_key,
    });
    const crossing = customs.body.data.crossings[0].id;
    await post(t, courier, `/business/customs/${crossing}/move`, {
      action: "hold",
      reason: "inspection",
    });
    // spec: courier 3.4: held by customs, the shipment stays where customs has it.
    const moved = await post(t, courier, `/business/network-runs/${run}/transfer`, {
      waybills: [waybill],
      to_run: other,
    }, 409);
    assert.equal(moved.code, "held_by_customs", JSON.stringify(moved));
    const target = (await t.call("GET", `/business/network-runs/${other}`, {
      key: courier.business.api_key,
    })).body.data;
    assert.deepEqual(target.items, []);
    assert.ok(!(await trailOf(t, courier, waybill)).includes("scan"));
    await post(t, courier, `/business/network-runs/${run}/report`, {
      waybill,
      condition: "customs_hold",
      note: "held at Tlokweng",
    });
    await post(t, courier, `/business/network-runs/${run}/close`, {});
  }));

Deno.test("runs: a shipment customs holds when the vehicle enters stays behind; released, it awaits collection", () =>
  withTestEnv(async (t) => {
    const { courier, run, waybills } = await crossBorderRun(t, 2, { customs: true });
    const [held, along] = waybills as [string, string];
    const checkpoint = await checkpointStop(t, courier, run);
    await deliverStops(t, courier, run, [held, along]);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    const at = `/business/network-runs/${run}/stops/${checkpoint}`;
    await post(t, courier, `${at}/border`, {});
    const crossingOf = async (waybill: string) => {
      const r = await t.call("GET", `/business/shipments/${waybill}/customs`, {
        key: courier.business.api_key,
      });
      return r.body.data.crossings[0];
    };
    const moveHeld = async (body: Record<string, unknown>) =>
      await post(t, courier, `/business/customs/${(await crossingOf(held)).id}/move`, body);
    await moveHeld({ action: "hold", reason: "x-ray" });
    await post(t, courier, `${at}/cross`, { side: "exit" });
    await post(t, courier, `${at}/cross`, { side: "entry" });
    // spec: courier 3.4, 2.9: the vehicle goes on; what customs holds stays at the border.
    const stayed = await crossingOf(held);
    assert.equal(stayed.entry_at, null, JSON.stringify(stayed));
    assert.notEqual(stayed.vehicle_left_at, null, JSON.stringify(stayed));
    assert.notEqual((await crossingOf(along)).entry_at, null);
    await moveHeld({ action: "release", evidence: "release note 4411" });
    assert.ok(!(await trailOf(t, courier, held)).includes("out_for_delivery"));
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

Deno.test("runs: a shipment customs holds for papers is reported customs_hold, and the run closes", () =>
  withTestEnv(async (t) => {
    const { courier, run, waybill } = await crossBorderRun(t, 1);
    await deliverStops(t, courier, run, [waybill]);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    const customs = await t.call("GET", `/business/shipments/${waybill}/customs`, {
      key: courier.business.api_key,
    });
    await post(t, courier, `/business/customs/${customs.body.data.crossings[0].id}/move`, {
      action: "request_documents",
      reason: "commercial invoice",
    });
    // spec: courier 3.4: held by customs (for papers) is its end state on the run.
    const reported = await post(t, courier, `/business/network-runs/${run}/report`, {
      waybill,
      condition: "customs_hold",
      note: "awaiting the invoice at Tlokweng",
    });
    assert.equal(reported.data.items[0].state, "customs_hold");
    const closed = await post(t, courier, `/business/network-runs/${run}/close`, {});
    assert.equal(closed.data.status, "closed");
  }));

Deno.test("runs: no delivery is attempted of a shipment customs holds, so no redelivery is owed", () =>
  withTestEnv(async (t) => {
    const { courier, run, waybill } = await crossBorderRun(t, 1);
    await deliverStops(t, courier, run, [waybill]);
    const stop = (await post(t, courier, `/business/network-runs/${run}/depart`, {})).data
      .stops[0].id;
    const customs = await t.call("GET", `/business/shipments/${waybill}/customs`, {
      key: courier.business.api_key,
    });
    await post(t, courier, `/business/customs/${customs.body.data.crossings[0].id}/move`, {
      action: "hold",
      reason: "x-ray",
    });
    // spec: courier 3.2, 3.4: the recipient was never offered it: no attempt, no redelivery.
    const failed = await post(t, courier, `/business/network-runs/${run}/stops/${stop}/fail`, {
      reason: "not on board",
    }, 409);
    assert.equal(failed.code, "held_by_customs", JSON.stringify(failed));
    const trail = await trailOf(t, courier, waybill);
    assert.ok(!trail.includes("delivery_attempted"), trail.join());
  }));

Deno.test("runs: papers supplied during a plain customs hold leave it held; only customs lets it go", () =>
  withTestEnv(async (t) => {
    const { courier, run, waybill } = await crossBorderRun(t, 1);
    await deliverStops(t, courier, run, [waybill]);
    const stop = (await post(t, courier, `/business/network-runs/${run}/depart`, {})).data
      .stops[0].id;
    const customs = await t.call("GET", `/business/shipments/${waybill}/customs`, {
      key: courier.business.api_key,
    });
    const crossing = customs.body.data.crossings[0].id;
    await post(t, courier, `/business/customs/${crossing}/move`, {
      action: "hold",
      reason: "x-ray inspection",
    });
    // spec: courier 3.2: a plain hold is customs' (customs_documents opens only for papers); the
    // courier's papers are kept, and the hold stands until customs moves.
    const supplied = await post(t, courier, `/business/customs/${crossing}/supply`, {
      documents: [{ name: "commercial invoice" }],
    });
    assert.equal(supplied.data.status, "held", JSON.stringify(supplied));
    assert.equal(supplied.data.documents.length, 1);
    const deliver = await post(t, courier, `/business/network-runs/${run}/stops/${stop}/deliver`, {
      received_by: "Kagiso",
    }, 409);
    assert.equal(deliver.code, "held_by_customs");
    const ship = await t.call("GET", `/business/courier/operations/${waybill}`, {
      key: courier.business.api_key,
    });
    assert.equal(ship.body.data.status, "customs_hold");
  }));

Deno.test("runs: a customs hold landing between the delivery's checks and its record is not missed", () =>
  withTestEnv(async (t) => {
    const { courier, run, waybills } = await crossBorderRun(t, 2, { customs: true });
    await deliverStops(t, courier, run, waybills);
    const stops = (await post(t, courier, `/business/network-runs/${run}/depart`, {})).data
      .stops.map((s: { id: string }) => s.id) as string[];
    const move = async (waybill: string, body: Record<string, unknown>) => {
      const customs = await t.call("GET", `/business/shipments/${waybill}/customs`, {
        key: courier.business.api_key,
      });
      const crossing = customs.body.data.crossings[0].id as string;
      return await post(t, courier, `/business/customs/${crossing}/move`, body);
    };
    const caller = { tenant: courier.business.id, by: "api_key", scopes: [], driver_id: null };
    const steps = [["stop_deliver", deliver], ["stop_fail", fail]] as const;
    for (const [n, [kind, step]] of steps.entries()) {
      const waybill = waybills[n]!;
      const hold = () => move(waybill, { action: "hold", reason: "x-ray" });
      const runtime = runtimeWithGap(t, kind, hold);
      const body = { received_by: "Kagiso", reason: "nobody home" };
      const answer = await step({ ...t.env, runtime }, caller, run, stops[n]!, body).then(
        () => "recorded",
        (e) => e instanceof Refused ? e.rejection.code : String(e),
      );
      // spec: courier 3.4: held by customs, it is neither delivered nor attempted.
      assert.equal(answer, "held_by_customs", kind);
      const trail = await trailOf(t, courier, waybill);
      assert.ok(
        !trail.includes("delivered") && !trail.includes("delivery_attempted"),
        trail.join(),
      );
      assert.equal(trail.at(-1), "customs_hold", trail.join());
    }
    const now = (await t.call("GET", `/business/network-runs/${run}`, {
      key: courier.business.api_key,
    })).body.data;
    assert.deepEqual(now.stops.map((s: { status: string }) => s.status), ["pending", "pending"]);
    // Released, it is delivered.
    await move(waybills[0]!, { action: "release", evidence: "release note 4411" });
    const delivered = await post(
      t,
      courier,
      `/business/network-runs/${run}/stops/${stops[0]}/deliver`,
      {
        received_by: "Kagiso",
      },
    );
    assert.equal(delivered.data.stop.status, "done");
  }));

Deno.test("runs: a customs hold landing while a transfer is recorded is not missed; the other run gives it back", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const run = await newRun(t, courier, { countries: ["BW", "ZA"] });
    const other = await newRun(t, courier, { countries: ["BW", "ZA"] });
    const waybill = await bookWaybill(t, client, { to_country: "ZA" });
    await deliverStops(t, courier, run, [waybill]);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    const customs = await t.call("GET", `/business/shipments/${waybill}/customs`, {
      key: courier.business.api_key,
    });
    const crossing = customs.body.data.crossings[0].id as string;
    const hold = () =>
      post(t, courier, `/business/customs/${crossing}/move`, { action: "hold", reason: "x-ray" });
    const runtime = runtimeWithGap(t, "transfer", hold);
    const caller = { tenant: courier.business.id, by: "api_key", scopes: [], driver_id: null };
    const body = { waybills: [waybill], to_run: other };
    const answer = await transfer({ ...t.env, runtime }, caller, run, body).then(
      () => "transferred",
      (e) => e instanceof Refused ? e.rejection.code : String(e),
    );
    // spec: courier 3.4: held by customs, it stays where customs has it.
    assert.equal(answer, "held_by_customs");
    const itemsOf = async (id: string) =>
      (await t.call("GET", `/business/network-runs/${id}`, { key: courier.business.api_key }))
        .body.data.items.map((i: { state: string }) => i.state);
    assert.deepEqual(await itemsOf(run), ["on_board"]);
    assert.deepEqual(await itemsOf(other), []);
    await post(t, courier, `/business/network-runs/${run}/report`, {
      waybill,
      condition: "customs_hold",
      note: "held at Tlokweng",
    });
    await post(t, courier, `/business/network-runs/${run}/close`, {});
  }));

Deno.test("runs: a shipment customs refused at a run's border stop is not scanned onwards by operations", () =>
  withTestEnv(async (t) => {
    const { courier, client, run } = await crossBorderRun(t, 0, { customs: true });
    // Booked domestic, it has no crossing of its own: the border stop opens one for it.
    const waybill = await bookWaybill(t, client);
    const checkpoint = await checkpointStop(t, courier, run);
    await deliverStops(t, courier, run, [waybill]);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    await post(t, courier, `/business/network-runs/${run}/stops/${checkpoint}/border`, {});
    const crossing = crossingIdOf(courier.business.id, waybill, run, checkpoint);
    await post(t, courier, `/business/customs/${crossing}/move`, {
      action: "refuse",
      reason: "undeclared batteries",
    });
    // spec: courier 3.4: what customs keeps stays where customs has it, whoever scans it.
    for (const event of ["out_for_delivery", "delivered"]) {
      const scanned = await t.call("POST", `/business/courier/shipments/${waybill}/scans`, {
        key: courier.business.api_key,
        body: { event },
      });
      assert.equal(scanned.status, 409, JSON.stringify(scanned.body));
      assert.equal(scanned.body.code, "held_by_customs");
      assert.match(scanned.body.message, new RegExp(crossing));
    }
    const trail = await trailOf(t, courier, waybill);
    assert.ok(!trail.includes("delivered") && !trail.includes("out_for_delivery"), trail.join());
  }));

Deno.test("runs: a shipment transferred onto a run while it presents at the border is presented too", () =>
  withTestEnv(async (t) => {
    const { courier, run, waybills } = await crossBorderRun(t, 2, { customs: true });
    const [aboard, coming] = waybills as [string, string];
    const checkpoint = await checkpointStop(t, courier, run);
    await deliverStops(t, courier, run, [aboard]);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    const other = await newRun(t, courier, { countries: ["BW", "ZA"] });
    await deliverStops(t, courier, other, [coming]);
    await post(t, courier, `/business/network-runs/${other}/depart`, {});
    const handOver = () =>
      post(t, courier, `/business/network-runs/${other}/transfer`, {
        waybills: [coming],
        to_run: run,
      });
    const runtime = runtimeWithGap(t, "stop_border", handOver);
    const caller = { tenant: courier.business.id, by: "api_key", scopes: [], driver_id: null };
    await border({ ...t.env, runtime }, caller, run, checkpoint, {});
    // spec: courier 3.4: the driver presents the vehicle with all it carries; none passes unseen.
    for (const waybill of [aboard, coming]) {
      const trail = await trailOf(t, courier, waybill);
      assert.ok(trail.includes("presented_to_customs"), `${waybill}: ${trail.join()}`);
    }
    const stop = (await t.call("GET", `/business/network-runs/${run}`, {
      key: courier.business.api_key,
    })).body.data.stops.find((s: { id: string }) => s.id === checkpoint);
    assert.equal(stop.status, "presented");
  }));

Deno.test("runs: a release landing while a hold past the border is reported customs_hold leaves run and shipment agreeing", () =>
  withTestEnv(async (t) => {
    const { courier, run, waybill } = await crossBorderRun(t, 1, { customs: true });
    const checkpoint = await checkpointStop(t, courier, run);
    await deliverStops(t, courier, run, [waybill]);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    const at = `/business/network-runs/${run}/stops/${checkpoint}`;
    await post(t, courier, `${at}/border`, {});
    await post(t, courier, `${at}/cross`, { side: "exit" });
    await post(t, courier, `${at}/cross`, { side: "entry" });
    const customs = await t.call("GET", `/business/shipments/${waybill}/customs`, {
      key: courier.business.api_key,
    });
    const crossing = customs.body.data.crossings[0].id as string;
    const move = (body: Record<string, unknown>) =>
      post(t, courier, `/business/customs/${crossing}/move`, body);
    await move({ action: "hold", reason: "x-ray" });
    const release = () => move({ action: "release", evidence: "release note 4411" });
    const runtime = runtimeWithGap(t, "report", release);
    const caller = { tenant: courier.business.id, by: "api_key", scopes: [], driver_id: null };
    const body = { waybill, condition: "customs_hold", note: "held at Tlokweng" } as const;
    const answer = await report({ ...t.env, runtime }, caller, run, body).then(
      (r) => r.items[0]!.state,
      (e) => e instanceof Refused ? e.rejection.code : String(e),
    );
    // spec: courier 3.4: one state for the parcel: released, it goes on, and the run refuses to
    // end it held; the run keeps it on board for its deliver stop.
    assert.equal(answer, "not_held_by_customs");
    const trail = await trailOf(t, courier, waybill);
    assert.equal(trail.at(-1), "out_for_delivery", trail.join());
    const now = await t.call("GET", `/business/network-runs/${run}`, {
      key: courier.business.api_key,
    });
    assert.equal(now.body.data.items[0].state, "on_board");
  }));

Deno.test("runs: a customs_hold report recorded before a release stands; the release sends nothing on", () =>
  withTestEnv(async (t) => {
    const { courier, run, waybill } = await crossBorderRun(t, 1, { customs: true });
    const checkpoint = await checkpointStop(t, courier, run);
    await deliverStops(t, courier, run, [waybill]);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    const at = `/business/network-runs/${run}/stops/${checkpoint}`;
    await post(t, courier, `${at}/border`, {});
    await post(t, courier, `${at}/cross`, { side: "exit" });
    await post(t, courier, `${at}/cross`, { side: "entry" });
    const customs = await t.call("GET", `/business/shipments/${waybill}/customs`, {
      key: courier.business.api_key,
    });
    const move = `/business/customs/${customs.body.data.crossings[0].id}/move`;
    await post(t, courier, move, { action: "hold", reason: "x-ray" });
    const reported = await post(t, courier, `/business/network-runs/${run}/report`, {
      waybill,
      condition: "customs_hold",
      note: "held at Tlokweng",
    });
    assert.equal(reported.data.items[0].state, "customs_hold");
    await post(t, courier, move, { action: "release", evidence: "release note 4411" });
    const trail = await trailOf(t, courier, waybill);
    assert.ok(!trail.includes("out_for_delivery"), trail.join());
  }));

Deno.test("runs: a customs_hold report meeting the holding crossing busy is answered 503, not refused as held by no crossing; its retry records it", () =>
  withTestEnv(async (t) => {
    const { courier, run, waybill } = await crossBorderRun(t, 1);
    await deliverStops(t, courier, run, [waybill]);
    await post(t, courier, `/business/network-runs/${run}/depart`, {});
    const customs = await t.call("GET", `/business/shipments/${waybill}/customs`, {
      key: courier.business.api_key,
    });
    await post(t, courier, `/business/customs/${customs.body.data.crossings[0].id}/move`, {
      action: "hold",
      reason: "x-ray",
    });
    const body = { waybill, condition: "customs_hold", note: "held at Tlokweng" };
    const crossingRead = (type: string, command: unknown) =>
      type === "customs_crossing" && (command as { kind: string }).kind === "get";
    // spec: courier 3.4: a crossing that cannot be read now is no answer that customs lets go.
    await whileFlaky(t.env, { fails: crossingRead, times: 100, refuse: true }, async () => {
      const busy = await t.call("POST", `/business/network-runs/${run}/report`, {
        key: courier.business.api_key,
        body,
      });
      assert.equal(busy.status, 503, JSON.stringify(busy.body));
    });
    const reported = await post(t, courier, `/business/network-runs/${run}/report`, body);
    assert.equal(reported.data.items[0].state, "customs_hold");
  }));
