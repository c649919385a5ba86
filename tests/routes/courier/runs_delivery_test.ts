/**
 * A shipment that ended (courier 3.2, 3.4): one another run delivered is not delivered again, and
 * the stop that would is left to be reported; one delivered is neither planned on a run again
 * nor collected (nor charged an errand). One planned on an open run is planned on no other.
 */
import assert from "node:assert/strict";
import { networkRunActor, NO_LOAD } from "../../../actors/courier/network_run/mod.ts";
import type { ShipmentCommand } from "../../../actors/courier/shipment/mod.ts";
import { shipmentRunsActor } from "../../../actors/courier/shipment_runs.ts";
import { collect, deliver } from "../../../src/courier/flows/runs/mod.ts";
import { Refused } from "../../../src/runtime/actor.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { bookWaybill, type Courier } from "../../helpers/courier.ts";
import {
  collectStop,
  deliverStops,
  deliveryRun,
  ledger,
  newRun,
  post,
  ready,
  runtimeWithGap,
  trailOf,
} from "./runs_fixtures.ts";

Deno.test("runs: a shipment another run delivered is not delivered again; that run reports it instead", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const [first, second] = [await newRun(t, courier), await newRun(t, courier)];
    const waybill = await bookWaybill(t, client);
    // Planned on both runs before one run's claim on a shipment was kept (the second's stop is
    // written as it was then, with no claim): the delivery is still checked.
    const stopOf = async (run: string) => {
      if (run === first) await deliverStops(t, courier, run, [waybill]);
      else await plannedBeforeClaims(t, courier, run, waybill);
      return (await post(t, courier, `/business/network-runs/${run}/depart`, {})).data
        .stops[0].id as string;
    };
    const [a, b] = [await stopOf(first), await stopOf(second)];
    const deliver = (run: string, stop: string, status: number) =>
      post(t, courier, `/business/network-runs/${run}/stops/${stop}/deliver`, {
        idempotency_key: `d-${stop}`,
        received_by: "Kagiso",
      }, status);
    const delivered = await deliver(first, a, 200);
    // spec: courier 3.4: an item's end state is what happened to it; the second run did not
    // deliver the shipment, so it does not say so.
    const again = await deliver(second, b, 409);
    assert.equal(again.code, "shipment_closed", JSON.stringify(again));
    assert.match(again.message, /delivered/);
    const run = (await t.call("GET", `/business/network-runs/${second}`, {
      key: courier.business.api_key,
    })).body.data;
    assert.equal(run.stops[0].status, "pending");
    assert.deepEqual(run.items.map((i: { state: string }) => i.state), ["on_board"]);
    // The first run's delivery sent again (lost signal) answers as it did.
    assert.deepEqual(await deliver(first, a, 200), delivered);
    const trail = await trailOf(t, courier, waybill);
    assert.equal(trail.filter((e) => e === "delivered").length, 1, trail.join());
    await post(t, courier, `/business/network-runs/${second}/report`, {
      waybill,
      condition: "missing",
      note: "delivered by another run",
    });
  }));

Deno.test("runs: a delivered shipment is not collected, nor its errand charged", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const first = await newRun(t, courier);
    const waybill = await bookWaybill(t, client);
    await deliverStops(t, courier, first, [waybill]);
    const stop = (await post(t, courier, `/business/network-runs/${first}/depart`, {})).data
      .stops[0].id;
    await post(t, courier, `/business/network-runs/${first}/stops/${stop}/deliver`, {});
    const second = await newRun(t, courier);
    const collect = await collectStop(t, courier, second, client, { kg: 5, pieces: 2 });
    const refused = await post(
      t,
      courier,
      `/business/network-runs/${second}/stops/${collect}/collect`,
      { waybill },
      409,
    );
    assert.equal(refused.code, "shipment_closed", JSON.stringify(refused));
    const run = (await t.call("GET", `/business/network-runs/${second}`, {
      key: courier.business.api_key,
    })).body.data;
    assert.deepEqual(run.items, []);
    assert.equal(run.stops[0].status, "pending");
    // spec: courier 2.6 rule 3: an errand is charged for a collection made; none was.
    const kinds = (await ledger(t, courier, client)).map((e) => e.kind);
    assert.ok(!kinds.includes("errand"), kinds.join());
  }));

Deno.test("runs: a delivered shipment is not planned for delivery on another run", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const first = await newRun(t, courier);
    const waybill = await bookWaybill(t, client);
    const add = { kind: "deliver", waybill, idempotency_key: "plan-1" };
    const planned = await post(t, courier, `/business/network-runs/${first}/stops`, add, 201);
    const stop = (await post(t, courier, `/business/network-runs/${first}/depart`, {})).data
      .stops[0].id;
    await post(t, courier, `/business/network-runs/${first}/stops/${stop}/deliver`, {});
    const second = await newRun(t, courier);
    const refused = await post(t, courier, `/business/network-runs/${second}/stops`, add, 409);
    assert.equal(refused.code, "shipment_closed", JSON.stringify(refused));
    const run = (await t.call("GET", `/business/network-runs/${second}`, {
      key: courier.business.api_key,
    })).body.data;
    assert.deepEqual([run.stops, run.items], [[], []]);
    // On the run that delivered it, the stop added before, sent again, answers as it did.
    const again = await t.call("POST", `/business/network-runs/${first}/stops`, {
      key: courier.business.api_key,
      body: add,
    });
    assert.ok(again.status < 300, JSON.stringify(again.body));
    assert.deepEqual(
      again.body.data.stops.map((s: { id: string }) => s.id),
      planned.data.stops.map((s: { id: string }) => s.id),
    );
  }));

/** A deliver stop added as runs added them before claims were kept (none taken). */
async function plannedBeforeClaims(t: TestEnv, courier: Courier, run: string, waybill: string) {
  const stop = {
    id: `stop_${run}_old`,
    kind: "deliver",
    waybill,
    work_order: null,
    country: null,
    to_country: null,
    border_post: null,
    load: NO_LOAD,
  } as const;
  const r = await t.env.runtime.ask(networkRunActor, courier.business.id, run, {
    kind: "add_stop",
    stop,
    by: "api_key",
  });
  assert.ok(r.ok, JSON.stringify(r));
}

/** Adds a deliver stop for the shipment on the run; answers the route's answer. */
function planOn(t: TestEnv, courier: Courier, run: string, waybill: string, key?: string) {
  return t.call("POST", `/business/network-runs/${run}/stops`, {
    key: courier.business.api_key,
    body: { kind: "deliver", waybill, ...(key ? { idempotency_key: key } : {}) },
  });
}

/** The run's items, as waybill and state. */
async function itemsOf(t: TestEnv, courier: Courier, run: string) {
  const r = await t.call("GET", `/business/network-runs/${run}`, {
    key: courier.business.api_key,
  });
  return r.body.data.items.map((i: { waybill: string; state: string }) => [i.waybill, i.state]);
}

Deno.test("runs: a shipment planned on an open run is not planned on another (409 planned_on_another_run)", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const [first, second, third] = [
      await newRun(t, courier),
      await newRun(t, courier),
      await newRun(t, courier),
    ];
    const waybill = await bookWaybill(t, client);
    assert.equal((await planOn(t, courier, first, waybill)).status, 201);
    // spec: courier 3.4: one shipment, one run that carries it: two drivers never carry it out.
    const refused = await planOn(t, courier, second, waybill);
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(refused.body.code, "planned_on_another_run");
    assert.match(refused.body.message, new RegExp(first));
    assert.deepEqual(await itemsOf(t, courier, second), []);
    // A transfer moves it on purpose: the run that took it plans its delivery, no other does.
    await post(t, courier, `/business/network-runs/${first}/transfer`, {
      waybills: [waybill],
      to_run: third,
    });
    const elsewhere = await planOn(t, courier, second, waybill);
    assert.equal(elsewhere.status, 409, JSON.stringify(elsewhere.body));
    assert.match(elsewhere.body.message, new RegExp(third));
    assert.equal((await planOn(t, courier, third, waybill)).status, 201);
    assert.deepEqual(await itemsOf(t, courier, third), [[waybill, "planned"]]);
    // Once the run that has it gives it an end state, another run may plan it.
    await post(t, courier, `/business/network-runs/${third}/report`, {
      waybill,
      condition: "damaged",
      note: "crushed at the depot",
    });
    assert.equal((await planOn(t, courier, second, waybill)).status, 201);
  }));

Deno.test("runs: two runs planning one shipment at once: exactly one plans it", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const runs = [await newRun(t, courier), await newRun(t, courier)];
    const waybill = await bookWaybill(t, client);
    const answers = await Promise.all(runs.map((run) => planOn(t, courier, run, waybill)));
    const statuses = answers.map((a) => a.status).sort();
    assert.deepEqual(statuses, [201, 409], JSON.stringify(answers.map((a) => a.body)));
    const winner = runs[answers.findIndex((a) => a.status === 201)]!;
    const lost = answers.findIndex((a) => a.status === 409);
    const loser = answers[lost]!;
    assert.equal(loser.body.code, "planned_on_another_run");
    // The loser names the winner; or, refused while the winner was still taking the claim over,
    // says its own run let it go: never names itself as the run planning it.
    assert.match(
      loser.body.message,
      new RegExp(`planned on run ${winner}|run ${runs[lost]} let it go`),
      loser.body.message,
    );
    assert.doesNotMatch(loser.body.message, new RegExp(`planned on run ${runs[lost]}`));
    const carried = await Promise.all(runs.map((run) => itemsOf(t, courier, run)));
    assert.equal(carried.flat().length, 1, JSON.stringify(carried));
  }));

Deno.test("runs: a plan a crash cut off before the run added it blocks no other run; its retry is refused", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const [first, second] = [await newRun(t, courier), await newRun(t, courier)];
    const waybill = await bookWaybill(t, client);
    // The first run's claim on the shipment, recorded before a crash kept the run from adding it.
    const tenant = courier.business.id;
    const claim = { kind: "plan", run_id: first } as const;
    assert.ok((await t.env.runtime.ask(shipmentRunsActor, tenant, waybill, claim)).ok);
    assert.equal((await planOn(t, courier, second, waybill, "p-2")).status, 201);
    const late = await planOn(t, courier, first, waybill, "p-1");
    assert.equal(late.status, 409, JSON.stringify(late.body));
    assert.equal(late.body.code, "planned_on_another_run");
    assert.deepEqual(await itemsOf(t, courier, first), []);
    assert.deepEqual(await itemsOf(t, courier, second), [[waybill, "planned"]]);
  }));

/** The code a run's step answered through `runtime`: "recorded", or the refusal's code. */
async function stepAnswer(step: () => Promise<unknown>): Promise<string> {
  return await step().then(
    () => "recorded",
    (e) => e instanceof Refused ? e.rejection.code : String(e),
  );
}

Deno.test("runs: a shipment operations return between the delivery's checks and its record is not delivered", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const { run, waybill } = await deliveryRun(t, courier, client);
    const stop = (await post(t, courier, `/business/network-runs/${run}/depart`, {})).data
      .stops[0].id as string;
    const returned = () =>
      post(t, courier, `/business/courier/shipments/${waybill}/scans`, {
        event: "returned",
      }, 201);
    const runtime = runtimeWithGap(t, "stop_deliver", returned);
    const caller = { tenant: courier.business.id, by: "api_key", scopes: [], driver_id: null };
    const body = { received_by: "Kagiso" };
    const answer = await stepAnswer(() => deliver({ ...t.env, runtime }, caller, run, stop, body));
    // spec: courier 3.4: an item's end state is what happened to it: a parcel returned was not
    // delivered too (one state at a time).
    assert.equal(answer, "shipment_closed");
    const trail = await trailOf(t, courier, waybill);
    assert.ok(!trail.includes("delivered"), trail.join());
    assert.equal(trail.at(-1), "returned", trail.join());
    const now = (await t.call("GET", `/business/network-runs/${run}`, {
      key: courier.business.api_key,
    })).body.data;
    assert.equal(now.stops[0].status, "pending");
  }));

Deno.test("runs: a shipment cancelled between the collection's checks and its record is not collected, nor its errand charged", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const run = await newRun(t, courier);
    const stop = await collectStop(t, courier, run, client, { kg: 5, pieces: 2 });
    const waybill = await bookWaybill(t, client);
    const cancelled = () =>
      post(t, courier, `/business/courier/shipments/${waybill}/scans`, {
        event: "cancelled",
        reason: "client called it off",
      }, 201);
    const runtime = runtimeWithGap(t, "stop_collect", cancelled);
    const caller = { tenant: courier.business.id, by: "api_key", scopes: [], driver_id: null };
    const answer = await stepAnswer(() =>
      collect({ ...t.env, runtime }, caller, run, stop, { waybill })
    );
    // spec: courier 2.6 rule 3, 3.4: a cancelled shipment is not collected, nor charged for.
    assert.equal(answer, "shipment_closed");
    const now = (await t.call("GET", `/business/network-runs/${run}`, {
      key: courier.business.api_key,
    })).body.data;
    assert.deepEqual(now.items, []);
    const trail = await trailOf(t, courier, waybill);
    assert.equal(trail.at(-1), "cancelled", trail.join());
    const kinds = (await ledger(t, courier, client)).map((e) => e.kind);
    assert.ok(!kinds.includes("errand"), kinds.join());
  }));

Deno.test("runs: an operations return meeting a delivery the run recorded waits for its custody move; the parcel is delivered once", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const { run, waybill } = await deliveryRun(t, courier, client);
    const stop = (await post(t, courier, `/business/network-runs/${run}/depart`, {})).data
      .stops[0].id as string;
    const scan = () =>
      t.call("POST", `/business/courier/shipments/${waybill}/scans`, {
        key: courier.business.api_key,
        body: { event: "returned" },
      });
    // The return is sent once the run recorded the delivery, before its custody move.
    let returned: Awaited<ReturnType<typeof scan>> | null = null;
    const runtime = new Proxy(t.env.runtime, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (typeof value !== "function") return value;
        if (property !== "ask") return value.bind(target);
        return async (...args: unknown[]) => {
          const [def, , , c] = args as [{ type: string }, string, string, ShipmentCommand];
          const move = def.type === "shipment" && c.kind === "record" && c.step !== undefined;
          if (returned === null && move) returned = await scan();
          return await value.apply(target, args);
        };
      },
    });
    const caller = { tenant: courier.business.id, by: "api_key", scopes: [], driver_id: null };
    const answer = await stepAnswer(() =>
      deliver({ ...t.env, runtime }, caller, run, stop, { received_by: "Kagiso" })
    );
    assert.equal(answer, "recorded");
    // spec: courier 3.4: the delivery recorded stands; the return is refused until it lands.
    assert.equal(returned!.status, 409, JSON.stringify(returned!.body));
    assert.equal(returned!.body.code, "run_step_under_way");
    const trail = await trailOf(t, courier, waybill);
    assert.equal(trail.at(-1), "delivered", trail.join());
    assert.ok(!trail.includes("returned"), trail.join());
    const again = await scan();
    assert.equal(again.body.code, "shipment_closed", JSON.stringify(again.body));
  }));
