/**
 * The changes to a run as a whole (courier 3.4, 4.5): its stops, its driver, departure, arrival,
 * unloading, the order of its stops, closing, expenses and cold slots.
 */
import { reject } from "../../../src/runtime/actor.ts";
import type { RunChange } from "./commands.ts";
import {
  addLoad,
  boardingState,
  coldLoad,
  END_STATES,
  isCarried,
  isEnded,
  isUnassigned,
  ITEMS_MAX,
  itemsWhere,
  loadOf,
  type NetworkRun,
  NO_LOAD,
  overCapacity,
  reservedOpen,
  type RunItem,
  type Stop,
  STOPS_MAX,
  toldSeq,
} from "./run.ts";
import { entry, SAME, type Step } from "./step.ts";

type Change<K extends RunChange["kind"]> = Extract<RunChange, { kind: K }>;

/**
 * The count of times the run is left without a driver, when `next` is one more of them
 * (courier 2.9 leg_unassigned: each time is its own condition).
 */
function unassignedTimes(run: NetworkRun, next: NetworkRun): { unassigned_times?: number } {
  if (!isUnassigned(next) || isUnassigned(run)) return {};
  return { unassigned_times: (run.unassigned_times ?? 0) + 1 };
}

export function addStop(run: NetworkRun, c: Change<"add_stop">, now: number): Step {
  if (run.stops.length >= STOPS_MAX) {
    return reject("run_full", `a run has at most ${STOPS_MAX} stops`);
  }
  if (run.stops.some((s) => s.id === c.stop.id)) return SAME;
  // spec: courier 3.4: a claim this run let go means another run plans the shipment now.
  if (c.claim && (run.released_claims ?? []).includes(c.claim)) {
    return reject(
      "planned_on_another_run",
      `${c.stop.waybill} is planned on another run since: run ${run.id} let it go`,
    );
  }
  const { load: given, ...fields } = c.stop;
  const load = coldLoad(run, fields.waybill, given);
  const stop: Stop = {
    ...fields,
    status: "pending",
    collected: [],
    exit_at: null,
    entry_at: null,
    crossings: [],
  };
  let item: RunItem | null = null;
  // A shipment transferred in rides without a stop: its deliver stop takes it (courier 3.4), its
  // load already carried.
  const takes = stop.kind === "deliver"
    ? run.items.findIndex((i) => i.waybill === stop.waybill && i.stop_id === null && !isEnded(i))
    : -1;
  if (takes < 0 && stop.kind === "deliver" && stop.waybill) {
    if (run.items.some((i) => i.waybill === stop.waybill && i.state !== "transferred")) {
      return reject("already_on_run", `${stop.waybill} is already on this run`);
    }
    if (run.items.length >= ITEMS_MAX) {
      return reject("run_full", `a run carries at most ${ITEMS_MAX} items`);
    }
    const state = boardingState(run);
    item = { waybill: stop.waybill, state, load, exception: null, stop_id: stop.id };
  }
  const reserved = stop.kind === "collect" && stop.work_order ? stop.work_order.reserved : NO_LOAD;
  const next = {
    ...run,
    stops: [...run.stops, stop],
    items: item ? [...run.items, item] : run.items,
  };
  const over = overCapacity(
    addLoad(addLoad(loadOf(next), reserved), reservedOpen(run)),
    run.capacity,
  );
  if (over) {
    return reject("capacity_exceeded", `adding stop ${stop.id} exceeds the run's ${over} capacity`);
  }
  return [{
    kind: "stop_added",
    stop,
    item,
    takes: takes < 0 ? null : takes,
    ...unassignedTimes(run, next),
    entry: entry("add_stop", c.by, now, stop.id),
  }];
}

export function assignDriver(run: NetworkRun, c: Change<"assign_driver">, now: number): Step {
  return [{
    kind: "driver_assigned",
    driver_id: c.driver_id,
    ...unassignedTimes(run, { ...run, driver_id: c.driver_id }),
    entry: entry("assign_driver", c.by, now, c.driver_id),
  }];
}

export function depart(run: NetworkRun, c: Change<"depart">, now: number): Step {
  // A run departs once: the departure sent again after it arrived or unloaded changes nothing
  // and answers the run as it stands, as a repeated arrival does (product rule: a retry completes
  // a crash's work exactly once; courier 3.2 linehaul opens on departure).
  if (run.status === "departed" || run.status === "arrived" || run.status === "unloaded") {
    return SAME;
  }
  return [departure(run, c.by, now)];
}

/** The run departing, with what it has on board. */
export function departure(run: NetworkRun, by: string, now: number) {
  return {
    kind: "departed" as const,
    at: now,
    items: itemsWhere(run, isCarried),
    entry: entry("depart", by, now),
  };
}

export function arrive(run: NetworkRun, c: Change<"arrive">, now: number): Step {
  // The arrival sent again changes nothing (nor moves its look for leg_trip_ended): its retry
  // does the custody moves a crash kept from following it (product rule: a crash between two
  // steps leaves state a retry completes); sent again after the unload (which follows only an
  // arrival), it answers the run as it stands, as a departure sent again does.
  if (run.status === "arrived" || run.status === "unloaded") return SAME;
  if (run.status !== "departed") {
    return reject("run_not_departed", `a run arrives after it departs: ${run.status}`);
  }
  return [{ kind: "arrived", entry: entry("arrive", c.by, now) }];
}

export function unload(run: NetworkRun, c: Change<"unload">, now: number): Step {
  const wanted = new Set(
    c.waybills ?? run.items.filter((i) => i.state === "on_board").map((i) => i.waybill),
  );
  return [{
    kind: "unloaded",
    status: run.status === "arrived" ? "unloaded" : run.status,
    items: itemsWhere(run, (i) => wanted.has(i.waybill) && i.state === "on_board"),
    entry: entry("unload", c.by, now),
  }];
}

export function reorder(run: NetworkRun, c: Change<"reorder">, now: number): Step {
  const ids = new Set(c.order);
  if (ids.size !== run.stops.length || !run.stops.every((s) => ids.has(s.id))) {
    return reject("invalid_order", "a reorder lists every stop of the run exactly once");
  }
  return [{ kind: "stops_reordered", order: c.order, entry: entry("reorder", c.by, now) }];
}

export function close(run: NetworkRun, c: Change<"close">, now: number): Step {
  // spec: courier 3.4: every item needs an explicit end state.
  const open = run.items.filter((i) =>
    !(END_STATES as readonly string[]).includes(i.state) ||
    ((i.state === "missing" || i.state === "damaged") && !i.exception)
  );
  if (open.length > 0) {
    return reject(
      "items_without_end_state",
      `the run cannot close: ${open.length} items lack an end state: ${
        open.map((i) => `${i.waybill} (${i.state})`).join(", ")
      }`,
      { items: open.map((i) => ({ waybill: i.waybill, state: i.state })) },
    );
  }
  return [{ kind: "closed", at: now, entry: entry("close", c.by, now) }];
}

export function expense(run: NetworkRun, c: Change<"expense">, now: number): Step {
  if (run.expenses.some((e) => e.key === c.key)) return SAME;
  // Every expense stays: the run is its only record (bounded by RUN_STATE_BUDGET, run_full).
  const { key, amount_minor, currency, receipt, note, by } = c;
  return [{
    kind: "expense_recorded",
    expense: { key, amount_minor, currency, receipt, note, by, at: now },
    entry: entry("expense", by, now, key),
  }];
}

export function coldChain(run: NetworkRun, c: Change<"cold_chain">, now: number): Step {
  // A closed run carries nothing any more: nothing to count (step answers it as before).
  if (run.status === "closed") return SAME;
  // spec: courier 2.10: a release overtaken by a reservation made since (or a reservation the
  // sweep released since) is stale: the latest tell about the shipment stands.
  const last = toldSeq(run, c.waybill);
  if (c.seq !== undefined && last !== undefined && c.seq <= last) return SAME;
  const told = run.cold_chain_waybills ?? [];
  const counted = itemsWhere(run, (i) => i.waybill === c.waybill && isCarried(i));
  const slots = (n: number) => c.cold ? run.items[n]!.load.pieces : 0;
  const recount = counted.some((n) => run.items[n]!.load.cold_slots !== slots(n));
  // Nothing to count: only a newer reservation's order is kept (a release made before it, still
  // on its way, is then stale); a release that finds nothing counted changes nothing.
  const same = told.includes(c.waybill) === c.cold && !recount;
  if (same && (c.seq === undefined || !c.cold)) return SAME;
  const waybills = c.cold
    ? [...told.filter((w) => w !== c.waybill), c.waybill]
    : told.filter((w) => w !== c.waybill);
  // spec: courier 5 (runs:override overrides capacity): cold slots are never exceeded silently,
  // however late the profile that asks for them comes.
  const carried = run.items.reduce(
    (sum, i, n) => isCarried(i) ? sum + (counted.includes(n) ? slots(n) : i.load.cold_slots) : sum,
    0,
  );
  const cold = carried + reservedOpen(run).cold_slots;
  if (c.cold && !same && cold > run.capacity.cold_slots) {
    return reject(
      "capacity_exceeded",
      `run ${run.id} has ${run.capacity.cold_slots} cold slots: keeping ${c.waybill} cold ` +
        `needs ${cold}`,
      { run_id: run.id },
    );
  }
  return [{
    kind: "cold_chain_counted",
    cold_chain_waybills: waybills,
    items: counted.map((n) => ({ item: n, cold_slots: slots(n) })),
    ...(c.seq === undefined ? {} : { told: { waybill: c.waybill, seq: c.seq } }),
    entry: entry("cold_chain", c.by, now, c.waybill),
  }];
}
