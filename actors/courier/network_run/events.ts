/**
 * What a network run records: each event states an outcome, with the values decided (the items
 * that left, the stop's new status, the time), so `evolve` only applies it and never runs a rule:
 * changing a rule never changes a run's history. Items are named by their position in the run's
 * items when the event was recorded (items are only appended, or taken back by an undone
 * transfer, which the event names too).
 */
import type { VoidCode } from "./commands.ts";
import type { FollowUp } from "./follow_ups.ts";
import {
  type ColdTold,
  type Collected,
  type EndState,
  type Expense,
  type HistoryEntry,
  type NetworkRun,
  type NetworkRunState,
  RELEASED_CLAIMS_MAX,
  RUN_HISTORY_MAX,
  type RunItem,
  type RunStatus,
  type Stop,
  VOIDED_STEPS_MAX,
  withTold,
} from "./run.ts";

/** What a change did to the run; every one but the creation records its history entry. */
export type RunOutcome =
  | { kind: "run_created"; run: NetworkRun }
  | {
    kind: "stop_added";
    stop: Stop;
    /** A deliver stop's shipment, new on the run. */
    item: RunItem | null;
    /** Or the item already riding without a stop (transferred in) that the stop takes. */
    takes: number | null;
    unassigned_times?: number;
    entry: HistoryEntry;
  }
  | {
    kind: "driver_assigned";
    driver_id: string | null;
    unassigned_times?: number;
    entry: HistoryEntry;
  }
  /** The run left with `items` on board. */
  | { kind: "departed"; at: number; items: readonly number[]; entry: HistoryEntry }
  | { kind: "arrived"; entry: HistoryEntry }
  | { kind: "unloaded"; status: RunStatus; items: readonly number[]; entry: HistoryEntry }
  | { kind: "stops_reordered"; order: readonly string[]; entry: HistoryEntry }
  /** `key`: the transfer's key (transferKey); absent on transfers recorded before it was. */
  | {
    kind: "transferred";
    to_run: string;
    items: readonly number[];
    key?: string;
    entry: HistoryEntry;
  }
  | { kind: "transferred_in"; items: readonly RunItem[]; entry: HistoryEntry }
  | { kind: "transfer_in_undone"; items: readonly number[]; entry: HistoryEntry }
  | {
    kind: "reported";
    condition: "missing" | "damaged" | "returned" | "customs_hold";
    exception: string;
    items: readonly number[];
    entry: HistoryEntry;
  }
  | { kind: "closed"; at: number; entry: HistoryEntry }
  /** Items whose shipment operations closed end as it ended (item_changes.ts itemClosed). */
  | {
    kind: "item_closed";
    state: "delivered" | "returned";
    items: readonly number[];
    entry: HistoryEntry;
  }
  /** The run let its claim on a shipment go: another run plans it (courier 3.4). */
  | { kind: "claim_released"; waybill: string; claim: string; entry: HistoryEntry }
  | { kind: "expense_recorded"; expense: Expense; entry: HistoryEntry }
  | {
    kind: "cold_chain_counted";
    cold_chain_waybills: readonly string[];
    /** The items whose cold slots the profile changed, and their count now. */
    items: readonly { item: number; cold_slots: number }[];
    /** The shipment told and the tell's order (absent: sent before tells were ordered). */
    told?: ColdTold;
    entry: HistoryEntry;
  }
  | { kind: "stop_presented"; stop_id: string; crossings: readonly string[]; entry: HistoryEntry }
  | {
    kind: "stop_crossed";
    stop_id: string;
    side: "exit" | "entry";
    at: number;
    entry: HistoryEntry;
  }
  | {
    kind: "stop_delivered";
    stop_id: string;
    end: EndState;
    items: readonly number[];
    entry: HistoryEntry;
  }
  | {
    kind: "stop_collected";
    stop_id: string;
    collected: Collected;
    item: RunItem;
    /**
     * The stop's errand is charged with this collection (its first), to this shipment's client;
     * absent: it books none (a later collection, or one recorded before errands were per stop).
     */
    errand_waybill?: string;
    entry: HistoryEntry;
  }
  | { kind: "stop_failed"; stop_id: string; status: "failed" | "refused"; entry: HistoryEntry }
  | { kind: "stop_wait_charged"; stop_id: string; waybill: string; entry: HistoryEntry }
  /** Customs held the shipment while a step on it was under way: that step was voided. */
  | {
    kind: "delivery_voided";
    waybill: string;
    voids: number;
    /** Why (absent: customs held it, as before the laboratory's blocks voided steps). */
    code?: VoidCode;
    entry: HistoryEntry;
  }
  /** Operations closed the shipment while a step on it was under way: that step was voided. */
  | { kind: "step_voided"; waybill: string; step: string; entry: HistoryEntry };

/**
 * The outbox of a change (courier 2.6 rule 3, 3.4): the work that must follow it beyond the run
 * (custody moves, charges, crossings, a laboratory handover, an alert), recorded in the same
 * commit. The request that made the change does it and says so (`follow_ups_done`); what is
 * still due when the run's follow-ups timer fires is due again (`follow_ups_again`), as is at once
 * what its leg_trip_ended look records (no request is there to do it), and the run follow-ups
 * reactor does it from the log (src/courier/reactors/run_follow_ups.ts). Each
 * follow-up has the key of its condition, so it is done once whoever does it, however often.
 */
export type FollowUpEvent =
  | { kind: "follow_ups_due"; batch: string; follow_ups: readonly FollowUp[] }
  | { kind: "follow_ups_done"; batches: readonly string[] }
  | { kind: "follow_ups_again"; batches: readonly string[] };

/** What decide records now. */
export type RunEvent = RunOutcome | FollowUpEvent;

/** Applies one recorded event. */
export function evolve(state: NetworkRunState, event: RunEvent): NetworkRunState {
  if (event.kind === "run_created") return event.run;
  if (state === null) throw new Error(`network run: ${event.kind} before it was created`);
  switch (event.kind) {
    case "follow_ups_due":
      return { ...state, follow_ups_due: [...(state.follow_ups_due ?? []), event.batch] };
    case "follow_ups_done":
      return {
        ...state,
        follow_ups_due: (state.follow_ups_due ?? []).filter((b) => !event.batches.includes(b)),
      };
    case "follow_ups_again":
      return state;
  }
  const run = applied(state, event);
  return { ...run, history: [...state.history, event.entry].slice(-RUN_HISTORY_MAX) };
}

type Change = Exclude<RunOutcome, { kind: "run_created" }>;

function applied(run: NetworkRun, e: Change): NetworkRun {
  switch (e.kind) {
    case "stop_added":
      return {
        ...run,
        stops: [...run.stops, e.stop],
        items: e.item
          ? [...run.items, e.item]
          : at(run, e.takes === null ? [] : [e.takes], (i) => ({
            ...i,
            stop_id: e.stop.id,
          })),
        ...(e.unassigned_times === undefined ? {} : { unassigned_times: e.unassigned_times }),
      };
    case "driver_assigned":
      return {
        ...run,
        driver_id: e.driver_id,
        ...(e.unassigned_times === undefined ? {} : { unassigned_times: e.unassigned_times }),
      };
    case "departed":
      return {
        ...run,
        status: "departed",
        departed_at: e.at,
        items: at(run, e.items, (i) => ({ ...i, state: "on_board", departed_at: e.at })),
      };
    case "arrived":
      return { ...run, status: "arrived" };
    case "unloaded":
      return {
        ...run,
        status: e.status,
        items: at(run, e.items, (i) => ({ ...i, state: "unloaded" })),
      };
    case "stops_reordered": {
      const byId = new Map(run.stops.map((s) => [s.id, s]));
      return { ...run, stops: e.order.map((id) => byId.get(id)!) };
    }
    case "transferred":
    case "transferred_in":
    case "transfer_in_undone":
    case "reported":
    case "item_closed":
    case "closed":
    case "claim_released":
    case "delivery_voided":
    case "step_voided":
    case "expense_recorded":
    case "cold_chain_counted":
      return appliedLater(run, e);
    default:
      return appliedAtStop(run, e);
  }
}

type Later = Extract<
  Change,
  {
    kind:
      | "transferred"
      | "transferred_in"
      | "transfer_in_undone"
      | "reported"
      | "item_closed"
      | "closed"
      | "claim_released"
      | "delivery_voided"
      | "step_voided"
      | "expense_recorded"
      | "cold_chain_counted";
  }
>;

/** The outcomes of transfers, reports, closing, expenses and cold slots. */
function appliedLater(run: NetworkRun, e: Later): NetworkRun {
  switch (e.kind) {
    case "transferred":
      return {
        ...run,
        items: at(run, e.items, (i) => ({
          ...i,
          state: "transferred",
          to_run: e.to_run,
          ...(e.key === undefined ? {} : { transfer_key: e.key }),
        })),
      };
    case "transferred_in":
      return { ...run, items: [...run.items, ...e.items] };
    case "transfer_in_undone": {
      const gone = new Set(e.items);
      return { ...run, items: run.items.filter((_, n) => !gone.has(n)) };
    }
    case "reported":
      return {
        ...run,
        items: at(run, e.items, (i) => ({ ...i, state: e.condition, exception: e.exception })),
      };
    case "item_closed":
      return { ...run, items: at(run, e.items, (i) => ({ ...i, state: e.state })) };
    case "closed":
      return { ...run, status: "closed", closed_at: e.at };
    case "claim_released":
      return {
        ...run,
        released_claims: [...(run.released_claims ?? []), e.claim].slice(-RELEASED_CLAIMS_MAX),
      };
    case "delivery_voided":
      return {
        ...run,
        delivery_voids: { ...run.delivery_voids, [e.waybill]: e.voids },
        ...(e.code === undefined
          ? {}
          : { delivery_void_codes: { ...run.delivery_void_codes, [e.waybill]: e.code } }),
      };
    case "step_voided":
      return {
        ...run,
        voided_steps: [...(run.voided_steps ?? []), e.step].slice(-VOIDED_STEPS_MAX),
      };
    case "expense_recorded":
      return { ...run, expenses: [...run.expenses, e.expense] };
    case "cold_chain_counted": {
      const slots = new Map(e.items.map((x) => [x.item, x.cold_slots]));
      return {
        ...run,
        cold_chain_waybills: e.cold_chain_waybills,
        ...(e.told ? { cold_chain_told: withTold(run, e.told) } : {}),
        items: at(run, [...slots.keys()], (i, n) => ({
          ...i,
          load: { ...i.load, cold_slots: slots.get(n)! },
        })),
      };
    }
  }
}

type StopOutcome = Extract<Change, { stop_id: string }>;

function appliedAtStop(run: NetworkRun, e: StopOutcome): NetworkRun {
  switch (e.kind) {
    case "stop_presented":
      return atStop(run, e.stop_id, (s) => ({ ...s, status: "presented", crossings: e.crossings }));
    case "stop_crossed":
      return atStop(
        run,
        e.stop_id,
        (s) =>
          e.side === "exit" ? { ...s, exit_at: e.at } : { ...s, entry_at: e.at, status: "cleared" },
      );
    case "stop_delivered":
      return {
        ...atStop(run, e.stop_id, (s) => ({ ...s, status: "done" })),
        items: at(run, e.items, (i) => ({ ...i, state: e.end })),
      };
    case "stop_collected":
      return {
        ...atStop(run, e.stop_id, (s) => ({
          ...s,
          status: "done",
          collected: [...s.collected, e.collected],
          ...(e.errand_waybill === undefined ? {} : { errand_waybill: e.errand_waybill }),
        })),
        items: [...run.items, e.item],
      };
    case "stop_failed":
      return atStop(run, e.stop_id, (s) => ({ ...s, status: e.status }));
    case "stop_wait_charged":
      return atStop(run, e.stop_id, (s) => ({ ...s, waiting_waybill: e.waybill }));
  }
}

/** The run's items with those at `positions` changed by `f`. */
function at(
  run: NetworkRun,
  positions: readonly number[],
  f: (i: RunItem, n: number) => RunItem,
): RunItem[] {
  const chosen = new Set(positions);
  return run.items.map((i, n) => chosen.has(n) ? f(i, n) : i);
}

function atStop(run: NetworkRun, stopId: string, f: (s: Stop) => Stop): NetworkRun {
  return { ...run, stops: run.stops.map((s) => s.id === stopId ? f(s) : s) };
}
