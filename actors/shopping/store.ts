/**
 * One store of a shopping order (shopping 2.2, 2.3, 3): its lines and their live state. Tenant:
 * the business; id: the order claim's store id (order.ts storeActorId). Opened once with the
 * order's lines; the shopper's outcomes, the customer's decisions and the store's collection are
 * its later commands, each an event stating what was decided. A line under preference `ask`
 * waits for the customer on a durable timer; what the merchant hears of (a decision needed, the
 * store's part ended) is added to SHOPPING_EVENT_OUTBOX in the commit of the change.
 */
import {
  accept,
  type ActorDefinition,
  type Ctx,
  mapReply,
  type OutboxAdd,
  reject,
  type TimerFired,
  unreachable,
} from "../../src/runtime/actor.ts";
import { SHOPPING_STORE_STATE_BYTES_MAX } from "../../src/limits.ts";
import type { ExternalId } from "../../src/shopping/rules/order.ts";
import { SHOPPING_EVENT_OUTBOX, type ShoppingEventItem } from "../../src/shopping/rules/events.ts";
import {
  closeWindow,
  decideLine,
  expireDecision,
  recordLine,
  storeCollect,
  storeUnavailable,
  tripEnded,
} from "./store_work.ts";
import {
  type Decided,
  openLine,
  type ShoppingLine,
  type ShoppingStore,
  type ShoppingStoreCommand,
  type ShoppingStoreEvent,
  type ShoppingStoreState,
} from "./store_types.ts";

export * from "./store_types.ts";

function open(
  state: ShoppingStoreState,
  command: Extract<ShoppingStoreCommand, { kind: "open" }>,
  ctx: Ctx,
): Decided {
  // A retry of the order's creation opens it again: the first opening stands.
  if (state) return accept([], () => state);
  const { items, ...store } = command.store;
  const opened: ShoppingStore = {
    ...store,
    business_id: command.business_id,
    store_id: command.store_id,
    order_reference: command.order_reference,
    substitution_preference: command.substitution_preference,
    status: "pending",
    collected_amount_minor: null,
    receipt_photo: null,
    finished_at: null,
    lines: items.map(openLine),
    opened_at: ctx.now,
  };
  return accept([{ kind: "store_opened", store: opened }], (s) => s);
}

/**
 * spec: shopping 7 "nothing is booked": a store opened for a claim that was then released (its
 * booking refused, or stalled and swept) keeps no lines. Only one never worked on: a store the
 * shopper touched belongs to a booked order and stays (a repeat finds it gone, and is harmless).
 */
function discard(state: ShoppingStoreState, ctx: Ctx): Decided {
  const untouched = state?.status === "pending" &&
    state.lines.every((l) => l.outcome === "pending");
  if (!untouched) return accept([], () => state);
  return accept([{ kind: "store_discarded", at: ctx.now }], () => null);
}

function decide(
  state: ShoppingStoreState,
  command: ShoppingStoreCommand | TimerFired,
  ctx: Ctx,
): Decided {
  if (command.kind === "open") return open(state, command, ctx);
  if (command.kind === "get") return accept([], () => state);
  if (command.kind === "discard") return discard(state, ctx);
  if (!state) {
    return command.kind === "timer" ? accept([]) : reject("not_found", "shopping store not found");
  }
  switch (command.kind) {
    case "record_line":
      return asRequested(recordLine(state, command, ctx), command.request);
    case "collect":
      return asRequested(storeCollect(state, command, ctx), command.request);
    case "mark_unavailable":
      return asRequested(storeUnavailable(state, ctx), command.request);
    case "trip_ended":
      return tripEnded(state, ctx);
    case "decide":
      return decideLine(state, command, ctx);
    case "close_window":
      return closeWindow(state, command, ctx);
    case "timer":
      return expireDecision(state, command, ctx);
    default:
      return unreachable(command);
  }
}

/**
 * CONTRACT "Driver app": a shopper's change answers its request's digest back, so the reply kept
 * under the driver's key tells a replay from another request under the same key.
 */
function asRequested(d: Decided, request: string | undefined): Decided {
  if (request === undefined) return d;
  return mapReply(d, (s) => s && { ...s, request });
}

function withLine(
  s: ShoppingStore,
  id: ExternalId,
  change: (l: ShoppingLine) => ShoppingLine,
): ShoppingStore {
  const key = String(id);
  return {
    ...s,
    lines: s.lines.map((l) => String(l.external_item_id) === key ? change(l) : l),
  };
}

function evolve(state: ShoppingStoreState, e: ShoppingStoreEvent): ShoppingStoreState {
  if (e.kind === "store_opened") return e.store;
  if (e.kind === "store_discarded") return null;
  if (!state) return state;
  switch (e.kind) {
    case "line_recorded": {
      const { kind: _, external_item_id, at, ...outcome } = e;
      return withLine(state, external_item_id, (l) => ({ ...l, ...outcome, recorded_at: at }));
    }
    case "decision_awaited": {
      const { kind: _k, external_item_id, at, event_id: _e, ...awaited } = e;
      return withLine(state, external_item_id, (l) => ({
        ...l,
        ...awaited,
        outcome: "awaiting_decision",
        recorded_at: at,
      }));
    }
    case "store_collected":
      return {
        ...state,
        status: "collected",
        collected_amount_minor: e.collected_amount_minor,
        receipt_photo: e.receipt_photo,
        finished_at: e.at,
      };
    case "store_unavailable": {
      const ids = new Set(e.lines.map(String));
      const unanswered = new Set((e.unanswered ?? []).map(String));
      const lines = state.lines.map((l): ShoppingLine =>
        ids.has(String(l.external_item_id))
          ? {
            ...l,
            outcome: "unavailable",
            qty_found: 0,
            unit_price_paid_minor: null,
            substitute: null,
            decided_by: unanswered.has(String(l.external_item_id)) ? "preference" : "shopper",
            recorded_at: e.at,
          }
          : l
      );
      return { ...state, status: "unavailable", lines, finished_at: e.at };
    }
    default:
      return unreachable(e);
  }
}

/** spec: shopping 3, 6: what the merchant hears of, added in the commit of the change. */
function outbox(e: ShoppingStoreEvent, next: ShoppingStoreState): readonly OutboxAdd[] {
  if (!next) return [];
  const of = { business_id: next.business_id, order_reference: next.order_reference };
  let item: ShoppingEventItem;
  switch (e.kind) {
    case "decision_awaited":
      item = {
        kind: "decision_needed",
        ...of,
        store_id: next.store_id,
        external_item_id: e.external_item_id,
        event_id: e.event_id,
        decide_by: e.decide_by,
        line: {
          qty_found: e.qty_found,
          unit_price_paid_minor: e.unit_price_paid_minor,
          substitute: e.substitute,
        },
        at: e.at,
      };
      break;
    case "store_collected":
    case "store_unavailable":
      item = { kind: "store_finished", ...of, store_id: next.store_id, event_id: e.event_id };
      break;
    default:
      return [];
  }
  return [{ outbox: SHOPPING_EVENT_OUTBOX, payload: item }];
}

export const shoppingStoreActor: ActorDefinition<
  ShoppingStoreState,
  ShoppingStoreCommand,
  ShoppingStoreEvent,
  ShoppingStoreState
> = {
  type: "shopping_store",
  noun: "shopping order store",
  version: 1,
  initial: null,
  decide,
  evolve,
  outbox,
  stateBytesMax: SHOPPING_STORE_STATE_BYTES_MAX,
  // The opening's lines are the state's: the log and the bus keep which store opened, once.
  logged: (e) =>
    e.kind === "store_opened"
      ? { kind: e.kind, order_reference: e.store.order_reference, lines: e.store.lines.length }
      : e,
  publishEvents: false,
};
