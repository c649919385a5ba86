/**
 * A wallet's holds (Business API 4.2, 7): money set aside in the wallet's own turn for one purpose
 * (a batch's stops), so nothing booked meanwhile can spend it. The debits naming a hold draw from
 * it; what is left is free again when it is released, or when its timer finds it expired, so a
 * purpose abandoned half-way (a crashed batch never retried) locks nothing for good.
 */
import { accept, type Ctx, type Decision, reject, type TimerOp } from "../../src/runtime/actor.ts";
import { formatMinor } from "../../src/domain/money.ts";
import type {
  WalletCommand,
  WalletEvent,
  WalletHold,
  WalletReply,
  WalletState,
} from "./wallet_types.ts";

type D = Decision<WalletState, WalletEvent, WalletReply>;

export function replyOf(s: WalletState): WalletReply {
  return { state: s, transaction: null };
}

/** The state with these holds; none: no `holds` field, as before any hold. */
export function withHolds(
  state: WalletState,
  holds: Readonly<Record<string, WalletHold>>,
): WalletState {
  const { holds: _, ...rest } = state;
  return Object.keys(holds).length === 0 ? rest : { ...rest, holds };
}

/** The money held in `currency` by every hold. */
export function heldMinor(state: WalletState, currency: string): number {
  let held = 0;
  for (const h of Object.values(state.holds ?? {})) {
    if (h.currency === currency) held += h.amount_minor;
  }
  return held;
}

/** What a debit may spend without a hold: the balance and the credit limit, less the holds. */
export function freeMinor(state: WalletState, currency: string, limitMinor: number): number {
  return (state.balances[currency] ?? 0) + limitMinor - heldMinor(state, currency);
}

/** The part of a debit that its named hold pays: what is left of the hold, at most the debit. */
export function drawnOf(
  state: WalletState,
  command: { hold?: string; currency: string },
  amount: number,
) {
  const hold = command.hold === undefined ? undefined : state.holds?.[command.hold];
  if (!hold || hold.currency !== command.currency) return null;
  const drawn = Math.min(hold.amount_minor, amount);
  return drawn > 0 ? { hold: command.hold!, amount_minor: drawn } : null;
}

const money = (minor: number, currency: string) => `${formatMinor(minor, currency)} ${currency}`;

/**
 * spec: business 7 insufficient_balance: `free` is what the debit could spend (freeMinor: the
 * credit limit counted, as it is when deciding), named with the limit and what holds keep.
 */
export function tooLow(
  state: WalletState,
  currency: string,
  needed: number,
  o: { readonly free: number; readonly limitMinor: number },
) {
  const held = heldMinor(state, currency);
  const limit = o.limitMinor > 0 ? ` (a credit limit of ${money(o.limitMinor, currency)})` : "";
  const holds = held > 0 ? `; ${money(held, currency)} held for bookings in progress` : "";
  return reject(
    "insufficient_balance",
    `wallet balance too low: available ${money(o.free, currency)}${limit}, ` +
      `needed ${money(needed, currency)}${holds}`,
  );
}

/** spec: courier 9.4: amounts are decimals in the stated currency, in refusals too. */
export function notPositive(amount: number, currency: string) {
  const given = Number.isSafeInteger(amount) ? money(amount, currency) : `${amount}`;
  return reject("validation_failed", `amount must be positive: ${given}`);
}

/** The timer that releases a hold when it expires. */
function holdTimer(hold: string): string {
  return `hold:${hold}`;
}

/**
 * Holds money out of the free money in this one turn, so nothing booked meanwhile can spend it
 * (spec: business 4.2, 7: a batch is paid whole or refused with nothing charged).
 */
export function reserve(
  state: WalletState,
  command: Extract<WalletCommand, { kind: "reserve" }>,
  ctx: Ctx,
): D {
  const { hold, currency, amount_minor, hold_ms } = command;
  const gone = replaced(state, command.replaces, hold, ctx);
  // A retry of the same purpose finds its hold placed: it is answered as it is now.
  if (state.holds?.[hold]) return accept(gone.events, replyOf, gone.timers);
  if (!Number.isSafeInteger(amount_minor) || amount_minor <= 0) {
    return notPositive(amount_minor, currency);
  }
  if (!Number.isSafeInteger(hold_ms) || hold_ms <= 0) {
    return reject("validation_failed", `hold_ms must be positive: ${hold_ms}`);
  }
  const limitMinor = command.limit_minor ?? 0;
  const free = freeMinor(state, currency, limitMinor) + gone.freed(currency);
  if (free < amount_minor) return tooLow(state, currency, amount_minor, { free, limitMinor });
  const expires_at = ctx.now + hold_ms;
  return accept(
    [...gone.events, {
      kind: "hold_placed",
      hold,
      currency,
      amount_minor,
      expires_at,
      at: ctx.now,
    }],
    replyOf,
    [...gone.timers, { op: "set", name: holdTimer(hold), at: expires_at, payload: { hold } }],
  );
}

/** The earlier hold a reserve gives back in its turn (none: nothing to give back). */
function replaced(state: WalletState, replaces: string | undefined, hold: string, ctx: Ctx) {
  const held = replaces === undefined || replaces === hold ? undefined : state.holds?.[replaces];
  const events: WalletEvent[] = [], timers: TimerOp[] = [];
  if (replaces !== undefined && held) {
    const { amount_minor } = held;
    events.push({
      kind: "hold_released",
      hold: replaces,
      amount_minor,
      reason: "released",
      at: ctx.now,
    });
    timers.push({ op: "cancel", name: holdTimer(replaces) });
  }
  const freed = (currency: string) => (held?.currency === currency ? held.amount_minor : 0);
  return { events, timers, freed };
}

/** What is left of a hold is free again; a hold absent (released, expired) changes nothing. */
export function release(
  state: WalletState,
  hold: string,
  ctx: Ctx,
  reason: "released" | "expired" = "released",
): D {
  const held = state.holds?.[hold];
  if (!held) return accept([], replyOf);
  const event: WalletEvent = {
    kind: "hold_released",
    hold,
    amount_minor: held.amount_minor,
    reason,
    at: ctx.now,
  };
  const cancel = reason === "released" ? [{ op: "cancel" as const, name: holdTimer(hold) }] : [];
  return accept([event], replyOf, cancel);
}

/** A hold's timer: what is left of it is free again once it has expired. */
export function expire(
  state: WalletState,
  payload: unknown,
  ctx: Ctx,
): D {
  const hold = (payload as { hold?: unknown } | null)?.hold;
  if (typeof hold !== "string") return accept([], replyOf);
  const held = state.holds?.[hold];
  if (!held || held.expires_at > ctx.now) return accept([], replyOf);
  return release(state, hold, ctx, "expired");
}
