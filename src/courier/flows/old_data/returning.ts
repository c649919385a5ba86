/**
 * Old data: shipments stored returning before the returning rule (STEPS.returning: the way back
 * owes the recipient nothing) still hold the recipient's milestones and the promise. The actor's
 * load reads them as the rule leaves them, but the store and the board's read table keep the old
 * health until the next scan or check. This pass writes each one as load leaves it (`restate`).
 */
import { shipmentActor } from "../../../../actors/courier/shipment/mod.ts";
import type { Shipment } from "../../../../actors/courier/shipment/mod.ts";
import type { ActorRuntime } from "../../../runtime/runtime.ts";
import { openUnderRules } from "../../rules/lifecycle.ts";

/** Whether today's rules close milestones a stored shipment still holds open. */
function stale(state: Shipment | null): boolean {
  if (state === null || state.milestones === undefined) return false;
  return openUnderRules(state.status, state.milestones) !== state.milestones;
}

/**
 * Restates every stored shipment whose milestones today's rules would close. Idempotent: a
 * restated shipment is stored as the rules leave it. Answers how many it restated.
 */
export async function restateReturningShipments(runtime: ActorRuntime): Promise<number> {
  let restated = 0;
  for await (const { id, record } of runtime.stored(shipmentActor)) {
    // Version 1 records start their lifecycle on load, booked: nothing of the returning rule.
    if (record.v < 2 || !stale(record.state as Shipment | null)) continue;
    const r = await runtime.ask(shipmentActor, record.tenant, id, { kind: "restate" });
    if (!r.ok) throw new Error(`restating shipment ${id}: ${r.code}: ${r.message}`);
    restated++;
  }
  return restated;
}
