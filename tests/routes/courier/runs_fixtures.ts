/**
 * What the network run tests share: the courier's POSTs, a courier and client ready, runs with
 * collect and deliver stops, and what a shipment's trail, milestones and ledger show.
 */
import assert from "node:assert/strict";
import type { RunCommand } from "../../../actors/courier/network_run/mod.ts";
import type { ActorRuntime } from "../../../src/runtime/runtime.ts";
import type { TestEnv } from "../../helpers/test_env.ts";
import {
  bookWaybill,
  type Client,
  type Courier,
  grantScopes,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";

/** POST `path` with the courier's key, which must answer `status`; answers the body. */
export async function post(
  t: TestEnv,
  courier: Courier,
  path: string,
  body: unknown,
  status = 200,
) {
  const r = await t.call("POST", path, { key: courier.business.api_key, body });
  assert.equal(r.status, status, `${path}: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** A linehaul run from GBE-HUB (`extra` over its body); answers its id. */
export async function newRun(t: TestEnv, courier: Courier, extra: Record<string, unknown> = {}) {
  const r = await t.call("POST", "/business/network-runs", {
    key: courier.business.api_key,
    body: {
      facility_id: "GBE-HUB",
      kind: "linehaul",
      countries: ["BW"],
      capacity: { kg: 100, m3: 2, pieces: 10, cold_slots: 0 },
      vehicle: "B 123 ABC",
      ...extra,
    },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.data.id as string;
}

/** A collect stop for the client's work order, reserving `kg` and `pieces`; answers its id. */
export async function collectStop(
  t: TestEnv,
  courier: Courier,
  run: string,
  client: Client,
  reserved: { kg: number; pieces: number },
): Promise<string> {
  const added = await post(t, courier, `/business/network-runs/${run}/stops`, {
    kind: "collect",
    work_order: {
      sender: "Molapo Pharmacy",
      recipient: "Gaborone hub",
      courier_client_id: client.id,
      reserved: { ...reserved, m3: 0.1 },
    },
  }, 201);
  return added.data.stops.at(-1).id;
}

/** A courier with errand, failed-collection and waiting fees, and a client topped up with 2000. */
export async function ready(t: TestEnv): Promise<[Courier, Client]> {
  const courier = await newCourier(t, {
    errand_fee: 20,
    failed_collection_fee: 15,
    waiting_fee: 10,
  });
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "2000");
  return [courier, client];
}

/**
 * A courier and client ready, a run from Botswana into South Africa (not yet departed) and
 * `count` shipments for South Africa; the courier may approve at customs when `customs`.
 */
export async function crossBorderRun(t: TestEnv, count: number, o: { customs?: boolean } = {}) {
  const [courier, client] = await ready(t);
  if (o.customs) await grantScopes(t, courier, "customs:approve");
  const run = await newRun(t, courier, { countries: ["BW", "ZA"] });
  const waybills: string[] = [];
  for (let i = 0; i < count; i++) waybills.push(await bookWaybill(t, client, { to_country: "ZA" }));
  return { courier, client, run, waybill: waybills[0]!, waybills };
}

/** A border stop (Botswana to South Africa at Tlokweng) added to the run; answers its id. */
export async function checkpointStop(t: TestEnv, courier: Courier, run: string): Promise<string> {
  const added = await post(t, courier, `/business/network-runs/${run}/stops`, {
    kind: "checkpoint",
    country: "BW",
    to_country: "ZA",
    border_post: "Tlokweng",
  }, 201);
  return added.data.stops.at(-1).id;
}

/** A run with a deliver stop for each of `count` new shipments of the client. */
export async function deliveryRun(t: TestEnv, courier: Courier, client: Client, count = 1) {
  const run = await newRun(t, courier);
  const waybills: string[] = [];
  for (let i = 0; i < count; i++) waybills.push(await bookWaybill(t, client));
  await deliverStops(t, courier, run, waybills);
  return { run, waybill: waybills[0]!, waybills };
}

/** A deliver stop on the run for each shipment, in order. */
export async function deliverStops(t: TestEnv, courier: Courier, run: string, waybills: string[]) {
  for (const waybill of waybills) {
    await post(
      t,
      courier,
      `/business/network-runs/${run}/stops`,
      { kind: "deliver", waybill },
      201,
    );
  }
}

/** The client's ledger entries as the query side holds them, once it caught up. */
export async function ledger(t: TestEnv, courier: Courier, client: Client) {
  await t.settle();
  return await t.env.db.selectFrom("ledger_entries").selectAll()
    .where("tenant", "=", courier.business.id)
    .where("client_id", "=", client.id)
    .execute();
}

/** The events of a shipment's trail, in order. */
export async function trailOf(t: TestEnv, courier: Courier, waybill: string): Promise<string[]> {
  const r = await t.call("GET", `/business/courier/operations/${waybill}`, {
    key: courier.business.api_key,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.trail.map((e: { event: string }) => e.event);
}

/** The open milestones of a shipment, by name in order. */
export async function milestonesOf(
  t: TestEnv,
  courier: Courier,
  waybill: string,
): Promise<string[]> {
  const r = await t.call("GET", `/business/courier/operations/${waybill}`, {
    key: courier.business.api_key,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.obligations.map((o: { milestone: string }) => o.milestone).sort();
}

/**
 * The environment's own runtime, except that `before` runs once just before the first ask of a
 * run's change of `kind` goes through: what another request does between a flow's checks and
 * its record. Nothing stands in for KV, the bus or Postgres.
 */
export function runtimeWithGap(
  t: TestEnv,
  kind: string,
  before: () => Promise<unknown>,
): ActorRuntime {
  let done = false;
  return new Proxy(t.env.runtime, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property !== "ask") return value.bind(target);
      return async (...args: unknown[]) => {
        const [def, , , command] = args as [{ type: string }, string, string, RunCommand];
        // The change itself, out of its idempotency key's and its driver's wrappings.
        let change: RunCommand = command;
        while (change.kind === "keyed" || change.kind === "as_driver") change = change.change;
        if (!done && def.type === "network_run" && change.kind === kind) {
          done = true;
          await before();
        }
        return await value.apply(target, args);
      };
    },
  });
}
