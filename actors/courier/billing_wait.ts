/**
 * The hourly retry of a courier's charge events that wait for an endpoint (courier 3.1): one
 * timer per courier, not one per event. Tenant = id = the courier's business. Such an event is a
 * delivery-log row, not an actor (src/courier/queries/outbound_log.ts, issue 36 item 2), so a
 * courier that takes its charges by CSV export instead of an endpoint keeps one timer here,
 * however many events wait, where each event's own timer cost two commits an hour for ever.
 *
 * `wait` arms the timer for the earliest retry asked (an event made, or the next one due after a
 * pass); when it fires, `retry_due` adds an item to the `billing_wait` outbox in the same commit,
 * and its handler (src/courier/reactors/billing_wait.ts) retries the events due then and asks
 * again for the next. A crash before the handler is done leaves the item for the outbox sweep.
 */
import { accept, type ActorDefinition, unreachable } from "../../src/runtime/actor.ts";

/** The outbox the handler of the retries drains. */
export const BILLING_WAIT_OUTBOX = "billing_wait";

const RETRY_TIMER = "retry";

export interface BillingWait {
  /** When the timer fires; null when none is set. */
  readonly due_at: number | null;
}

export type BillingWaitCommand = { kind: "wait"; at: number } | { kind: "get" };

export type BillingWaitEvent =
  | { kind: "armed"; at: number }
  /** The retry's time came: the item of its pass is in the commit's outbox. */
  | { kind: "retry_due"; at: number };

/** What the outbox item of a pass carries: the time it was due. */
export interface BillingWaitItem {
  readonly at: number;
}

export const billingWaitActor: ActorDefinition<
  BillingWait,
  BillingWaitCommand,
  BillingWaitEvent,
  BillingWait
> = {
  type: "billing_wait",
  version: 1,
  initial: { due_at: null },
  decide(state, command, ctx) {
    switch (command.kind) {
      case "wait": {
        // Armed for as early or earlier already: nothing to write.
        if (state.due_at !== null && state.due_at <= command.at) return accept([], (s) => s);
        const at = Math.max(command.at, ctx.now);
        return accept([{ kind: "armed", at }], (s) => s, [
          { op: "set", name: RETRY_TIMER, at },
        ]);
      }
      case "get":
        return accept([], (s) => s);
      case "timer":
        if (command.name !== RETRY_TIMER || state.due_at === null) return accept([], (s) => s);
        return accept([{ kind: "retry_due", at: ctx.now }], (s) => s);
      default:
        return unreachable(command);
    }
  },
  evolve: (_s, e) => ({ due_at: e.kind === "armed" ? e.at : null }),
  outbox: (e) =>
    e.kind === "retry_due"
      ? [{ outbox: BILLING_WAIT_OUTBOX, payload: { at: e.at } satisfies BillingWaitItem }]
      : [],
  // The state is the time it is armed for: the log would only repeat it; nobody downstream
  // reads its changes (the outbox carries the pass).
  logEvents: false,
  publishEvents: false,
};
