/** What the network run tests share: the courier's POSTs, a run, a collect stop on it. */
import assert from "node:assert/strict";
import type { TestEnv } from "../../helpers/test_env.ts";
import type { Client, Courier } from "../../helpers/courier.ts";

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
