/**
 * The stop actions (courier 3.4, 4.5): a border stop presented, its exit and entry; a delivery,
 * a collection, a failure; the wait at a stop. A stop action sent again after it was made
 * changes nothing (a replay after lost signal).
 */
import { reject } from "../../../src/runtime/actor.ts";
import type { RunChange } from "./commands.ts";
import {
  addLoad,
  coldLoad,
  type EndState,
  isEnded,
  ITEMS_MAX,
  itemsWhere,
  loadOf,
  type NetworkRun,
  overCapacity,
  reservedOpen,
  type Stop,
} from "./run.ts";
import { voidedGate } from "./customs_gate.ts";
import { stepKeyOf, voidedStep } from "./shipment_gate.ts";
import { entry, SAME, type Step } from "./step.ts";

type Change<K extends RunChange["kind"]> = Extract<RunChange, { kind: K }>;

function stopOf(run: NetworkRun, id: string): Stop | undefined {
  return run.stops.find((s) => s.id === id);
}

/**
 * spec: courier 3.4: the driver presents the vehicle with what it carries, so only a run under
 * way presents a border stop: one still at its depot carries nothing yet (its shipments are
 * planned), and a stop presented empty, then cleared, would let them by customs. Null: it may.
 */
export function presentable(run: NetworkRun) {
  if (run.status === "departed") return null;
  return reject(
    "run_not_departed",
    `a border stop is presented by a run under way: run ${run.id} is ${run.status}`,
  );
}

export function border(run: NetworkRun, c: Change<"stop_border">, now: number): Step {
  const stop = stopOf(run, c.stop_id);
  if (!stop || stop.kind !== "checkpoint") return reject("not_found", `no checkpoint ${c.stop_id}`);
  if (stop.status !== "pending") return SAME;
  const early = presentable(run);
  if (early) return early;
  // spec: courier 3.4: presented with all it carries: a shipment that came on board (or left)
  // since the crossings were opened is presented again with the load as it is.
  const aboard = new Set(run.items.filter((i) => i.state === "on_board").map((i) => i.waybill));
  const named = new Set(c.waybills ?? aboard);
  if (named.size !== aboard.size || [...aboard].some((w) => !named.has(w))) {
    return reject(
      "border_load_changed",
      `run ${run.id} took or left shipments while border stop ${stop.id} was presented: ` +
        `present it again`,
    );
  }
  return [{
    kind: "stop_presented",
    stop_id: stop.id,
    crossings: c.crossings,
    entry: entry("border", c.by, now, stop.id),
  }];
}

/**
 * spec: courier 3.4: customs records a border stop cleared or refused once the driver presented
 * it, and a stop customs refused is never cleared after all (its shipments were presented to no
 * one, or turned back). Null: customs may decide.
 */
function customsMayDecide(stop: Stop) {
  if (stop.status === "pending") {
    return reject(
      "border_not_presented",
      `border stop ${stop.id} is not presented yet: the driver records border first`,
    );
  }
  if (stop.status === "refused") {
    return reject("border_refused", `border stop ${stop.id} was refused: it cannot be crossed`);
  }
  return null;
}

export function cross(run: NetworkRun, c: Change<"stop_cross">, now: number): Step {
  const stop = stopOf(run, c.stop_id);
  if (!stop || stop.kind !== "checkpoint") return reject("not_found", `no checkpoint ${c.stop_id}`);
  if ((c.side === "exit" ? stop.exit_at : stop.entry_at) !== null) return SAME;
  const unsettled = customsMayDecide(stop);
  if (unsettled) return unsettled;
  // spec: courier 3.4: the exit is recorded before the entry.
  if (c.side === "entry" && stop.exit_at === null) {
    return reject("exit_before_entry", "record the exit before the entry");
  }
  return [{
    kind: "stop_crossed",
    stop_id: stop.id,
    side: c.side,
    at: now,
    entry: entry(`cross_${c.side}`, c.by, now, stop.id),
  }];
}

export function deliver(run: NetworkRun, c: Change<"stop_deliver">, now: number): Step {
  const stop = stopOf(run, c.stop_id);
  if (!stop || stop.kind !== "deliver" || !stop.waybill) {
    return reject("not_found", `no deliver stop ${c.stop_id}`);
  }
  if (stop.status === "done") return SAME;
  const voided = voidedGate(run, stop.waybill, c.gate) ??
    voidedStep(run, stepKeyOf(run.id, stop.id, "deliver", stop.waybill), stop.waybill);
  if (voided) return voided;
  // A shipment transferred off this run is the other run's to deliver (courier 3.4: an end state
  // stays as it ended); its stop here cannot deliver it.
  if (!run.items.some((i) => i.waybill === stop.waybill && !isEnded(i))) {
    return reject(
      "item_ended",
      `${stop.waybill} has its end state on this run and cannot be delivered from stop ${stop.id}`,
    );
  }
  const end: EndState = c.lab_handover ? "lab_handover" : "delivered";
  return [{
    kind: "stop_delivered",
    stop_id: stop.id,
    end,
    items: itemsWhere(run, (i) => i.waybill === stop.waybill && !isEnded(i)),
    entry: entry("deliver", c.by, now, stop.waybill),
  }];
}

export function collect(run: NetworkRun, c: Change<"stop_collect">, now: number): Step {
  const stop = stopOf(run, c.stop_id);
  if (!stop || stop.kind !== "collect" || !stop.work_order) {
    return reject("not_found", `no collect stop ${c.stop_id}`);
  }
  if (stop.collected.some((x) => x.waybill === c.waybill)) return SAME;
  const closed = voidedStep(run, stepKeyOf(run.id, stop.id, "collect", c.waybill), c.waybill);
  if (closed) return closed;
  // spec: courier 3.4: a claim this run let go means another run plans the shipment now.
  if (c.claim && (run.released_claims ?? []).includes(c.claim)) {
    return reject(
      "planned_on_another_run",
      `${c.waybill} is planned on another run since: run ${run.id} let it go`,
    );
  }
  // spec: courier 3.4: a shipment is one item on a run, in one state (as add_stop refuses a
  // deliver stop for one on it): collected again elsewhere it would be carried, and counted, twice.
  if (run.items.some((i) => i.waybill === c.waybill && !isEnded(i))) {
    return reject("already_on_run", `${c.waybill} is already on this run`);
  }
  const load = coldLoad(run, c.waybill, c.load);
  const collected = stop.collected.reduce((sum, x) => addLoad(sum, x.load), load);
  const over = overCapacity(collected, stop.work_order.reserved);
  if (over && !c.override_reason) {
    return reject(
      "over_reserved",
      `collecting more ${over} than reserved needs runs:override and a reason`,
    );
  }
  if (run.items.length >= ITEMS_MAX) {
    return reject("run_full", `a run carries at most ${ITEMS_MAX} items`);
  }
  // What other collect stops still to be worked reserved stays theirs (as add_stop counts it):
  // an override here takes none of it (courier 2.10 capacities never oversold).
  const others = reservedOpen({ ...run, stops: run.stops.filter((s) => s.id !== stop.id) });
  const total = overCapacity(addLoad(addLoad(loadOf(run), load), others), run.capacity);
  if (total) {
    return reject("capacity_exceeded", `the run's ${total} capacity would be exceeded`);
  }
  // spec: courier 6.1 `run.collected:{stop}`, one event per charge: the stop's errand is charged
  // once, with its first collection; the later ones at the stop book none.
  const first = stop.collected.length === 0;
  return [{
    kind: "stop_collected",
    stop_id: stop.id,
    collected: { waybill: c.waybill, labels: c.labels, load },
    item: { waybill: c.waybill, state: "on_board", load, exception: null, stop_id: stop.id },
    ...(first ? { errand_waybill: c.waybill } : {}),
    entry: entry("collect", c.by, now, over ? `over reserved: ${c.override_reason}` : c.waybill),
  }];
}

export function fail(run: NetworkRun, c: Change<"stop_fail">, now: number): Step {
  const stop = stopOf(run, c.stop_id);
  if (!stop) return reject("not_found", `no stop ${c.stop_id}`);
  if (c.reason.trim() === "") return reject("reason_required", "a failed stop needs a reason");
  // spec: courier 3.4: a border stop customs turns back is refused, not failed.
  const failed = stop.kind === "checkpoint" ? "refused" : "failed";
  if (stop.status === failed) return SAME;
  const voided = stop.waybill
    ? voidedGate(run, stop.waybill, c.gate) ??
      voidedStep(run, stepKeyOf(run.id, stop.id, "fail", stop.waybill), stop.waybill)
    : null;
  if (voided) return voided;
  const unpresented = stop.kind === "checkpoint" && stop.status === "pending";
  if (unpresented) return customsMayDecide(stop)!;
  // A delivery, collection or crossing that was made stays made: failing it afterwards would
  // leave the stop saying failed while its shipment says delivered (courier 3.4).
  if (stop.status === "done" || stop.status === "cleared") {
    return reject(
      "stop_already_done",
      `stop ${stop.id} is already done and cannot fail: ${stop.kind}`,
    );
  }
  // A shipment that ended on this run (transferred on, reported) is not here to attempt: a
  // failed attempt would owe its recipient a redelivery never caused (courier 3.2, 3.4).
  if (
    stop.kind === "deliver" && stop.waybill &&
    !run.items.some((i) => i.waybill === stop.waybill && !isEnded(i))
  ) {
    return reject(
      "item_ended",
      `${stop.waybill} has its end state on this run and cannot fail at stop ${stop.id}`,
    );
  }
  return [{
    kind: "stop_failed",
    stop_id: stop.id,
    status: failed,
    entry: entry("fail", c.by, now, c.reason),
  }];
}

export function waiting(run: NetworkRun, c: Change<"stop_waiting">, now: number): Step {
  const stop = stopOf(run, c.stop_id);
  if (!stop) return reject("not_found", `no stop ${c.stop_id}`);
  // spec: courier 6.1 `run.waiting:{stop}`, 2.6 rule 2: one wait per stop, charged once.
  const charged = stop.waiting_waybill ?? null;
  if (charged === c.waybill) return SAME;
  if (charged !== null) {
    return reject(
      "reference_conflict",
      `the wait at stop ${stop.id} was charged for ${charged}: ${c.waybill}`,
      { waybill: charged },
    );
  }
  return [{
    kind: "stop_wait_charged",
    stop_id: stop.id,
    waybill: c.waybill,
    entry: entry("waiting", c.by, now, c.waybill),
  }];
}
