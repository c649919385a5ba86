/**
 * One store of a shopping order (shopping 2.2, 2.3, 3): its lines and their live state. Tenant:
 * the business; id: the order claim's store id (order.ts storeActorId). Opened once with the
 * order's lines; the shopper's outcomes, decisions and the store's collection are its later
 * commands (shopping 3: line outcome found, substituted or unavailable; store collected or
 * unavailable), each an event stating what was decided.
 */
import {
  accept,
  type ActorDefinition,
  type Ctx,
  type Decision,
  type TimerFired,
  unreachable,
} from "../../src/runtime/actor.ts";
import { SHOPPING_STORE_STATE_BYTES_MAX } from "../../src/limits.ts";
import type { ExternalId, OrderLine, OrderStore } from "../../src/shopping/rules/order.ts";

/** spec: shopping 3: a store is collected or unavailable; pending until the shopper says. */
export type StoreStatus = "pending" | "collected" | "unavailable";
/** spec: shopping 3: a line is found, substituted or unavailable; pending until then. */
export type LineOutcome = "pending" | "found" | "substituted" | "unavailable";
export type DecidedBy = "shopper" | "customer" | "preference";

export interface Substitute {
  readonly name: string;
  readonly barcode: string | null;
  readonly unit_price_minor: number | null;
}

export interface ShoppingLine extends OrderLine {
  readonly outcome: LineOutcome;
  readonly qty_found: number | null;
  readonly unit_price_paid_minor: number | null;
  readonly substitute: Substitute | null;
  readonly decided_by: DecidedBy | null;
}

export interface ShoppingStore extends Omit<OrderStore, "items"> {
  readonly order_reference: string;
  readonly status: StoreStatus;
  readonly collected_amount_minor: number | null;
  readonly lines: readonly ShoppingLine[];
  readonly opened_at: number;
}

export type ShoppingStoreState = ShoppingStore | null;

export type ShoppingStoreCommand =
  | { kind: "open"; order_reference: string; store: OrderStore }
  | { kind: "get" };

export type ShoppingStoreEvent = { kind: "store_opened"; store: ShoppingStore };

/** A line as the order opens it: nothing found yet. */
function openLine(l: OrderLine): ShoppingLine {
  return {
    ...l,
    outcome: "pending",
    qty_found: null,
    unit_price_paid_minor: null,
    substitute: null,
    decided_by: null,
  };
}

/** The line of this store with that id, as sent or as its text. */
export function lineOf(s: ShoppingStore, id: ExternalId): ShoppingLine | undefined {
  return s.lines.find((l) => String(l.external_item_id) === String(id));
}

type Decided = Decision<ShoppingStoreState, ShoppingStoreEvent, ShoppingStoreState>;

function decide(
  state: ShoppingStoreState,
  command: ShoppingStoreCommand | TimerFired,
  ctx: Ctx,
): Decided {
  switch (command.kind) {
    case "open": {
      // A retry of the order's creation opens it again: the first opening stands.
      if (state) return accept([], () => state);
      const { items, ...store } = command.store;
      const opened: ShoppingStore = {
        ...store,
        order_reference: command.order_reference,
        status: "pending",
        collected_amount_minor: null,
        lines: items.map(openLine),
        opened_at: ctx.now,
      };
      return accept([{ kind: "store_opened", store: opened }], (s) => s);
    }
    case "get":
      return accept([], () => state);
    case "timer":
      return accept([]);
    default:
      return unreachable(command);
  }
}

function evolve(_state: ShoppingStoreState, e: ShoppingStoreEvent): ShoppingStoreState {
  switch (e.kind) {
    case "store_opened":
      return e.store;
    default:
      return unreachable(e.kind);
  }
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
  stateBytesMax: SHOPPING_STORE_STATE_BYTES_MAX,
  // The opening's lines are the state's: the log and the bus keep which store opened, once.
  logged: (e) => ({
    kind: e.kind,
    order_reference: e.store.order_reference,
    lines: e.store.lines.length,
  }),
  publishEvents: false,
};
