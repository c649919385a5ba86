/**
 * A run's delivery of the sample and what blocks its handover, one after the other (courier 3.4:
 * a late sample, an out-of-range reading or a broken seal blocks the handover until the
 * laboratory's decision; the laboratory's rejection refuses it for good). The delivery's check
 * reserves the sample under the run's gate for the delivery when it allows it; a block, or a
 * rejection, meeting a delivery under way is refused `delivery_under_way`, naming it, until its
 * run voided it in its turn (src/courier/flows/lab.ts), so the delivery recorded after is
 * refused; one the run recorded first stands. The handover ends every reservation; one a refused
 * delivery left is voided by the next block.
 */
import { accept, reject } from "../../../src/runtime/actor.ts";
import type { Ctx } from "../../../src/runtime/actor.ts";
import { handoverVerdict, lateEvent } from "./lateness.ts";
import type {
  Decided,
  LabDelivery,
  LabSample,
  LabSampleEvent,
  LabSampleReply,
  LabSampleState,
} from "./types.ts";

/** Deliveries under way on one sample: few runs ever carry one (courier 3.4: one at a time). */
export const LAB_DELIVERIES_MAX = 20;

/** The handover check: lateness nobody recorded is recorded; an allowed delivery reserved. */
export function handoverCheck(
  state: LabSampleState,
  delivery: LabDelivery | undefined,
  ctx: Ctx,
): Decided {
  if (state === null) return reject("not_found", "no laboratory record for this shipment");
  const events: LabSampleEvent[] = lateEvent(state, ctx.now);
  const under = state.deliveries_under_way ?? [];
  const allowed = handoverVerdict(state, ctx.now).allowed;
  const fresh = delivery !== undefined && !under.some((d) => d.token === delivery.token);
  if (allowed && fresh && state.handed_over_at === undefined) {
    if (under.length >= LAB_DELIVERIES_MAX) {
      return reject(
        "delivery_under_way",
        `${state.waybill} has ${under.length} deliveries under way: try again once recorded`,
        { deliveries: [...under] },
      );
    }
    events.push({ kind: "handover_reserved", delivery });
  }
  return accept<LabSampleState, LabSampleEvent, LabSampleReply>(
    events,
    (s) => handoverVerdict(s as LabSample, ctx.now),
  );
}

/**
 * `decided` (a tick, reading or decision) as it meets the deliveries under way: one that blocks
 * the handover is refused while any but those named `voiding` is under way, and ends those.
 */
export function gated(
  state: LabSampleState,
  decided: Decided,
  voiding: readonly string[] | undefined,
): Decided {
  if (!decided.ok || state === null) return decided;
  const under = state.deliveries_under_way ?? [];
  if (under.length === 0 || !decided.events.some(blocks)) return decided;
  const open = under.filter((d) => !(voiding ?? []).includes(d.token));
  if (open.length > 0) {
    return reject(
      "delivery_under_way",
      `run ${open[0]!.run_id} is recording the delivery of ${state.waybill}`,
      { deliveries: open },
    );
  }
  const ended: LabSampleEvent = { kind: "handovers_ended", tokens: under.map((d) => d.token) };
  return { ...decided, events: [...decided.events, ended] };
}

/** Whether the event blocks the handover: a block opened, or the laboratory rejected it. */
function blocks(e: LabSampleEvent): boolean {
  return e.kind === "blocked" || (e.kind === "decided" && e.decision.decision === "reject");
}
