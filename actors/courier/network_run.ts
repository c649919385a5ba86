/**
 * A network run (courier 2.10, 3.4, 4.5): a vehicle and driver working a list of stops (deliver,
 * collect, checkpoint) out of a facility. The run decides what its stops allow (capacity, what
 * was reserved, the order of a border crossing, the close rule); the custody moves it causes are
 * applied to each shipment through the shipment's own actor by the run's orchestration
 * (src/courier/runs.ts), each with an idempotency key so it is applied exactly once.
 * Tenant = the courier's business id; id = run id.
 */
import {
  accept,
  type ActorDefinition,
  type Decision,
  type IndexEntry,
  reject,
  type Rejection,
  unreachable,
} from "../../src/runtime/actor.ts";
import { DRIVER_WAYBILL_INDEX, driverWaybillKey } from "../../src/courier/flows/driver_access.ts";

/**
 * A run holds its stops and items (each stop and its item take some 400 bytes), so its state
 * outgrows one store value: the runtime splits it (stateBytesMax). Past RUN_STATE_BUDGET a change
 * is refused (`run_full`), never written half. Items are bounded too: while a driver is assigned
 * each item is one index entry, and one commit writes at most GROUP_COMMIT_MUTATIONS_MAX.
 */
export const STOPS_MAX = 500;
export const ITEMS_MAX = 800;
export const RUN_STATE_BUDGET = 360_000;
const RUN_STATE_BYTES_MAX = 400_000;
/** Actions kept in state; the event log keeps every one. */
export const RUN_HISTORY_MAX = 20;
export const RUN_TEXT_CHARS_MAX = 500;

/** Capacity and load in exact integer units: grams, cubic centimetres, pieces, cold slots. */
export interface Load {
  readonly grams: number;
  readonly cm3: number;
  readonly pieces: number;
  readonly cold_slots: number;
}

export const NO_LOAD: Load = { grams: 0, cm3: 0, pieces: 0, cold_slots: 0 };

/** An explicit end state of an item on a run (courier 3.4 close rule). */
export const END_STATES = [
  "delivered",
  "lab_handover",
  "customs_hold",
  "returned",
  "transferred",
  "missing",
  "damaged",
] as const;
export type EndState = typeof END_STATES[number];
export const ITEM_STATES = ["planned", "on_board", "unloaded", ...END_STATES] as const;
export type ItemState = typeof ITEM_STATES[number];

export interface RunItem {
  readonly waybill: string;
  readonly state: ItemState;
  readonly load: Load;
  /** missing or damaged need the exception that explains them. */
  readonly exception: string | null;
  readonly stop_id: string | null;
  /** transferred: the run that carries it on (courier 3.4). */
  readonly to_run?: string;
  /**
   * The run's departure it left with (the run's departed_at): absent on one that came on board
   * after it (its own move took it: a stop added, a collection, a transfer in), or kept before.
   */
  readonly departed_at?: number;
}

export interface WorkOrder {
  readonly sender: string;
  readonly recipient: string;
  readonly courier_client_id: string;
  readonly reserved: Load;
}

export const STOP_KINDS = ["deliver", "collect", "checkpoint"] as const;
export type StopKind = typeof STOP_KINDS[number];
export const STOP_STATUSES = [
  "pending",
  "done",
  "failed",
  "presented",
  "cleared",
  "refused",
] as const;
export type StopStatus = typeof STOP_STATUSES[number];

export interface Stop {
  readonly id: string;
  readonly kind: StopKind;
  readonly waybill: string | null;
  readonly work_order: WorkOrder | null;
  readonly country: string | null;
  readonly to_country: string | null;
  readonly border_post: string | null;
  readonly status: StopStatus;
  /** collect: what was collected, each piece labelled. */
  readonly collected: readonly { waybill: string; labels: readonly string[]; load: Load }[];
  readonly exit_at: number | null;
  readonly entry_at: number | null;
  readonly crossings: readonly string[];
  /**
   * The shipment whose client the stop's wait was charged to (courier 6.1 `run.waiting:{stop}`,
   * one per stop): a checkpoint carries several clients' shipments, and naming another one must
   * not charge a second client. Absent on stops kept before it was.
   */
  readonly waiting_waybill?: string | null;
}

export const RUN_STATUSES = ["planned", "departed", "arrived", "unloaded", "closed"] as const;
export type RunStatus = typeof RUN_STATUSES[number];

export interface NetworkRun {
  readonly id: string;
  readonly courier_id: string;
  readonly facility_id: string;
  readonly kind: string;
  readonly countries: readonly string[];
  readonly capacity: Load;
  readonly vehicle: string | null;
  readonly driver_id: string | null;
  readonly status: RunStatus;
  readonly stops: readonly Stop[];
  readonly items: readonly RunItem[];
  readonly expenses: readonly {
    key: string;
    amount_minor: number;
    currency: string;
    receipt: string;
    note: string | null;
    by: string;
    at: number;
  }[];
  readonly history: readonly { action: string; by: string; at: number; detail: string | null }[];
  readonly created_at: number;
  readonly closed_at: number | null;
  /**
   * When the run departed: its departure's identity, kept for good (the history keeps the
   * latest RUN_HISTORY_MAX actions only), so a departure sent again finds the one recorded.
   * null until it departs; absent on runs kept before it was (their history is read instead).
   */
  readonly departed_at?: number | null;
  /**
   * How many times the run, with stops, was left without a driver (courier 2.9 leg_unassigned:
   * each time is one condition, raised once), counting the one it is in. Internal; absent on
   * runs kept before it was.
   */
  readonly unassigned_times?: number;
  /**
   * The shipments a laboratory profile made cold chain after they boarded, or while they were
   * boarding (src/courier/runs.ts coldChainOnRuns): each of their pieces takes a cold slot here,
   * whenever it comes on board. Internal; absent on runs kept before it was.
   */
  readonly cold_chain_waybills?: readonly string[];
}

export type NetworkRunState = NetworkRun | null;

export type NewRun = Omit<
  NetworkRun,
  | "status"
  | "stops"
  | "items"
  | "expenses"
  | "history"
  | "created_at"
  | "closed_at"
  | "departed_at"
  | "unassigned_times"
  | "cold_chain_waybills"
>;

export type NewStop = Omit<Stop, "status" | "collected" | "exit_at" | "entry_at" | "crossings"> & {
  /** deliver: the shipment's load, counted against capacity. */
  readonly load: Load;
};

export type RunCommand =
  | { kind: "create"; run: NewRun; by: string }
  | { kind: "add_stop"; stop: NewStop; by: string }
  | { kind: "assign_driver"; driver_id: string | null; by: string }
  | { kind: "depart"; by: string }
  | { kind: "arrive"; by: string }
  | { kind: "unload"; waybills: readonly string[] | null; by: string }
  | { kind: "reorder"; order: readonly string[]; by: string }
  | { kind: "transfer"; waybills: readonly string[]; to_run: string; by: string }
  /** The items another run transfers to this one: it carries them on (courier 3.4). */
  | {
    kind: "transfer_in";
    from_run: string;
    items: readonly { waybill: string; load: Load }[];
    by: string;
  }
  /**
   * The items a transfer_in took back off this run, when the run sending them refused (one ended
   * there meanwhile): only those still riding without a stop.
   */
  | { kind: "transfer_in_undo"; from_run: string; waybills: readonly string[]; by: string }
  | {
    kind: "report";
    waybill: string;
    condition: "missing" | "damaged" | "returned" | "customs_hold";
    note: string;
    by: string;
  }
  | { kind: "close"; by: string }
  | {
    kind: "expense";
    key: string;
    amount_minor: number;
    currency: string;
    receipt: string;
    note: string | null;
    by: string;
  }
  /**
   * A laboratory profile made the shipment cold chain (or no longer): its pieces take a cold slot
   * each (courier 2.10), now and when it comes on board later; refused when that exceeds the
   * run's cold slots.
   */
  | { kind: "cold_chain"; waybill: string; cold: boolean; by: string }
  | { kind: "stop_border"; stop_id: string; crossings: readonly string[]; by: string }
  | { kind: "stop_cross"; stop_id: string; side: "exit" | "entry"; by: string }
  | { kind: "stop_deliver"; stop_id: string; lab_handover: boolean; by: string }
  | {
    kind: "stop_collect";
    stop_id: string;
    waybill: string;
    labels: readonly string[];
    load: Load;
    /** runs:override held and a reason given: collecting more than reserved is allowed. */
    override_reason: string | null;
    by: string;
  }
  | { kind: "stop_fail"; stop_id: string; reason: string; by: string }
  | { kind: "stop_waiting"; stop_id: string; waybill: string; by: string }
  /**
   * A change sent under an idempotency key, with `request`: a digest of what the caller sent.
   * The reply names it, and so does the reply kept under the key: a replay of that request is
   * told from another request sent under the same key (courier 4.5; src/courier/runs.ts).
   */
  | { kind: "keyed"; request: string; change: RunChange }
  | { kind: "get" };

/** A change to a run: what was decided, not the whole run again (a run can be large). */
type RunChange = Exclude<RunCommand, { kind: "create" } | { kind: "get" } | { kind: "keyed" }>;

export type RunEvent =
  | { kind: "run_created"; run: NetworkRun }
  /** The accepted command and its time; applying it again to the same run gives the same run. */
  | { kind: "applied"; change: RunChange; at: number }
  /** Version 1 events carried the whole run. */
  | { kind: "changed"; run: NetworkRun; action: string; by: string };

/**
 * The reply to a change: small, since replies to idempotency-keyed commands are stored; read the
 * run with `get` (src/courier/runs.ts askRun does).
 */
export interface RunAck {
  readonly id: string;
  readonly status: RunStatus;
  /** A keyed change's request digest (absent: sent without one, or kept before it was). */
  readonly request?: string;
}

/**
 * The reply to a stop action (courier 4.5: a replay after lost signal answers the first): the
 * answer goes to the first asker; what is kept under the idempotency key is `seq`, the run's
 * sequence number then (an answer can outgrow a store value), and a replay rebuilds the same
 * answer from the run's events 1..seq (src/courier/runs.ts).
 */
export interface StopAck extends RunAck {
  readonly stop_id: string;
  readonly seq: number;
  readonly answer?: StopAnswer;
}

export type RunReply = NetworkRun | RunAck | StopAck;

type S = NetworkRunState;
/** A change's outcome: the next run, nothing to do (a replayed step), or a refusal. */
type Changed = { readonly ok: true; readonly next: NetworkRun };
type Step = Changed | typeof SAME | Rejection;
const SAME = "same" as const;

export function addLoad(a: Load, b: Load): Load {
  return {
    grams: a.grams + b.grams,
    cm3: a.cm3 + b.cm3,
    pieces: a.pieces + b.pieces,
    cold_slots: a.cold_slots + b.cold_slots,
  };
}

/** The first capacity a load exceeds, or null (courier 4.5: never exceeded silently). */
export function overCapacity(load: Load, capacity: Load): keyof Load | null {
  for (const k of ["grams", "cm3", "pieces", "cold_slots"] as const) {
    if (load[k] > capacity[k]) return k;
  }
  return null;
}

/** The load the run carries or has planned (items not yet ended). */
export function loadOf(run: NetworkRun): Load {
  return run.items
    .filter((i) => i.state === "planned" || i.state === "on_board")
    .reduce((sum, i) => addLoad(sum, i.load), NO_LOAD);
}

function changed(
  run: NetworkRun,
  next: NetworkRun,
  action: string,
  by: string,
  at: number,
  detail: string | null = null,
): Changed {
  return {
    ok: true,
    next: {
      ...next,
      history: [...run.history, { action, by, at, detail }].slice(-RUN_HISTORY_MAX),
    },
  };
}

const ack = (s: S): RunReply => ({ id: s!.id, status: s!.status });

/** A stop action answers its stop as the change left it; other changes acknowledge. */
function replyFor(c: RunChange): (s: S, at?: { readonly seq: number }) => RunReply {
  switch (c.kind) {
    case "stop_border":
    case "stop_cross":
    case "stop_deliver":
    case "stop_collect":
    case "stop_fail":
      return (s, at) => ({
        id: s!.id,
        status: s!.status,
        stop_id: c.stop_id,
        seq: at?.seq ?? 0,
        answer: stopAnswer(s!, c.stop_id),
      });
    default:
      return ack;
  }
}

function setItems(run: NetworkRun, waybills: ReadonlySet<string>, f: (i: RunItem) => RunItem) {
  return run.items.map((i) => waybills.has(i.waybill) ? f(i) : i);
}

function decide(
  state: S,
  c: RunCommand | { kind: "timer" },
  ctx: { now: number },
): Decision<S, RunEvent, RunReply> {
  if (c.kind === "keyed") {
    // The change is decided and recorded as it is; only its reply names the request.
    const d = decide(state, c.change, ctx);
    if (!d.ok || !d.reply) return d;
    const reply = d.reply, request = c.request;
    return { ...d, reply: (s, at) => ({ ...reply(s, at), request }) };
  }
  if (c.kind === "create") {
    if (state !== null) return reject("already_exists", `run exists: ${c.run.id}`);
    const run: NetworkRun = {
      ...c.run,
      status: "planned",
      stops: [],
      items: [],
      expenses: [],
      history: [{ action: "created", by: c.by, at: ctx.now, detail: null }],
      created_at: ctx.now,
      closed_at: null,
      departed_at: null,
      unassigned_times: 0,
    };
    return accept<S, RunEvent, RunReply>([{ kind: "run_created", run }], ack);
  }
  if (state === null) return reject("not_found", "network run not found");
  if (c.kind === "get") return accept<S, RunEvent, RunReply>([], (s) => s!);
  if (c.kind === "timer") return accept<S, RunEvent, RunReply>([], ack);
  const r = step(state, c, ctx.now);
  if (r === SAME) return accept<S, RunEvent, RunReply>([], replyFor(c));
  if (!r.ok) return r;
  // Only these changes add to the state; the others change a status, or replace history that
  // is bounded, and fit in what stateBytesMax leaves above the budget.
  const grows = GROWING_CHANGES.has(c.kind);
  const bytes = grows ? new TextEncoder().encode(JSON.stringify(r.next)).length : 0;
  if (bytes > RUN_STATE_BUDGET) {
    return reject(
      "run_full",
      `run ${state.id} cannot hold more (${bytes} bytes of state, max ${RUN_STATE_BUDGET}): ` +
        `split the work into another run`,
    );
  }
  return accept<S, RunEvent, RunReply>(
    [{ kind: "applied", change: c, at: ctx.now }],
    replyFor(c),
  );
}

const GROWING_CHANGES: ReadonlySet<RunChange["kind"]> = new Set([
  "add_stop",
  "cold_chain",
  "stop_collect",
  "stop_border",
  "report",
  "transfer",
  "transfer_in",
  "expense",
]);

/** What a change does to a run; pure, so an `applied` event replays to the same run. */
function step(run: NetworkRun, c: RunChange, now: number): Step {
  // A wait is a fact of the stop, told as well after the run closed (billing reviews it then).
  // Nothing else changes a closed run; what it already recorded, sent again, changes nothing and
  // answers as before, so a retry still completes what a crash kept from following it (the
  // shipment's delivery; product rule: a crash between two steps leaves state a retry completes).
  if (run.status === "closed" && c.kind !== "stop_waiting") {
    return change(run, c, now) === SAME ? SAME : reject("run_closed", `run ${run.id} is closed`);
  }
  return change(run, c, now);
}

function change(run: NetworkRun, c: RunChange, now: number): Step {
  const same = (): Step => SAME;
  const stopOf = (id: string) => run.stops.find((s) => s.id === id);
  switch (c.kind) {
    case "add_stop": {
      if (run.stops.length >= STOPS_MAX) {
        return reject("run_full", `a run has at most ${STOPS_MAX} stops`);
      }
      if (run.stops.some((s) => s.id === c.stop.id)) return same();
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
      let items = run.items;
      const riding = stop.kind === "deliver"
        ? run.items.find((i) => i.waybill === stop.waybill && i.stop_id === null && !isEnded(i))
        : undefined;
      if (riding) {
        // A shipment transferred in rides without a stop: its deliver stop takes it (courier 3.4),
        // its load already carried.
        items = run.items.map((i) => i === riding ? { ...i, stop_id: stop.id } : i);
      } else if (stop.kind === "deliver" && stop.waybill) {
        if (run.items.some((i) => i.waybill === stop.waybill && i.state !== "transferred")) {
          return reject("already_on_run", `${stop.waybill} is already on this run`);
        }
        if (run.items.length >= ITEMS_MAX) {
          return reject("run_full", `a run carries at most ${ITEMS_MAX} items`);
        }
        items = [...items, {
          waybill: stop.waybill,
          state: run.status === "planned" ? "planned" : "on_board",
          load,
          exception: null,
          stop_id: stop.id,
        }];
      }
      const reserved = stop.kind === "collect" && stop.work_order
        ? stop.work_order.reserved
        : NO_LOAD;
      const next = { ...run, stops: [...run.stops, stop], items };
      const over = overCapacity(
        addLoad(addLoad(loadOf(next), reserved), reservedOpen(run)),
        run.capacity,
      );
      if (over) {
        return reject(
          "capacity_exceeded",
          `adding stop ${stop.id} exceeds the run's ${over} capacity`,
        );
      }
      return changed(run, unassigned(run, next), "add_stop", c.by, now, stop.id);
    }
    case "assign_driver":
      return changed(
        run,
        unassigned(run, { ...run, driver_id: c.driver_id }),
        "assign_driver",
        c.by,
        now,
        c.driver_id,
      );
    case "depart":
      // A run departs once: the departure sent again after it arrived or unloaded changes
      // nothing and answers the run as it stands, as a repeated arrival does (product rule: a
      // retry completes a crash's work exactly once; courier 3.2 linehaul opens on departure).
      if (run.status === "departed" || run.status === "arrived" || run.status === "unloaded") {
        return same();
      }
      return departure(run, c.by, now);
    case "arrive":
      // The arrival sent again changes nothing: its retry raises the alerts a crash kept from
      // following it (product rule: a crash between two steps leaves state a retry completes).
      if (run.status === "arrived") return same();
      if (run.status !== "departed") {
        return reject("run_not_departed", `a run arrives after it departs: ${run.status}`);
      }
      return changed(run, { ...run, status: "arrived" }, "arrive", c.by, now);
    case "unload": {
      const wanted = new Set(
        c.waybills ?? run.items.filter((i) => i.state === "on_board").map((i) => i.waybill),
      );
      return changed(
        run,
        {
          ...run,
          status: run.status === "arrived" ? "unloaded" : run.status,
          items: setItems(
            run,
            wanted,
            (i) => i.state === "on_board" ? { ...i, state: "unloaded" } : i,
          ),
        },
        "unload",
        c.by,
        now,
      );
    }
    case "reorder": {
      const ids = new Set(c.order);
      if (ids.size !== run.stops.length || !run.stops.every((s) => ids.has(s.id))) {
        return reject("invalid_order", "a reorder lists every stop of the run exactly once");
      }
      const byId = new Map(run.stops.map((s) => [s.id, s]));
      return changed(
        run,
        { ...run, stops: c.order.map((id) => byId.get(id)!) },
        "reorder",
        c.by,
        now,
      );
    }
    case "transfer": {
      if (c.to_run === run.id) return reject("invalid_transfer", "a run cannot transfer to itself");
      const missing = c.waybills.find((w) => !run.items.some((i) => i.waybill === w));
      if (missing) return reject("not_on_run", `${missing} is not on this run`);
      // An item with its end state stays as it ended (spec: courier 3.4); one already transferred
      // to this same run is this transfer again (a retry after a crash).
      const again = (i: RunItem) => i.state === "transferred" && i.to_run === c.to_run;
      const ended = run.items.find((i) =>
        c.waybills.includes(i.waybill) && isEnded(i) && !again(i) && !openTwin(run, i)
      );
      if (ended) {
        return reject(
          "not_transferable",
          `${ended.waybill} cannot be transferred: it has its end state: ${ended.state}`,
        );
      }
      const wanted = new Set(c.waybills);
      if (run.items.every((i) => !wanted.has(i.waybill) || isEnded(i))) return same();
      return changed(
        run,
        {
          ...run,
          items: setItems(
            run,
            wanted,
            (i) => isEnded(i) ? i : { ...i, state: "transferred", to_run: c.to_run },
          ),
        },
        "transfer",
        c.by,
        now,
        c.to_run,
      );
    }
    case "transfer_in": {
      // Items already carried (not ended) are this transfer again: added once.
      const carried = (w: string) => run.items.some((i) => i.waybill === w && !isEnded(i));
      const added = c.items.filter((x) => !carried(x.waybill));
      if (added.length === 0) return same();
      if (run.items.length + added.length > ITEMS_MAX) {
        return reject("run_full", `a run carries at most ${ITEMS_MAX} items`);
      }
      const state = run.status === "planned" ? "planned" : "on_board";
      const next = {
        ...run,
        items: [
          ...run.items,
          ...added.map((x) => ({
            waybill: x.waybill,
            state,
            load: coldLoad(run, x.waybill, x.load),
            exception: null,
            stop_id: null,
          } as const)),
        ],
      };
      const over = overCapacity(addLoad(loadOf(next), reservedOpen(run)), run.capacity);
      if (over) {
        return reject(
          "capacity_exceeded",
          `to_run ${run.id}: the transferred items exceed the run's ${over} capacity`,
        );
      }
      return changed(run, next, "transfer_in", c.by, now, c.from_run);
    }
    case "transfer_in_undo": {
      const undone = new Set(c.waybills);
      const kept = run.items.filter((i) =>
        !(undone.has(i.waybill) && i.stop_id === null && !isEnded(i))
      );
      if (kept.length === run.items.length) return same();
      return changed(run, { ...run, items: kept }, "transfer_in_undone", c.by, now, c.from_run);
    }
    case "report": {
      const items = run.items.filter((i) => i.waybill === c.waybill);
      if (items.length === 0) return reject("not_on_run", `${c.waybill} is not on this run`);
      // An item with its end state (delivered, transferred...) stays as it ended (courier 3.4):
      // a delivered item is not reported missing afterwards.
      if (items.every(isEnded)) {
        if (items.at(-1)!.state === c.condition) return same(); // the same report again
        return reject(
          "not_reportable",
          `${c.waybill} cannot be reported: it has its end state: ${items.at(-1)!.state}`,
        );
      }
      if (c.note.trim() === "") return reject("note_required", "a report needs a note");
      return changed(
        run,
        {
          ...run,
          items: setItems(run, new Set([c.waybill]), (i) =>
            isEnded(i) ? i : {
              ...i,
              state: c.condition,
              exception: c.note.slice(0, RUN_TEXT_CHARS_MAX),
            }),
        },
        "report",
        c.by,
        now,
        `${c.waybill}: ${c.condition}`,
      );
    }
    case "close": {
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
      return changed(run, { ...run, status: "closed", closed_at: now }, "close", c.by, now);
    }
    case "expense":
      if (run.expenses.some((e) => e.key === c.key)) return same();
      // Every expense stays: the run is its only record (bounded by RUN_STATE_BUDGET, run_full).
      return changed(
        run,
        {
          ...run,
          expenses: [...run.expenses, {
            key: c.key,
            amount_minor: c.amount_minor,
            currency: c.currency,
            receipt: c.receipt,
            note: c.note,
            by: c.by,
            at: now,
          }],
        },
        "expense",
        c.by,
        now,
        c.key,
      );
    case "cold_chain": {
      // A closed run carries nothing any more: nothing to count (step answers it as before).
      if (run.status === "closed") return same();
      const told = run.cold_chain_waybills ?? [];
      const counted = (i: RunItem) =>
        i.waybill === c.waybill && (i.state === "planned" || i.state === "on_board");
      const slots = (i: RunItem) => c.cold ? i.load.pieces : 0;
      const recount = run.items.some((i) => counted(i) && i.load.cold_slots !== slots(i));
      if (told.includes(c.waybill) === c.cold && !recount) return same();
      const next: NetworkRun = {
        ...run,
        cold_chain_waybills: c.cold
          ? [...told.filter((w) => w !== c.waybill), c.waybill]
          : told.filter((w) => w !== c.waybill),
        items: run.items.map((i) =>
          counted(i) ? { ...i, load: { ...i.load, cold_slots: slots(i) } } : i
        ),
      };
      // spec: courier 5 (runs:override overrides capacity): cold slots are never exceeded
      // silently, however late the profile that asks for them comes.
      const cold = addLoad(loadOf(next), reservedOpen(run)).cold_slots;
      if (c.cold && cold > run.capacity.cold_slots) {
        return reject(
          "capacity_exceeded",
          `run ${run.id} has ${run.capacity.cold_slots} cold slots: keeping ${c.waybill} cold ` +
            `needs ${cold}`,
          { run_id: run.id },
        );
      }
      return changed(run, next, "cold_chain", c.by, now, c.waybill);
    }
    case "stop_border": {
      const stop = stopOf(c.stop_id);
      if (!stop || stop.kind !== "checkpoint") {
        return reject("not_found", `no checkpoint ${c.stop_id}`);
      }
      if (stop.status !== "pending") return same();
      return changed(
        run,
        replaceStop(run, { ...stop, status: "presented", crossings: c.crossings }),
        "border",
        c.by,
        now,
        stop.id,
      );
    }
    case "stop_cross": {
      const stop = stopOf(c.stop_id);
      if (!stop || stop.kind !== "checkpoint") {
        return reject("not_found", `no checkpoint ${c.stop_id}`);
      }
      // spec: courier 3.4: the exit is recorded before the entry.
      if (c.side === "entry" && stop.exit_at === null) {
        return reject("exit_before_entry", "record the exit before the entry");
      }
      if ((c.side === "exit" ? stop.exit_at : stop.entry_at) !== null) return same();
      const next = c.side === "exit"
        ? { ...stop, exit_at: now }
        : { ...stop, entry_at: now, status: "cleared" as const };
      return changed(run, replaceStop(run, next), `cross_${c.side}`, c.by, now, stop.id);
    }
    case "stop_deliver": {
      const stop = stopOf(c.stop_id);
      if (!stop || stop.kind !== "deliver" || !stop.waybill) {
        return reject("not_found", `no deliver stop ${c.stop_id}`);
      }
      if (stop.status === "done") return same();
      // A shipment transferred off this run is the other run's to deliver (courier 3.4: an end
      // state stays as it ended); its stop here cannot deliver it.
      if (!run.items.some((i) => i.waybill === stop.waybill && !isEnded(i))) {
        return reject(
          "item_ended",
          `${stop.waybill} has its end state on this run and cannot be delivered from stop ${stop.id}`,
        );
      }
      const end: EndState = c.lab_handover ? "lab_handover" : "delivered";
      return changed(
        run,
        {
          ...replaceStop(run, { ...stop, status: "done" }),
          items: setItems(
            run,
            new Set([stop.waybill]),
            (i) => isEnded(i) ? i : { ...i, state: end },
          ),
        },
        "deliver",
        c.by,
        now,
        stop.waybill,
      );
    }
    case "stop_collect": {
      const stop = stopOf(c.stop_id);
      if (!stop || stop.kind !== "collect" || !stop.work_order) {
        return reject("not_found", `no collect stop ${c.stop_id}`);
      }
      if (stop.collected.some((x) => x.waybill === c.waybill)) return same();
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
      // What other collect stops still to be worked reserved stays theirs (as add_stop counts
      // it): an override here takes none of it (courier 2.10 capacities never oversold).
      const others = reservedOpen({ ...run, stops: run.stops.filter((s) => s.id !== stop.id) });
      const total = overCapacity(addLoad(addLoad(loadOf(run), load), others), run.capacity);
      if (total) {
        return reject("capacity_exceeded", `the run's ${total} capacity would be exceeded`);
      }
      return changed(
        run,
        {
          ...replaceStop(run, {
            ...stop,
            status: "done",
            collected: [...stop.collected, { waybill: c.waybill, labels: c.labels, load: load }],
          }),
          items: [...run.items, {
            waybill: c.waybill,
            state: "on_board",
            load: load,
            exception: null,
            stop_id: stop.id,
          }],
        },
        "collect",
        c.by,
        now,
        over ? `over reserved: ${c.override_reason}` : c.waybill,
      );
    }
    case "stop_fail": {
      const stop = stopOf(c.stop_id);
      if (!stop) return reject("not_found", `no stop ${c.stop_id}`);
      if (c.reason.trim() === "") return reject("reason_required", "a failed stop needs a reason");
      // spec: courier 3.4: a border stop customs turns back is refused, not failed.
      const failed = stop.kind === "checkpoint" ? "refused" : "failed";
      if (stop.status === failed) return same();
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
      return changed(
        run,
        replaceStop(run, { ...stop, status: failed }),
        "fail",
        c.by,
        now,
        c.reason,
      );
    }
    case "stop_waiting": {
      const stop = stopOf(c.stop_id);
      if (!stop) return reject("not_found", `no stop ${c.stop_id}`);
      // spec: courier 6.1 `run.waiting:{stop}`, 2.6 rule 2: one wait per stop, charged once.
      const charged = stop.waiting_waybill ?? null;
      if (charged === c.waybill) return same();
      if (charged !== null) {
        return reject(
          "reference_conflict",
          `the wait at stop ${stop.id} was charged for ${charged}: ${c.waybill}`,
          { waybill: charged },
        );
      }
      return changed(
        run,
        replaceStop(run, { ...stop, waiting_waybill: c.waybill }),
        "waiting",
        c.by,
        now,
        c.waybill,
      );
    }
    default:
      return unreachable(c);
  }
}

/** Whether the run waits for a driver: it has stops and none is assigned (courier 2.9). */
export function isUnassigned(run: NetworkRun): boolean {
  return run.driver_id === null && run.stops.length > 0 && run.status !== "closed";
}

/** The run after a change, counting a new time it was left without a driver (courier 2.9). */
function unassigned(run: NetworkRun, next: NetworkRun): NetworkRun {
  if (!isUnassigned(next) || isUnassigned(run)) return next;
  return { ...next, unassigned_times: (run.unassigned_times ?? 0) + 1 };
}

/** Whether an item has its explicit end state (courier 3.4). */
export function isEnded(i: RunItem): boolean {
  return (END_STATES as readonly string[]).includes(i.state);
}

/** A load as a run counts it: a cold-chain shipment takes a cold slot per piece (courier 2.10). */
export function withColdSlots(load: Load, cold: boolean): Load {
  return cold ? { ...load, cold_slots: load.pieces } : load;
}

/** A shipment's load as the run counts it: one it was told is cold chain takes its cold slots. */
function coldLoad(run: NetworkRun, waybill: string | null, load: Load): Load {
  return withColdSlots(load, waybill !== null && (run.cold_chain_waybills ?? []).includes(waybill));
}

/** Another item of the same waybill on the run still open (it came back after it ended). */
function openTwin(run: NetworkRun, i: RunItem): boolean {
  return run.items.some((x) => x !== i && x.waybill === i.waybill && !isEnded(x));
}

/** Capacity still reserved by collect stops not yet worked. */
function reservedOpen(run: NetworkRun): Load {
  return run.stops
    .filter((s) => s.kind === "collect" && s.status === "pending" && s.work_order)
    .reduce((sum, s) => addLoad(sum, s.work_order!.reserved), NO_LOAD);
}

function replaceStop(run: NetworkRun, stop: Stop): NetworkRun {
  return { ...run, stops: run.stops.map((s) => s.id === stop.id ? stop : s) };
}

/** The run departing, with what it has on board. */
function departure(run: NetworkRun, by: string, now: number): Changed {
  return changed(
    run,
    {
      ...run,
      status: "departed",
      departed_at: now,
      items: run.items.map((i) =>
        i.state === "planned" || i.state === "on_board"
          ? { ...i, state: "on_board", departed_at: now }
          : i
      ),
    },
    "depart",
    by,
    now,
  );
}

function evolve(state: S, event: RunEvent): S {
  if (event.kind !== "applied") return event.run;
  const c = event.change;
  // A departure recorded after the run arrived, before a run departed once, replays as it was.
  if (c.kind === "depart" && (state!.status === "arrived" || state!.status === "unloaded")) {
    return departure(state!, c.by, event.at).next;
  }
  const r = step(state!, event.change, event.at);
  // decide accepted this change against this same state, so it applies again.
  if (r === SAME || !r.ok) throw new Error(`run change no longer applies: ${event.change.kind}`);
  return r.next;
}

/** The driver reaches the run's shipments (src/courier/driver_access.ts) while assigned. */
function indexes(state: S): IndexEntry[] {
  if (state === null || state.driver_id === null || state.status === "closed") return [];
  const driver = state.driver_id;
  const waybills = new Set(state.items.map((i) => i.waybill));
  for (const s of state.stops) if (s.waybill) waybills.add(s.waybill);
  // A shipment transferred to another run is that run's driver's now (courier 4.5).
  for (const w of waybills) {
    const items = state.items.filter((i) => i.waybill === w);
    if (items.length > 0 && items.every((i) => i.state === "transferred")) waybills.delete(w);
  }
  return [...waybills].map((w) => ({
    index: DRIVER_WAYBILL_INDEX,
    key: driverWaybillKey(driver, w),
  }));
}

export const networkRunActor: ActorDefinition<S, RunCommand, RunEvent, RunReply> = {
  type: "network_run",
  noun: "run",
  // The state's shape is unchanged since events carry the change instead of the run.
  version: 1,
  initial: null,
  decide,
  evolve,
  indexes,
  // The query side gets the run's standing, not its hundreds of stops (read those from the run).
  project: (s) => s === null ? null : runSummary(s),
  stateBytesMax: RUN_STATE_BYTES_MAX,
  // A stop action's answer is rebuilt from the events on replay: only its seq is kept.
  keptReply: (r) => {
    if (!("answer" in r)) return r;
    const { answer: _answer, ...kept } = r;
    return kept;
  },
};

/** A run's standing without its stops and items: the list views and the projected snapshot. */
export function runSummary(run: NetworkRun) {
  const items: Partial<Record<ItemState, number>> = {};
  for (const i of run.items) items[i.state] = (items[i.state] ?? 0) + 1;
  return {
    id: run.id,
    courier_id: run.courier_id,
    facility_id: run.facility_id,
    kind: run.kind,
    countries: run.countries,
    vehicle: run.vehicle,
    driver_id: run.driver_id,
    status: run.status,
    capacity: run.capacity,
    load: loadOf(run),
    stops: run.stops.length,
    stops_open: run.stops.filter((s) => s.status === "pending" || s.status === "presented").length,
    items,
    created_at: run.created_at,
    closed_at: run.closed_at,
  };
}

export type RunSummary = ReturnType<typeof runSummary>;

/**
 * What a stop action answers (courier 4.5): the stop, the items it brought or took, the run's
 * standing and its recent history; not every stop of the run again (a run has up to STOPS_MAX).
 */
export function stopAnswer(run: NetworkRun, stopId: string) {
  return {
    run: runSummary(run),
    stop: run.stops.find((s) => s.id === stopId)!,
    items: run.items.filter((i) => i.stop_id === stopId),
    history: run.history,
  };
}

export type StopAnswer = ReturnType<typeof stopAnswer>;

/** The run after its events 1..seq, as it stood when a reply named that seq. */
export function runAt(events: readonly { seq: number; event: unknown }[], seq: number): S {
  let run: S = null;
  for (const e of events) if (e.seq <= seq) run = evolve(run, e.event as RunEvent);
  return run;
}

/** The run from a `get` reply. */
export function asRun(reply: RunReply): NetworkRun {
  if (!("stops" in reply)) throw new Error("a run change answers an acknowledgement, not the run");
  return reply;
}
