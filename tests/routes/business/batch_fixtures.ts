/** A batch body of Business API 2.3 in Gaborone, for batch tests. */
import { BatchBody, toBatchRequest } from "../../../src/business/batch_schema.ts";
import { bookBatch } from "../../../src/business/flows/batches.ts";
import { tripNumbersOf } from "../../../src/business/flows/trip_numbers.ts";
import { dispatcherOf } from "../../../src/business/reactors/dispatcher.ts";
import type { ActorRuntime } from "../../../src/runtime/runtime.ts";
import type { TestEnv } from "../../helpers/test_env.ts";

/** A stop from the Main Mall to a point `north` km north and `east` km east of it. */
export function stop(
  name: string,
  size: string,
  north: number,
  east: number,
  extra: Record<string, unknown> = {},
) {
  return {
    recipient_name: name,
    recipient_phone: "+26771234567",
    pickup_address: "Main Mall, Gaborone",
    pickup_lat: -24.6545,
    pickup_lng: 25.9086,
    dest_address: `${name}'s house`,
    dest_lat: -24.6545 + north / 111,
    dest_lng: 25.9086 + east / 101,
    size,
    ...extra,
  };
}

/** Three stops along one road east: sent out of order, driven 1 km, 2 km, 3 km. */
export const LINE = [
  stop("Mpho", "s", 0, 3),
  stop("Neo", "l", 0, 1, { weight_kg: 20 }),
  stop("Kabo", "medium", 0, 2),
];

export function postBatch(
  t: TestEnv,
  key: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return t.call("POST", "/business/batches", { key, body, headers });
}

/** Until the bus, the outboxes and the dispatcher are done (a batch's stops given to its driver). */
export async function quiet(t: TestEnv) {
  for (let i = 0; i < 3; i++) {
    await t.settle();
    await dispatcherOf(t.env).idle();
  }
}

/** Picks the claim of the trip of the batch's stop at `position` in the driving order. */
export function stopClaim(position: number) {
  return (type: string, command: unknown) => {
    const c = command as { kind?: string; claim?: { draft?: { batch?: { position?: number } } } };
    return type === "business_trip" && c.kind === "claim" &&
      c.claim?.draft?.batch?.position === position;
  };
}

/** The operator raises every Gaborone base fare by `amount` (spec: CONTRACT catalogue). */
export async function raiseGaboroneFares(t: TestEnv, amount: number) {
  const now = await t.call("GET", "/operator/business-catalogue", { operator: true });
  const zones = now.body.data.zones.map((z: { id: string; rates: { base_fare: string }[] }) =>
    z.id !== "gaborone" ? z : {
      ...z,
      rates: z.rates.map((r) => ({ ...r, base_fare: (Number(r.base_fare) + amount).toFixed(2) })),
    }
  );
  const put = await t.call("PUT", "/operator/business-catalogue", {
    operator: true,
    body: { ...now.body.data, zones },
  });
  if (put.status !== 200) throw new Error(`catalogue: ${put.status} ${JSON.stringify(put.body)}`);
}

/** Books the batch `raw` for the business through `runtime` (a faulty one, to cut it short). */
export function bookBatchThrough(
  t: TestEnv,
  runtime: ActorRuntime,
  businessId: string,
  raw: Record<string, unknown>,
) {
  const body = BatchBody.parse(raw);
  return bookBatch({ ...t.env, runtime, numbers: tripNumbersOf(t.env) }, businessId, {
    request: toBatchRequest(body),
    body,
    idempotencyKey: null,
    by: "api_key",
  });
}
