/**
 * A platform driver of the Business API's dispatch pool (CONTRACT "Operator API": POST
 * /operator/drivers): who they are, the vehicle and zone they work in, and whether they are on
 * shift. Known by the hash of the bearer token the operator issued, under the platform tenant:
 * pool drivers take trips of every business, and a trip names its driver (TripDriver).
 */
import {
  accept,
  type ActorDefinition,
  type Ctx,
  type Decision,
  reject,
  unreachable,
} from "../../src/runtime/actor.ts";
import { constantTimeEqual } from "../../src/domain/secrets.ts";
import { keyMention, type KeyRecord } from "../../src/domain/credentials.ts";
import { type HoldingItem, QUEUED_START_OUTBOX } from "../../src/business/rules/driver_holding.ts";

export interface PoolDriver {
  readonly id: string;
  readonly name: string;
  readonly phone: string;
  readonly vehicle_type_id: number;
  readonly zone_id: string;
  /** Shown on tracking (spec: business 2.4 driver_plate, driver_color); null when not given. */
  readonly plate: string | null;
  readonly color: string | null;
  readonly token: KeyRecord;
  /** On shift: online drivers are offered trips (spec: business 1.2). */
  readonly online: boolean;
  readonly shift_changed_at: number | null;
  /**
   * The trips held (`<business>:<reference>`): the one under way and one queued behind it (spec:
   * business 3.1 queued). A trip is taken here before the trip accepts the driver, so two trips
   * never hold one driver.
   */
  readonly current: string | null;
  readonly queued: string | null;
  /** Taken and not yet confirmed by the trip's acceptance: settled by a timer if a crash cut in. */
  readonly unconfirmed: readonly string[];
  /**
   * When the driver last gave up a held trip (released: finished, cancelled, given back; or passed
   * on): a position observed then or before may be that trip's, another business's (spec: business
   * 3.1, 2.4; rules/board_drivers offeredSince). 0: never; null: not known (stored before it was).
   */
  readonly released_at: number | null;
}

export type PoolDriverState = PoolDriver | null;

export type NewPoolDriver = Omit<
  PoolDriver,
  "online" | "shift_changed_at" | "current" | "queued" | "unconfirmed" | "released_at"
>;

/** A take the trip's acceptance has not confirmed within this is settled (HOLD_OUTBOX). */
export const HOLD_CONFIRM_MS = 60_000;
/** The outbox a take left unconfirmed goes to: the settling flow completes or undoes it. */
export const HOLD_OUTBOX = "pool_driver_hold";
const HOLD_TIMER = "hold:";

/** An unconfirmed take handed to the settling flow. */
export interface HoldItem {
  readonly driver_id: string;
  readonly trip: string;
}

export type PoolDriverCommand =
  | { kind: "create"; driver: NewPoolDriver }
  | { kind: "authenticate"; hash: string }
  | { kind: "set_shift"; online: boolean }
  /**
   * The operator replaces the token (a phone lost, a token leaked): the old one stops at once.
   * `replaces`: the hash of the token replaced; another held by then refuses it.
   */
  | { kind: "rotate_token"; token: KeyRecord; replaces: string }
  | { kind: "get" }
  | HoldCommand;

/** The holding of trips (spec: business 3.1: two trips never hold one driver). */
export type HoldCommand =
  | { kind: "take"; trip: string }
  | { kind: "confirm"; trip: string }
  | { kind: "release"; trip: string }
  /** spec: business 2.3, 3.1 queued: the batch's next stop queued with `trip` holds its place. */
  | { kind: "pass"; trip: string; to: string };

export type PoolDriverEvent =
  | { kind: "pool_driver_created"; driver: NewPoolDriver }
  | { kind: "shift_changed"; online: boolean; at: number }
  | { kind: "token_rotated"; token: KeyRecord }
  | { kind: "trip_taken"; trip: string; slot: "current" | "queued"; at: number }
  | { kind: "hold_confirmed"; trip: string }
  | { kind: "hold_unconfirmed"; trip: string; at: number }
  | { kind: "trip_released"; trip: string; at: number }
  /** The held `trip` left; `to`, queued with it, holds its slot (started at once if current). */
  | { kind: "hold_passed"; trip: string; to: string; slot: "current" | "queued"; at: number }
  /** spec: business 3.1 queued: the trip under way was released; the queued one is now current. */
  | { kind: "queued_moved_up"; trip: string; at: number };

const NOT_FOUND = reject("not_found", "driver not found");

export const poolDriverActor: ActorDefinition<
  PoolDriverState,
  PoolDriverCommand,
  PoolDriverEvent,
  PoolDriver
> = {
  type: "pool_driver",
  version: 1,
  initial: null,
  decide(state, command, ctx) {
    switch (command.kind) {
      case "create":
        if (state !== null) return reject("already_exists", `driver exists: ${command.driver.id}`);
        return accept(
          [{ kind: "pool_driver_created", driver: command.driver }],
          (s) => s as PoolDriver,
        );
      case "authenticate":
        if (state === null || !constantTimeEqual(state.token.hash, command.hash)) {
          return reject("unauthenticated", "unknown driver token");
        }
        return accept([], () => state);
      case "set_shift":
        if (state === null) return NOT_FOUND;
        // Going online twice changes nothing (a retry after lost signal).
        if (state.online === command.online) return accept([], () => state);
        return accept(
          [{ kind: "shift_changed", online: command.online, at: ctx.now }],
          (s) => s as PoolDriver,
        );
      case "rotate_token":
        if (state === null) return NOT_FOUND;
        // Two replacements at once are one: the later one's token would be shown and never work.
        if (!constantTimeEqual(state.token.hash, command.replaces)) {
          return reject(
            "key_already_rotated",
            "the token was replaced meanwhile: the other replacement's token is the one that works",
          );
        }
        return accept([{ kind: "token_rotated", token: command.token }], (s) => s as PoolDriver);
      case "get":
        return state === null ? NOT_FOUND : accept([], () => state);
      case "take":
      case "confirm":
      case "release":
        return state === null ? NOT_FOUND : hold(state, command, ctx);
      case "pass":
        return state === null ? NOT_FOUND : pass(state, command, ctx);
      case "timer":
        if (state === null || !command.name.startsWith(HOLD_TIMER)) return accept([]);
        return hold(state, { kind: "timer", trip: command.name.slice(HOLD_TIMER.length) }, ctx);
      default:
        return unreachable(command);
    }
  },
  evolve(state, event) {
    switch (event.kind) {
      case "pool_driver_created":
        return {
          ...event.driver,
          online: false,
          shift_changed_at: null,
          current: null,
          queued: null,
          unconfirmed: [],
          released_at: 0,
        };
      case "shift_changed":
        if (state === null) throw new Error("shift_changed before pool_driver_created");
        return { ...state, online: event.online, shift_changed_at: event.at };
      case "token_rotated":
        if (state === null) throw new Error("token_rotated before pool_driver_created");
        return { ...state, token: event.token };
      default:
        if (state === null) throw new Error(`${event.kind} before pool_driver_created`);
        return evolveHold(state, event);
    }
  },
  // Drivers stored before they held trips held none; before releases were kept, when they last
  // gave one up is not known (null: their stored positions may be another business's trip's).
  load: (stored) => {
    const s = stored as PoolDriverState;
    if (s === null) return s;
    const held = s.unconfirmed !== undefined
      ? s
      : { ...s, current: null, queued: null, unconfirmed: [] };
    return held.released_at !== undefined ? held : { ...held, released_at: null };
  },
  outbox: (e, next) => {
    if (next === null) return [];
    if (e.kind === "queued_moved_up" || (e.kind === "hold_passed" && e.slot === "current")) {
      // The queued trip starts (queued to accepted) in its own turn, after this commit.
      const item: HoldingItem = {
        driver_id: next.id,
        trip: e.kind === "hold_passed" ? e.to : e.trip,
      };
      return [{ outbox: QUEUED_START_OUTBOX, payload: item }];
    }
    if (e.kind !== "hold_unconfirmed") return [];
    const item: HoldItem = { driver_id: next.id, trip: e.trip };
    return [{ outbox: HOLD_OUTBOX, payload: item }];
  },
  indexes: (s) => s === null ? [] : [{ index: "credential", key: s.token.hash }],
  project: (s) => s === null ? null : { ...s, token: undefined },
  // The token's hash stays in the state (signing in checks it), off the log and the bus; events
  // logged whole before still evolve the same.
  logged: (e) =>
    e.kind === "pool_driver_created"
      ? { ...e, driver: { ...e.driver, token: keyMention(e.driver.token) } }
      : e.kind === "token_rotated"
      ? { ...e, token: keyMention(e.token) }
      : e,
};

type D = Decision<PoolDriverState, PoolDriverEvent, PoolDriver>;

/** spec: business 3.1: a driver holds at most a trip under way and one queued behind it. */
function hold(
  s: PoolDriver,
  c: Exclude<HoldCommand, { kind: "pass" }> | { kind: "timer"; trip: string },
  ctx: Ctx,
): D {
  const held = s.current === c.trip || s.queued === c.trip;
  const timer = `${HOLD_TIMER}${c.trip}`;
  switch (c.kind) {
    case "take":
      // A retry of the same take (lost signal) answers the driver as they are.
      if (held) return accept([], () => s);
      if (s.current !== null && s.queued !== null) {
        return reject("driver_busy", `the driver holds a trip and one queued: ${s.current}`);
      }
      return accept(
        [{
          kind: "trip_taken",
          trip: c.trip,
          slot: s.current === null ? "current" : "queued",
          at: ctx.now,
        }],
        (n) => n as PoolDriver,
        [{ op: "set", name: timer, at: ctx.now + HOLD_CONFIRM_MS }],
      );
    case "confirm":
      if (!s.unconfirmed.includes(c.trip)) return accept([], () => s);
      return accept([{ kind: "hold_confirmed", trip: c.trip }], (n) => n as PoolDriver, [
        { op: "cancel", name: timer },
      ]);
    case "release": {
      if (!held) return accept([], () => s);
      const released: PoolDriverEvent = { kind: "trip_released", trip: c.trip, at: ctx.now };
      // spec: business 3.1 queued: the queued trip moves up once the one under way ends.
      const movedUp: PoolDriverEvent[] = s.current === c.trip && s.queued !== null
        ? [{ kind: "queued_moved_up", trip: s.queued, at: ctx.now }]
        : [];
      return accept([released, ...movedUp], (n) => n as PoolDriver, [
        { op: "cancel", name: timer },
      ]);
    }
    case "timer":
      if (!s.unconfirmed.includes(c.trip)) return accept([], () => s);
      return accept([{ kind: "hold_unconfirmed", trip: c.trip, at: ctx.now }], () => s);
  }
}

/**
 * spec: business 2.3, 3.1 queued: a batch's held stop left (cancelled, given back) while the
 * batch's next stop waits queued with it: that stop takes its slot, so the driver's committed
 * work keeps its place and starts when the trip under way ends (at once if it already has). A
 * trip not held passes nothing (done before, or never held); `to` held already: a release.
 */
function pass(s: PoolDriver, c: Extract<HoldCommand, { kind: "pass" }>, ctx: Ctx): D {
  const slot = s.current === c.trip ? "current" : s.queued === c.trip ? "queued" : null;
  if (slot === null) return accept([], () => s);
  if (s.current === c.to || s.queued === c.to) {
    return hold(s, { kind: "release", trip: c.trip }, ctx);
  }
  return accept(
    [{ kind: "hold_passed", trip: c.trip, to: c.to, slot, at: ctx.now }],
    (n) => n as PoolDriver,
    [{ op: "cancel", name: `${HOLD_TIMER}${c.trip}` }],
  );
}

function evolveHold(
  s: PoolDriver,
  e: Exclude<
    PoolDriverEvent,
    { kind: "pool_driver_created" | "shift_changed" | "token_rotated" }
  >,
): PoolDriver {
  switch (e.kind) {
    case "trip_taken":
      return {
        ...s,
        [e.slot]: e.trip,
        unconfirmed: [...s.unconfirmed, e.trip],
      };
    case "hold_confirmed":
      return { ...s, unconfirmed: s.unconfirmed.filter((t) => t !== e.trip) };
    case "hold_unconfirmed":
    case "queued_moved_up":
      return s;
    case "hold_passed":
      return {
        ...s,
        [e.slot]: e.to,
        unconfirmed: s.unconfirmed.filter((t) => t !== e.trip),
        released_at: e.at,
      };
    case "trip_released": {
      const unconfirmed = s.unconfirmed.filter((t) => t !== e.trip);
      const released = { unconfirmed, released_at: e.at };
      // The queued trip moves up once the one under way is released.
      return s.current === e.trip
        ? { ...s, current: s.queued, queued: null, ...released }
        : { ...s, queued: s.queued === e.trip ? null : s.queued, ...released };
    }
    default:
      return unreachable(e);
  }
}
