/**
 * A pool driver's holding moves on (Business API 3.1 queued): a trip that ended or was given back
 * releases its driver; a driver whose trip under way was released starts the trip queued behind
 * it, which goes from queued to accepted. Each step is the handler of an outbox written in the
 * commit of the step before (rules/driver_holding.ts), and each is idempotent (a release of a
 * trip not held, a start of a trip no longer queued, change nothing), so the outbox's sweep
 * completes what a crash cut off.
 */
import { poolDriverActor } from "../../../actors/business/pool_driver.ts";
import { tripActor } from "../../../actors/business/trip/mod.ts";
import { PLATFORM_TENANT } from "../../../actors/platform/platform_settings.ts";
import type { Deps } from "../../environment.ts";
import { orRefuse } from "../../runtime/actor.ts";
import { type HoldingItem, tripOfKey } from "../rules/driver_holding.ts";

type D = Pick<Deps, "runtime" | "requestId">;

/** The driver no longer holds the trip (the outbox of the trip's end or giving back). */
export async function releaseDriver(deps: D, item: HoldingItem): Promise<void> {
  orRefuse(
    await deps.runtime.ask(poolDriverActor, PLATFORM_TENANT, item.driver_id, {
      kind: "release",
      trip: item.trip,
    }, { requestId: deps.requestId }),
  );
}

/** The queued trip that became the driver's current one starts (queued to accepted). */
export async function startQueuedTrip(deps: D, item: HoldingItem): Promise<void> {
  const of = tripOfKey(item.trip);
  if (of === null) return;
  const r = await deps.runtime.ask(tripActor, of.business_id, of.reference, {
    kind: "start",
    driver_id: item.driver_id,
  }, { requestId: deps.requestId });
  // Another driver's trip (given back and taken since) or none: nothing of this driver's to start.
  if (!r.ok && r.code !== "not_found") orRefuse(r);
}
