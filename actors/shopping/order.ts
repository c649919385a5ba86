/**
 * A shopping order (shopping 1.1, 2.2): the merchant's order, the float and its stores, held
 * under the reference of the shop-and-deliver trip it books. Tenant: the business; id: the trip
 * reference. Each store's lines are a shopping_store actor's (store.ts), so a shopper's work on a
 * line rewrites one store, not 4,000 lines.
 *
 * Booking is claimed first (the external_order_id taken, uniquely per business), then marked
 * booked once the trip exists; a refused booking releases the claim, leaving the id free.
 */
import {
  accept,
  type ActorDefinition,
  type Ctx,
  type Decision,
  type IndexEntry,
  type OutboxAdd,
  reject,
  type TimerFired,
  type TimerOp,
  unreachable,
} from "../../src/runtime/actor.ts";
import type { OrderStore, ShoppingOrderDraft } from "../../src/shopping/rules/order.ts";
import {
  BASKET_WEBHOOK_OUTBOX,
  type BasketWebhookItem,
  ORDER_BOOKING_STALL_MS,
  ORDER_STALL_TIMER,
  ORDER_STALLED_OUTBOX,
  type OrderStalledItem,
} from "../../src/shopping/rules/events.ts";
import {
  basketComplete,
  type FinishedStore,
  reconcile,
  type Reconciliation,
  type StorePart,
  storePart,
} from "../../src/shopping/rules/float.ts";

/** A store as the order holds it: its lines are in the store's own actor (`store_id`). */
export interface StoreSummary extends Omit<OrderStore, "items"> {
  readonly store_id: string;
  readonly lines: number;
}

export interface ShoppingOrder extends Omit<ShoppingOrderDraft, "stores"> {
  readonly business_id: string;
  readonly reference: string;
  /** Names this claim's store actors, so a released claim's leftovers are never read again. */
  readonly claim_id: string;
  readonly fingerprint: string;
  readonly phase: "booking" | "booked";
  readonly stores: readonly StoreSummary[];
  readonly claimed_at: number;
  readonly booked_at: number | null;
  /** The trip's claim let through to its charge (confirm_claim); absent or null: none yet. */
  readonly trip_claimed_at?: number | null;
  /** Each finished store's part of the float, by store id (absent on orders stored before). */
  readonly parts?: Readonly<Record<string, StorePart>>;
  /** Set once every store is finished: the float reconciled (absent or null before). */
  readonly basket?: Basket | null;
}

/** spec: business 6 `shopping.basket_collected`: the basket complete and its float reconciled. */
export interface Basket {
  /** The event_id of `shopping.basket_collected`, the same however often it is made. */
  readonly event_id: string;
  readonly reconciliation: Reconciliation;
  readonly collected_at: number;
  /** The wallet's debit of the goods, once made (null: not yet, or nothing to charge). */
  readonly settlement: { readonly transaction_id: string | null; readonly at: number } | null;
}

export type ShoppingOrderState = ShoppingOrder | null;

export type ShoppingOrderCommand =
  | {
    kind: "claim";
    order: Omit<ShoppingOrder, "claim_id" | "phase" | "claimed_at" | "booked_at" | "stores">;
    stores: readonly Omit<StoreSummary, "store_id">[];
  }
  /** The trip is booked; with the booking's fingerprint, only the order that booked it is. */
  | { kind: "booked"; fingerprint?: string }
  | { kind: "release"; claim_id: string }
  /** The trip's claim of this order's booking asks leave to charge: refused once released. */
  | { kind: "confirm_claim"; claim_id: string; claimed_at: number }
  /**
   * The sweep found no trip claim of this booking on its way to a charge: the claim is released,
   * unless a trip claim other than the one it saw (`claimed_at`) was let through meanwhile.
   */
  | { kind: "release_stalled"; claim_id: string; claimed_at: number | null }
  /** A store's part ended (its outbox item handled): recorded once; the last completes it. */
  | { kind: "record_store"; store: FinishedStore }
  /** The goods were charged to the wallet (or there was nothing to charge). */
  | { kind: "record_settlement"; transaction_id: string | null }
  /** A booking stored before its stall timer existed gets one (old data: flows/old_data.ts). */
  | { kind: "watch_booking" }
  | { kind: "get" };

export type ShoppingOrderEvent =
  | { kind: "order_claimed"; order: ShoppingOrder }
  | { kind: "order_booked"; at: number }
  | { kind: "claim_released"; claim_id: string; at: number }
  | { kind: "trip_claim_confirmed"; claimed_at: number }
  | { kind: "order_booking_stalled"; at: number }
  | { kind: "store_recorded"; part: StorePart }
  | { kind: "basket_collected"; event_id: string; reconciliation: Reconciliation; at: number }
  | { kind: "settlement_recorded"; transaction_id: string | null; at: number };

/** The unique index of external order ids, per business. */
export const EXTERNAL_ORDER_INDEX = "shopping_external_order_id";

export function externalOrderKey(business: string, externalOrderId: string | number): string {
  return `${business}\n${String(externalOrderId)}`;
}

/** The id of a claim's `n`th store actor (array order). */
export function storeActorId(claimId: string, n: number): string {
  return `${claimId}.${n}`;
}

type Decided = Decision<ShoppingOrderState, ShoppingOrderEvent, ShoppingOrderState>;

function decide(
  state: ShoppingOrderState,
  command: ShoppingOrderCommand | TimerFired,
  ctx: Ctx,
): Decided {
  switch (command.kind) {
    case "claim": {
      // spec: shopping 4: a repeat replays; the trip's claim tells a retry from other details.
      if (state) return accept([], () => state);
      const claimId = ctx.newId("shc");
      const order: ShoppingOrder = {
        ...command.order,
        claim_id: claimId,
        phase: "booking",
        stores: command.stores.map((s, n) => ({ ...s, store_id: storeActorId(claimId, n) })),
        claimed_at: ctx.now,
        booked_at: null,
      };
      // A crash between two steps leaves state that a retry or a sweep completes: the sweep
      // looks at a booking still holding the order id after the bound (spec: shopping 2.2).
      return accept([{ kind: "order_claimed", order }], (s) => s, [
        { op: "set", name: ORDER_STALL_TIMER, at: ctx.now + ORDER_BOOKING_STALL_MS },
      ]);
    }
    case "booked":
      if (!state) return reject("not_found", "shopping order not claimed");
      if (state.phase === "booked") return accept([], () => state);
      // Another claim of the id (other details) did not book this trip: it stays as it is.
      if (command.fingerprint !== undefined && command.fingerprint !== state.fingerprint) {
        return accept([], () => state);
      }
      return accept([{ kind: "order_booked", at: ctx.now }], (s) => s, [STALL_CANCEL]);
    case "release":
      // Only the claim that was refused: a newer one, or a booked order, stays.
      if (!state || state.claim_id !== command.claim_id || state.phase === "booked") {
        return accept([], () => state);
      }
      return accept(
        [{ kind: "claim_released", claim_id: command.claim_id, at: ctx.now }],
        undefined,
        [STALL_CANCEL],
      );
    case "confirm_claim":
      return confirmClaim(state, command.claim_id, command.claimed_at);
    case "release_stalled":
      return releaseStalled(state, command.claim_id, command.claimed_at, ctx);
    case "record_store":
      return recordStore(state, command.store, ctx);
    case "record_settlement":
      if (!state?.basket) return reject("basket_not_collected", "the basket is not collected yet");
      if (state.basket.settlement) return accept([], () => state);
      return accept(
        [{ kind: "settlement_recorded", transaction_id: command.transaction_id, at: ctx.now }],
        (s) => s,
      );
    case "watch_booking":
      if (state?.phase !== "booking") return accept([], () => state);
      // Due at the bound from its claim, as the claim itself sets it (at once when long past).
      return accept([], () => state, [{
        op: "set",
        name: ORDER_STALL_TIMER,
        at: Math.max(ctx.now, state.claimed_at + ORDER_BOOKING_STALL_MS),
      }]);
    case "get":
      return accept([], () => state);
    case "timer":
      if (command.name !== ORDER_STALL_TIMER || state?.phase !== "booking") return accept([]);
      // Handed to the sweep, and looked at again later while it is still booking.
      return accept([{ kind: "order_booking_stalled", at: ctx.now }], undefined, [
        { op: "set", name: ORDER_STALL_TIMER, at: ctx.now + ORDER_BOOKING_STALL_MS },
      ]);
    default:
      return unreachable(command);
  }
}

const STALL_CANCEL: TimerOp = { op: "cancel", name: ORDER_STALL_TIMER };

/**
 * The fence (as courier 4.1's withdrawn charge): the trip's claim of this order's booking charges
 * only once the order let it through, never after the sweep released the claim; the order
 * decides one command at a time, so of the two the first wins and the other is told.
 */
function confirmClaim(state: ShoppingOrderState, claimId: string, claimedAt: number): Decided {
  if (!state || state.claim_id !== claimId) {
    return reject(
      "shopping_order_released",
      "the booking of this shopping order stopped before its charge and was released: " +
        "nothing booked, send the order again",
    );
  }
  if (state.phase === "booked" || state.trip_claimed_at === claimedAt) {
    return accept([], () => state);
  }
  return accept([{ kind: "trip_claim_confirmed", claimed_at: claimedAt }], (s) => s);
}

/**
 * The sweep releases the claim of a booking it found with no trip on its way to a charge, unless a
 * trip claim other than the one it saw (`claimedAt`) was let through since it looked.
 */
function releaseStalled(
  state: ShoppingOrderState,
  claimId: string,
  claimedAt: number | null,
  ctx: Ctx,
): Decided {
  if (
    !state || state.claim_id !== claimId || state.phase !== "booking" ||
    (state.trip_claimed_at ?? null) !== claimedAt
  ) {
    return accept([], () => state);
  }
  return accept([{ kind: "claim_released", claim_id: claimId, at: ctx.now }], () => null, [
    STALL_CANCEL,
  ]);
}

/**
 * spec: shopping 1.1: a finished store's part, once; when it is the last, the basket is collected
 * and the float reconciled in the same commit (a repeat changes nothing and answers the order).
 */
function recordStore(state: ShoppingOrderState, store: FinishedStore, ctx: Ctx): Decided {
  if (!state || state.phase !== "booked") return reject("not_found", "shopping order not found");
  const ids = state.stores.map((s) => s.store_id);
  if (!ids.includes(store.store_id)) {
    return reject("not_found", `no store of this order: ${store.store_id}`);
  }
  const parts = state.parts ?? {};
  if (parts[store.store_id]) return accept([], () => state);
  const part = storePart(store);
  if (!part) return reject("store_not_finished", `store not finished: ${store.store_id}`);
  const events: ShoppingOrderEvent[] = [{ kind: "store_recorded", part }];
  const after = { ...parts, [part.store_id]: part };
  if (basketComplete(ids, after)) {
    events.push({
      kind: "basket_collected",
      event_id: ctx.newId("evt"),
      reconciliation: reconcile(state.purchase_amount_minor, ids.map((id) => after[id]!)),
      at: ctx.now,
    });
  }
  return accept(events, (s) => s);
}

function evolve(state: ShoppingOrderState, e: ShoppingOrderEvent): ShoppingOrderState {
  switch (e.kind) {
    case "order_claimed":
      return e.order;
    case "order_booked":
      return state && { ...state, phase: "booked", booked_at: e.at };
    case "claim_released":
      return null;
    case "trip_claim_confirmed":
      return state && { ...state, trip_claimed_at: e.claimed_at };
    case "order_booking_stalled":
      return state;
    case "store_recorded":
      return state && { ...state, parts: { ...state.parts, [e.part.store_id]: e.part } };
    case "basket_collected":
      return state && {
        ...state,
        basket: {
          event_id: e.event_id,
          reconciliation: e.reconciliation,
          collected_at: e.at,
          settlement: null,
        },
      };
    case "settlement_recorded":
      return state?.basket
        ? {
          ...state,
          basket: { ...state.basket, settlement: { transaction_id: e.transaction_id, at: e.at } },
        }
        : state;
    default:
      return unreachable(e);
  }
}

function indexes(state: ShoppingOrderState): IndexEntry[] {
  if (!state) return [];
  return [{
    index: EXTERNAL_ORDER_INDEX,
    key: externalOrderKey(state.business_id, state.external_order_id),
  }];
}

/**
 * spec: business 6 `shopping.basket_collected` (to the business webhook): handed over in the
 * commit that collects the basket, so it is sent if and only if the basket was collected.
 */
function outbox(e: ShoppingOrderEvent, next: ShoppingOrderState): readonly OutboxAdd[] {
  if (e.kind === "order_booking_stalled" && next) {
    const stalled: OrderStalledItem = { business_id: next.business_id, reference: next.reference };
    return [{ outbox: ORDER_STALLED_OUTBOX, payload: stalled }];
  }
  if (e.kind !== "basket_collected" || !next) return [];
  const item: BasketWebhookItem = {
    business_id: next.business_id,
    order_reference: next.reference,
  };
  return [{ outbox: BASKET_WEBHOOK_OUTBOX, payload: item }];
}

export const shoppingOrderActor: ActorDefinition<
  ShoppingOrderState,
  ShoppingOrderCommand,
  ShoppingOrderEvent,
  ShoppingOrderState
> = {
  type: "shopping_order",
  noun: "shopping order",
  version: 1,
  initial: null,
  decide,
  evolve,
  indexes,
  outbox,
  // spec: shopping 2.2: external_order_id is unique per account, even under concurrent creates.
  uniqueIndexes: [EXTERNAL_ORDER_INDEX],
};
