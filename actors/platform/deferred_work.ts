/**
 * Work of a bus worker that still failed after its retries within the delivery (src/bus/retry.ts),
 * or that a shutdown stopped: kept with the message it was for and tried again on a durable timer
 * until the worker has done it, so that a failure outlasting a few seconds (a store refusing
 * writes, a dependency down) or an orderly stop loses no alert and no webhook event. Nothing is
 * ever lost: the message is here from the deferral's commit on, and every try sets the next one
 * before it is made, so a process that dies during a try leaves it due again.
 *
 * The worker itself runs in src/platform/reactors/deferred.ts, on this actor's `due` events; this actor only
 * keeps the message and the schedule. Work refused for good (a refusal, not a failure: a run's
 * follow-up its shipment will never take) is kept `parked` instead: shown to the operator with
 * what refused it, and never tried again. One actor per worker and message (`deferredWorkId`), so the
 * same failure deferred twice (two instances, a republished change) is kept once.
 */
import { accept, type ActorDefinition, unreachable } from "../../src/runtime/actor.ts";
import { DEFERRED_WORK_RETRY_MS } from "../../src/limits.ts";

export interface DeferredWork {
  /** The worker that failed (src/platform/reactors/deferred.ts names them); null before the first deferral. */
  readonly worker: string | null;
  readonly subject: string | null;
  readonly payload: unknown;
  readonly status: "none" | "waiting" | "done" | "parked";
  /** Tries made since it was deferred. */
  readonly attempts: number;
  readonly deferred_at: number | null;
  /** What the last failure said, for whoever reads the store. */
  readonly last_error: string | null;
  readonly done_at: number | null;
}

export type DeferredWorkCommand =
  | { kind: "defer"; worker: string; subject: string; payload: unknown; error: string }
  | { kind: "done" }
  | { kind: "failed"; error: string }
  /** Work refused for good: kept for the operator to see, never tried again. */
  | { kind: "park"; worker: string; subject: string; payload: unknown; error: string }
  | { kind: "get" };

export type DeferredWorkEvent =
  | {
    kind: "deferred";
    worker: string;
    subject: string;
    payload: unknown;
    error: string;
    at: number;
  }
  | { kind: "due"; attempt: number; at: number }
  | { kind: "failed"; error: string }
  | { kind: "done"; at: number }
  | {
    kind: "parked";
    worker: string;
    subject: string;
    payload: unknown;
    error: string;
    at: number;
  };

const RETRY_TIMER = "retry";

/** The wait before try `attempt` (1 for the first): the schedule, then its last wait for ever. */
export function deferredRetryDelay(attempt: number): number {
  return DEFERRED_WORK_RETRY_MS[Math.min(attempt, DEFERRED_WORK_RETRY_MS.length) - 1]!;
}

/** The actor keeping `worker`'s work on one message: its subject and the change's version. */
export function deferredWorkId(worker: string, subject: string, version: unknown): string {
  return `${worker}/${subject}/${String(version ?? "")}`;
}

export const deferredWorkActor: ActorDefinition<
  DeferredWork,
  DeferredWorkCommand,
  DeferredWorkEvent,
  DeferredWork
> = {
  type: "deferred_work",
  version: 1,
  initial: {
    worker: null,
    subject: null,
    payload: null,
    status: "none",
    attempts: 0,
    deferred_at: null,
    last_error: null,
    done_at: null,
  },
  decide(state, command, ctx) {
    switch (command.kind) {
      case "defer":
        // Already waiting: the try it waits for does this deferral's work too.
        if (state.status === "waiting") return accept([], (s) => s);
        return accept(
          [{
            kind: "deferred",
            worker: command.worker,
            subject: command.subject,
            payload: command.payload,
            error: command.error,
            at: ctx.now,
          }],
          (s) => s,
          [{ op: "set", name: RETRY_TIMER, at: ctx.now + deferredRetryDelay(1) }],
        );
      case "done":
        if (state.status !== "waiting") return accept([], (s) => s);
        return accept([{ kind: "done", at: ctx.now }], (s) => s, [{
          op: "cancel",
          name: RETRY_TIMER,
        }]);
      case "failed":
        if (state.status !== "waiting") return accept([], (s) => s);
        return accept([{ kind: "failed", error: command.error }], (s) => s);
      case "park": {
        // Parked already (the same refusal met again after a crash): kept once.
        if (state.status !== "none") return accept([], (s) => s);
        const { worker, subject, payload, error } = command;
        return accept([{ kind: "parked", worker, subject, payload, error, at: ctx.now }], (s) => s);
      }
      case "get":
        return accept([], (s) => s);
      case "timer": {
        if (command.name !== RETRY_TIMER || state.status !== "waiting") return accept([]);
        const attempt = state.attempts + 1;
        // The next try is set before this one is made: a try that never reports (its process
        // died) is made again then.
        return accept([{ kind: "due", attempt, at: ctx.now }], undefined, [{
          op: "set",
          name: RETRY_TIMER,
          at: ctx.now + deferredRetryDelay(attempt + 1),
        }]);
      }
      default:
        return unreachable(command);
    }
  },
  evolve(state, event) {
    switch (event.kind) {
      case "deferred":
        return {
          worker: event.worker,
          subject: event.subject,
          payload: event.payload,
          status: "waiting",
          attempts: 0,
          deferred_at: event.at,
          last_error: event.error,
          done_at: null,
        };
      case "due":
        return { ...state, attempts: event.attempt };
      case "failed":
        return { ...state, last_error: event.error };
      case "done":
        // The message is no longer needed once its work is done.
        return { ...state, status: "done", payload: null, done_at: event.at };
      case "parked":
        return {
          worker: event.worker,
          subject: event.subject,
          payload: event.payload,
          status: "parked",
          attempts: 1,
          deferred_at: event.at,
          last_error: event.error,
          done_at: null,
        };
      default:
        return unreachable(event);
    }
  },
  // The dispatcher reads the message from the snapshot of a `due` change.
  project: (state) => state,
  // A shipment's change carries its lifecycle twice (event and snapshot) and may outgrow one
  // store value: the state is split over several, and the events, which would carry the message
  // again in one value, are not logged (a `due` lost to a crash is due again by its timer).
  stateBytesMax: 400_000,
  logEvents: false,
};
