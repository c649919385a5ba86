/**
 * A border stop's presentation the crossing withdrew, withdrawn on the shipment too (courier 3.4,
 * 3.2): by the border request that withdrew it (src/courier/flows/runs/customs_gate.ts), and by
 * the crossing's outbox (src/courier/reactors/presentations_withdrawn.ts) when that request
 * stopped before it.
 */
import { foundOrNull, Refused } from "../../runtime/actor.ts";
import { customsCrossingActor } from "../../../actors/courier/customs_crossing/mod.ts";
import { type Presentation, shipmentActor } from "../../../actors/courier/shipment/mod.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";

/**
 * spec: courier 3.4, 3.2: a border stop's presentation the crossing withdrew (the shipment left
 * the run before the stop was recorded) is withdrawn on the shipment too, once: the
 * customs_clearance it opened is taken back and the headline it set is the one before
 * (actors/courier/shipment/presentation.ts); the trail keeps both. The shipment decides it by the
 * presentation it names (crossing, run, stop): sent again, or for one it never stood in, it
 * changes nothing; no idempotency key is kept for it, as a border request asks it for every
 * shipment that left its run (customs_gate.ts).
 */
export async function withdrawShipmentPresentation(
  runtime: ActorRuntime,
  tenant: string,
  at: Presentation & { readonly waybill: string; readonly by: string },
  requestId?: string,
): Promise<void> {
  const { waybill, by, crossing_id, run_id, stop_id } = at;
  const presentation = { crossing_id, run_id, stop_id };
  const command = { kind: "withdraw_presentation", presentation, by } as const;
  const r = await runtime.ask(shipmentActor, tenant, waybill, command, { requestId });
  if (!r.ok && r.code !== "not_found") throw new Refused(r);
}

/**
 * spec: courier 3.4, 3.2: a presentation the crossing withdrew, withdrawn on the shipment by the
 * border request (runs/customs_gate.ts) or the crossing's outbox
 * (src/courier/reactors/presentations_withdrawn.ts), unless the crossing is
 * presented at that very stop again since (the shipment came back on board before the withdrawal
 * reached it): the shipment still stands in that presentation, which the crossing's binds anew,
 * and withdrawing it would leave the shipment with no customs the crossing waits on.
 */
export async function withdrawnFromCrossing(
  runtime: ActorRuntime,
  tenant: string,
  at: Presentation & { readonly waybill: string; readonly by: string },
  requestId?: string,
): Promise<void> {
  const read = await runtime.read(customsCrossingActor, tenant, at.crossing_id, { kind: "get" });
  const now = foundOrNull(read)?.crossing;
  if (now?.run_id === at.run_id && now?.stop_id === at.stop_id) return;
  await withdrawShipmentPresentation(runtime, tenant, at, requestId);
}
