/**
 * The network runs one shipment has boarded, and whether a cold-chain profile was asked for it:
 * the index from waybill to runs that a cold-chain profile set after boarding needs, so each run
 * counts the shipment's cold slots against its capacity (courier 2.10 cold slots; 5 runs:override
 * overrides capacity, so it is never exceeded silently).
 *
 * Both facts live in one actor so boarding and the profile are ordered: a boarding either comes
 * first (the profile finds the run and reserves its cold slots there) or sees the flag (its load
 * counts them). `cold_chain` false says nothing by itself: the laboratory sample is read then
 * (samples profiled before this actor existed).
 *
 * A cold-chain profile's reservation stays pending until its request settles it (the profile set
 * or refused); the flag is released only once none is pending and the sample is not cold, so of
 * profiles racing for the last cold slots, a refused one never keeps a slot, nor gives back one
 * an accepted one holds. One still pending COLD_RESERVATION_STALL_MS after it was made (its
 * request stopped) is handed to the sweep (COLD_RESERVATIONS_OUTBOX), which settles it; a release
 * is handed to it too, later, which tells the runs again (a crash may have come between).
 *
 * It also names the one run a shipment is planned on for delivery (courier 3.4: one shipment,
 * one run that carries it out), claimed in its turn, so of two runs planning it at once one wins.
 * A claim is replaced only by a caller that names it, once the run holding it has let it go
 * (src/courier/flows/runs/planning.ts).
 */
import {
  accept,
  type ActorDefinition,
  type Decision,
  type OutboxAdd,
  reject,
  type TimerOp,
  unreachable,
} from "../../src/runtime/actor.ts";
import { COLD_RESERVATION_STALL_MS } from "../../src/limits.ts";

/** Runs kept per shipment, the most recent last; one that boarded more is long off the first. */
export const SHIPMENT_RUNS_MAX = 20;

/** The run a shipment is planned on for delivery, and its claim's number. */
export interface PlannedOn {
  readonly run_id: string;
  readonly claim: number;
  /** The run a transfer passed the claim from: it has the shipment until the target takes it. */
  readonly from_run?: string;
}

export interface ShipmentRuns {
  readonly runs: readonly string[];
  readonly cold_chain: boolean;
  /** Absent or null: planned on no run (or only before claims were kept). */
  readonly planned_on?: PlannedOn | null;
  /** Claims made so far, so each has its own number. */
  readonly claims?: number;
  /**
   * Cold-chain reservations asked so far (each `cold_chain` true counts one), so a release decided
   * before another was made is refused in the index's turn.
   */
  readonly cold_reservations?: number;
  /** Reservations their profile's request has not settled yet, the oldest first. */
  readonly cold_pending?: readonly ColdReservation[];
}

export interface ColdReservation {
  readonly reservation: number;
  /** When it was made (epoch ms): the sweep settles it once COLD_RESERVATION_STALL_MS old. */
  readonly at: number;
}

/** The outbox of reservations whose request stopped before settling them (the item's id: waybill). */
export const COLD_RESERVATIONS_OUTBOX = "courier_cold_reservations";
/** The timer that hands reservations left pending to the sweep. */
export const COLD_RESERVATIONS_TIMER = "cold_reservations";

/** A stalled reservations' outbox item; none: a release whose runs are told again. */
export interface ColdReservationsStalled {
  readonly reservations: readonly number[];
}

export type ShipmentRunsCommand =
  | { kind: "board"; run_id: string }
  /** A cold-chain profile reserves cold slots: a numbered reservation, pending until settled. */
  | { kind: "cold_chain"; cold: true }
  /**
   * The flag released, only while no reservation is pending and none was made since `seen` (the
   * count of reservations when the caller found the sample not cold).
   */
  | { kind: "cold_chain"; cold: false; seen: number }
  /** The profile of `reservation` was set or refused (or its request stopped): settled. */
  | { kind: "cold_settle"; reservation: number }
  /**
   * The shipment is planned on run_id: refused `planned_on_another_run` while another run holds
   * the claim, unless `replacing` names that claim (the run holding it let it go).
   */
  | { kind: "plan"; run_id: string; replacing?: number; from_run?: string }
  | { kind: "get" };

export type ShipmentRunsEvent =
  | { kind: "boarded"; run_id: string }
  /** Before reservations were pending: `cold` true with its number; now only a release. */
  | { kind: "cold_chain_set"; cold: boolean; reservation?: number }
  | { kind: "cold_reserved"; reservation: number; at: number }
  | { kind: "cold_settled"; reservation: number }
  | { kind: "cold_reservations_stalled"; reservations: readonly number[] }
  | { kind: "planned"; planned_on: PlannedOn };

/** Every reply is the state after the command, with the flag as it stood before it. */
export interface ShipmentRunsReply extends ShipmentRuns {
  readonly was_cold_chain: boolean;
  /** A settle's: the reservation was pending (false: settled already, by the sweep). */
  readonly settled?: boolean;
}

export const shipmentRunsActor: ActorDefinition<
  ShipmentRuns,
  ShipmentRunsCommand,
  ShipmentRunsEvent,
  ShipmentRunsReply
> = {
  type: "shipment_runs",
  version: 1,
  initial: { runs: [], cold_chain: false },
  publishEvents: false,
  decide(state, command, ctx) {
    const reply = (next: ShipmentRuns) => ({ ...next, was_cold_chain: state.cold_chain });
    switch (command.kind) {
      case "board":
        if (state.runs.includes(command.run_id)) return accept([], reply);
        return accept([{ kind: "boarded", run_id: command.run_id }], reply);
      case "cold_chain":
        return coldChain(state, command, reply, ctx.now);
      case "cold_settle":
        return coldSettle(state, command.reservation, reply);
      case "plan":
        return plan(state, command, reply);
      case "timer":
        if (command.name === COLD_RESERVATIONS_TIMER) return coldStalled(state, ctx.now);
        return accept([], reply);
      case "get":
        return accept([], reply);
      default:
        return unreachable(command);
    }
  },
  evolve(state, event) {
    switch (event.kind) {
      case "boarded":
        return { ...state, runs: [...state.runs, event.run_id].slice(-SHIPMENT_RUNS_MAX) };
      case "cold_chain_set":
        return {
          ...state,
          cold_chain: event.cold,
          ...(event.reservation === undefined ? {} : { cold_reservations: event.reservation }),
        };
      case "cold_reserved":
        return {
          ...state,
          cold_chain: true,
          cold_reservations: event.reservation,
          cold_pending: [...pendingOf(state), { reservation: event.reservation, at: event.at }],
        };
      case "cold_settled":
        return {
          ...state,
          cold_pending: pendingOf(state).filter((p) => p.reservation !== event.reservation),
        };
      case "cold_reservations_stalled":
        return state;
      case "planned":
        return { ...state, planned_on: event.planned_on, claims: event.planned_on.claim };
    }
  },
  outbox: stalledOutbox,
};

type Decided = Decision<ShipmentRuns, ShipmentRunsEvent, ShipmentRunsReply>;
type Reply = (next: ShipmentRuns) => ShipmentRunsReply;

/** The reservations pending; none on shipments stored before they were kept. */
export function pendingOf(state: ShipmentRuns): readonly ColdReservation[] {
  return state.cold_pending ?? [];
}

/** The sweep's timer: due when the oldest pending reservation stalls, cancelled when none is. */
function stallTimer(pending: readonly ColdReservation[]): TimerOp {
  const oldest = pending[0];
  return oldest
    ? { op: "set", name: COLD_RESERVATIONS_TIMER, at: oldest.at + COLD_RESERVATION_STALL_MS }
    : { op: "cancel", name: COLD_RESERVATIONS_TIMER };
}

/**
 * spec: courier 2.10: a cold-chain profile reserves cold slots (numbered, pending until its
 * request settles it); the release is decided here in the actor's turn: never while a
 * reservation is pending or one was made since the caller found the sample not cold, so a
 * refused profile never gives back the slots of a sample that is cold, nor keeps them.
 */
function coldChain(
  state: ShipmentRuns,
  c: Extract<ShipmentRunsCommand, { kind: "cold_chain" }>,
  reply: Reply,
  now: number,
): Decided {
  if (c.cold) {
    const reservation = (state.cold_reservations ?? 0) + 1;
    const pending = [...pendingOf(state), { reservation, at: now }];
    return accept([{ kind: "cold_reserved", reservation, at: now }], reply, [stallTimer(pending)]);
  }
  const since = (state.cold_reservations ?? 0) !== c.seen;
  if (!state.cold_chain || since || pendingOf(state).length > 0) return accept([], reply);
  // The runs are told after this commit: the sweep tells them again later, in case a crash
  // came between.
  const again: TimerOp = {
    op: "set",
    name: COLD_RESERVATIONS_TIMER,
    at: now + COLD_RESERVATION_STALL_MS,
  };
  return accept([{ kind: "cold_chain_set", cold: false }], reply, [again]);
}

/** A reservation settled by its request, or by the sweep: no longer pending. */
function coldSettle(state: ShipmentRuns, reservation: number, reply: Reply): Decided {
  const pending = pendingOf(state);
  if (!pending.some((p) => p.reservation === reservation)) {
    return accept([], (next) => ({ ...reply(next), settled: false }));
  }
  const left = pending.filter((p) => p.reservation !== reservation);
  return accept(
    [{ kind: "cold_settled", reservation }],
    (next) => ({ ...reply(next), settled: true }),
    [stallTimer(left)],
  );
}

/** Reservations pending past the bound go to the sweep; looked at again after another bound. */
function coldStalled(state: ShipmentRuns, now: number): Decided {
  const pending = pendingOf(state);
  // None pending: a release's timer: its runs are told again (an empty item).
  if (pending.length === 0 && !state.cold_chain) {
    return accept([{ kind: "cold_reservations_stalled", reservations: [] }]);
  }
  const stalled = pending.filter((p) => p.at + COLD_RESERVATION_STALL_MS <= now);
  if (stalled.length === 0) return accept([], undefined, [stallTimer(pending)]);
  return accept(
    [{ kind: "cold_reservations_stalled", reservations: stalled.map((p) => p.reservation) }],
    undefined,
    [{ op: "set", name: COLD_RESERVATIONS_TIMER, at: now + COLD_RESERVATION_STALL_MS }],
  );
}

function stalledOutbox(e: ShipmentRunsEvent): readonly OutboxAdd[] {
  if (e.kind !== "cold_reservations_stalled") return [];
  const payload: ColdReservationsStalled = { reservations: e.reservations };
  return [{ outbox: COLD_RESERVATIONS_OUTBOX, payload }];
}

/** spec: courier 3.4: one run plans a shipment's delivery; a claim its run let go is replaced. */
function plan(
  state: ShipmentRuns,
  c: Extract<ShipmentRunsCommand, { kind: "plan" }>,
  reply: (next: ShipmentRuns) => ShipmentRunsReply,
): Decision<ShipmentRuns, ShipmentRunsEvent, ShipmentRunsReply> {
  const held = state.planned_on ?? null;
  if (held?.run_id === c.run_id) {
    return accept<ShipmentRuns, ShipmentRunsEvent, ShipmentRunsReply>([], reply);
  }
  if (held !== null && held.claim !== c.replacing) {
    return reject(
      "planned_on_another_run",
      `the shipment is planned on run ${held.run_id}`,
      { ...held },
    );
  }
  const planned_on = {
    run_id: c.run_id,
    claim: (state.claims ?? 0) + 1,
    ...(c.from_run ? { from_run: c.from_run } : {}),
  };
  return accept<ShipmentRuns, ShipmentRunsEvent, ShipmentRunsReply>([{
    kind: "planned",
    planned_on,
  }], reply);
}
