/**
 * The follow-ups of a transfer (follow_ups.ts): the keys its custody moves are recorded and
 * reserved under, what its target tells of it, and the moves on both runs.
 */
import { sha256Hex } from "../../../src/domain/secrets.ts";
import type { RunChange, TransferTarget } from "./commands.ts";
import {
  boarding,
  carriedPieces,
  custody,
  custodyKey,
  departureEvent,
  type FollowUp,
  holderOf,
} from "./follow_ups.ts";
import type { NetworkRun } from "./run.ts";

type Change<K extends RunChange["kind"]> = Extract<RunChange, { kind: K }>;

/**
 * The key of a transfer's custody moves: what moves where, whatever key the request sends, so the
 * same transfer sent again moves nothing again; each waybill counts the times it came onto the
 * run (`run` before the transfer), so a shipment that went away and came back moves again.
 */
export function transferKey(run: NetworkRun, waybills: readonly string[], toRun: string): string {
  const moving = [...new Set(waybills)].sort().map((w) => boarding(run, w)).join(",");
  return `transfer:${toRun}:${sha256Hex(moving)}`;
}

/**
 * The key of a transfer's step on one shipment: the key its custody move is recorded under
 * (transferFollowUps), which the transfer's request reserves the shipment with (shipment_gate.ts).
 */
export function transferStepKey(
  run: NetworkRun,
  waybills: readonly string[],
  toRun: string,
  waybill: string,
): string {
  return custodyKey(`${run.id}:${transferKey(run, waybills, toRun)}`, waybill);
}

/**
 * What the target of a transfer tells of it: its holder as the transfer found it, and the items it
 * took while under way (courier 3.2: onto a run already under way, the shipment departs with it,
 * depot_dwell closes, linehaul opens, as a stop added to it does; one taken before the run left
 * departs with it), each moved once per boarding of the target.
 */
export function transferTarget(
  target: NetworkRun,
  taken: NetworkRun,
  waybills: readonly string[],
): TransferTarget {
  const underWay = taken.status === "departed"
    ? taken.items.filter((i) =>
      waybills.includes(i.waybill) && i.state === "on_board" && i.departed_at === undefined
    )
    : [];
  return {
    holder: holderOf(target),
    boarded: underWay.map((i) => ({
      waybill: i.waybill,
      key: `${taken.id}:boarded:${boarding(taken, i.waybill)}`,
      event: departureEvent(taken, i.waybill),
      holder: holderOf(taken),
    })),
  };
}

/**
 * The items move to the target's holder; those the target took under way depart with it
 * (courier 3.2), once per boarding of the target. `before` is the run as the transfer found it.
 */
export function transferFollowUps(
  before: NetworkRun,
  after: NetworkRun,
  c: { waybills: readonly string[]; to_run: string; to: TransferTarget; by: string },
): FollowUp[] {
  const key = `${before.id}:${transferKey(before, c.waybills, c.to_run)}`;
  const holder = c.to.holder;
  const pieces = (w: string) => carriedPieces(after.stops, w);
  return [
    ...c.waybills.map((w) =>
      custody(w, key, {
        holder,
        note: `transferred to run ${c.to_run}`,
        event: "scan",
        pieces: pieces(w),
        by: c.by,
      })
    ),
    ...c.to.boarded.map((b) =>
      custody(b.waybill, b.key, {
        event: b.event,
        holder: b.holder,
        pieces: pieces(b.waybill),
        by: c.by,
      })
    ),
  ];
}

/**
 * What follows the target taking a transfer's items: the run they came from marks them
 * transferred here, told what the target took (`before` and `after` it took them).
 */
export function transferInFollowUps(
  before: NetworkRun,
  after: NetworkRun,
  c: Change<"transfer_in">,
): FollowUp[] {
  const waybills = c.items.map((i) => i.waybill);
  return [{
    kind: "transfer_out",
    from_run: c.from_run,
    to_run: after.id,
    waybills,
    to: transferTarget(before, after, waybills),
    ...(c.gates ? { gates: c.gates } : {}),
    by: c.by,
  }];
}
