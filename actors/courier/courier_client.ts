/**
 * A courier's client (courier 2.5, 4.6; CONTRACT "Sign-in and people"): a shop, pharmacy or
 * marketplace that books through the courier. This holds who the client is, its settlement
 * settings, its API key (as a hash) and its users, and its account: balances and the bounded
 * ledger aggregates (courier 2.6; the money commands are in `client_ledger.ts`). Its messages,
 * and the decisions on its access and its settings, are in ./courier_client/.
 */
import {
  type ActorDefinition,
  type Ctx,
  type Decision,
  type IndexEntry,
  reject,
  unreachable,
} from "../../src/runtime/actor.ts";
import { AMOUNT_MINOR_MAX, decimal, formatMinor } from "../../src/domain/money.ts";
import { applyCharge, checkCharge, NO_MONEY } from "../../src/courier/rules/settlement.ts";
import {
  bookEntry,
  EMPTY_BOOK,
  entryOf,
  type LedgerBook,
  NO_EFFECT,
  receiptEffect,
} from "../../src/courier/rules/ledger.ts";
import {
  accountBalances,
  balanceOutOfRange,
  balancesOf,
  currencyRefusal,
  decideLedger,
  evolveLedger,
  withEffect,
} from "./client_ledger.ts";
import { retire } from "../../src/domain/credentials.ts";
import { loggedEvent } from "./courier_client/logged.ts";
import type { CourierClient } from "./courier_client/state.ts";
import { billingOutbox } from "./client_ledger/outbox.ts";
import { chargedEntryOutbox } from "./client_ledger/entry_outbox.ts";
import { keptClientReply } from "./courier_client/messages.ts";
import type {
  BookingChargeReply,
  BookingWithdrawnReply,
  CourierClientCommand,
  CourierClientEvent,
  CourierClientReply,
  CourierClientState,
} from "./courier_client/messages.ts";
import { type D, ok } from "./courier_client/decisions.ts";
import { addUser, decideAccess, reserveAddress } from "./courier_client/access.ts";
import { changeSettings } from "./courier_client/settings.ts";

export type { SettlementMode } from "../../src/courier/rules/settlement.ts";
export type {
  ClientSettings,
  ClientUser,
  ClientWebhook,
  CourierClient,
} from "./courier_client/state.ts";
export type {
  BookingChargeReply,
  BookingOrigin,
  BookingWithdrawnReply,
  ClientIdentity,
  CourierClientCommand,
  CourierClientEvent,
  CourierClientReply,
  CourierClientState,
  KeptBookingCharge,
  ShipmentReferences,
} from "./courier_client/messages.ts";
export {
  asClient,
  asInvoices,
  asPosting,
  asResolved,
  isWithdrawn,
  keptClientReply,
} from "./courier_client/messages.ts";

function decide(
  state: CourierClientState,
  command: CourierClientCommand | { kind: "timer" },
  ctx: Ctx,
): D {
  if (command.kind === "create") {
    if (state !== null) return reject("already_exists", `client exists: ${command.client.id}`);
    return ok([{
      kind: "client_created",
      client: { ...command.client, money: NO_MONEY, ledger: EMPTY_BOOK, created_at: ctx.now },
      by: command.by,
    }]);
  }
  if (state === null) return reject("not_found", "client not found");
  switch (command.kind) {
    case "get":
    case "timer":
      return ok([]);
    case "change_settings":
      return changeSettings(state, command);
    case "charge_booking":
      return chargeBooking(state, command, ctx);
    case "withdraw_booking": {
      // Nothing changes but the reply kept under the booking's key: a charge of the booking
      // answered by it is refused (spec: courier 4.1: the same request books nothing twice).
      const waybill = command.waybill;
      return ok([], (): BookingWithdrawnReply => ({ withdrawn: waybill }));
    }
    case "top_up":
      return topUp(state, command, ctx);
    case "rotate_api_key":
    case "set_webhook":
    case "bind_webhook_seals":
    case "authenticate_key":
    case "authenticate_user":
    case "user_for_login":
    case "change_password":
      return decideAccess(state, command);
    case "add_user":
      return addUser(state, command);
    case "reserve_address":
      return reserveAddress(state, command);
    case "post_charge":
    case "resolve_fx":
    case "payment":
    case "correct":
    case "cod_collected":
    case "cod_remitted":
    case "issue_invoice":
      return withinRange(state, decideLedger(state, command, ctx));
    default:
      return unreachable(command);
  }
}

/** spec: courier 4.1, 4.2: a booking's price, within the credit limit or the prepaid funds. */
function chargeBooking(
  state: CourierClient,
  command: Extract<CourierClientCommand, { kind: "charge_booking" }>,
  ctx: Ctx,
): D {
  const terms = state.settings;
  // spec: courier 4.2: within the credit limit, recoverable duties counted (balancesOf).
  const check = checkCharge(terms, balancesOf(state), command.amount_minor, command.currency);
  if (!check.ok) return reject(check.code, check.message);
  const posted = terms.settlement_mode !== "external";
  const entry = entryOf({
    reference: command.waybill,
    seq: state.ledger.seq + 1,
    kind: "shipment",
    amount_minor: command.amount_minor,
    currency: command.currency,
    status: posted ? "posted" : "external",
    reason: "booked price",
    source_event: `shipment.booked:${command.waybill}`,
    shipment: command.waybill,
    created_at: ctx.now,
  });
  return ok([{
    kind: "booking_charged",
    waybill: command.waybill,
    amount_minor: command.amount_minor,
    currency: command.currency,
    settlement_mode: terms.settlement_mode,
    posted,
    by: command.by,
    entry,
    ...(command.references ? { references: command.references } : {}),
  }], (next): BookingChargeReply => ({
    entry,
    allocations: [],
    balances: accountBalances(next!),
    ...(command.service_level === undefined ? {} : { service_level: command.service_level }),
    ...(command.booking ? { booking: command.booking } : {}),
  }));
}

/** spec: courier 4.2: prepaid funds, in the billing currency or one the client owes in. */
function topUp(
  state: CourierClient,
  command: Extract<CourierClientCommand, { kind: "top_up" }>,
  ctx: Ctx,
): D {
  if (!Number.isSafeInteger(command.amount_minor) || command.amount_minor <= 0) {
    return reject("invalid_amount", "a top-up must be above zero");
  }
  if (state.settings.settlement_mode !== "prepaid") {
    return reject(
      "not_prepaid",
      `top-ups are for prepaid accounts: this one settles ${state.settings.settlement_mode}`,
    );
  }
  const other = currencyRefusal(state, command.currency);
  if (other) return other;
  const entry = entryOf({
    reference: command.reference,
    seq: state.ledger.seq + 1,
    kind: "top_up",
    amount_minor: -command.amount_minor,
    currency: command.currency,
    status: "posted",
    reason: "prepaid funds",
    source_event: `top_up:${command.reference}`,
    created_at: ctx.now,
  });
  return withinRange(
    state,
    ok([{
      kind: "topped_up",
      amount_minor: command.amount_minor,
      currency: command.currency,
      reference: command.reference,
      by: command.by,
      entry,
    }], (next) => ({ entry, allocations: [], balances: accountBalances(next!) })),
  );
}

/**
 * Refuses a money decision that would take a balance past what an answer states exactly
 * (balanceOutOfRange): top-ups, payments, notes and later charges add up without end, each one
 * bounded. A booking needs no check: it spends a bounded balance or stays within a bounded limit.
 */
function withinRange(
  state: CourierClient,
  d: Decision<CourierClientState, CourierClientEvent, CourierClientReply>,
): Decision<CourierClientState, CourierClientEvent, CourierClientReply> {
  if (!d.ok || d.events.length === 0) return d;
  const next = d.events.reduce(evolve, state as CourierClientState);
  const over = next === null ? null : balanceOutOfRange(next);
  // An account already out of range (kept before the bound) may still be brought back into it.
  if (over === null || balanceOutOfRange(state) !== null) return d;
  const most = formatMinor(AMOUNT_MINOR_MAX, state.settings.billing_currency);
  return reject("amount_too_large", `${over} would pass ${most}: nothing was booked`);
}

function evolve(state: CourierClientState, event: CourierClientEvent): CourierClientState {
  if (event.kind === "client_created") return event.client;
  if (state === null) throw new Error(`${event.kind} before client_created`);
  switch (event.kind) {
    case "settings_changed":
      return { ...state, settings: { ...state.settings, ...event.changes } };
    case "api_key_rotated":
      return { ...state, api_key: event.key };
    case "webhook_set":
      return {
        ...state,
        webhook: {
          url: event.url,
          secret: event.secret,
          previous: state.webhook ? retire(state.webhook.secret, event.secret.created_at) : null,
        },
      };
    case "webhook_seals_bound":
      if (!state.webhook) return state;
      return {
        ...state,
        webhook: {
          ...state.webhook,
          secret: event.secret ?? state.webhook.secret,
          previous: event.previous ?? state.webhook.previous,
        },
      };
    case "booking_charged":
      return {
        ...state,
        money: applyCharge(event.settlement_mode, state.money, event.amount_minor),
        ledger: event.entry
          ? bookEntry(
            state.ledger,
            event.entry,
            event.posted && event.settlement_mode === "credit",
          )
          : state.ledger,
      };
    case "topped_up": {
      const s = withEffect(
        state,
        event.currency,
        receiptEffect("prepaid", NO_EFFECT, event.amount_minor),
      );
      return {
        ...s,
        ledger: event.entry ? bookEntry(s.ledger, event.entry, false) : s.ledger,
      };
    }
    case "password_changed":
      return {
        ...state,
        users: state.users.map((u) =>
          u.id === event.user_id
            ? {
              ...u,
              password_hash: event.password_hash,
              must_change_password: false,
              session_epoch: u.session_epoch + 1,
            }
            : u
        ),
      };
    case "user_added":
      return { ...state, users: [...state.users, event.user] };
    case "address_reserved":
      return { ...state, addresses_total: (state.addresses_total ?? 0) + 1 };
    case "entry_posted":
    case "fx_resolved":
    case "payment_received":
    case "cod_remitted":
    case "cod_collected":
    case "invoices_issued":
      return evolveLedger(state, event);
    default:
      return unreachable(event);
  }
}

/** Version 1 had no ledger: it starts empty (balances carry over in `money`). */
function load(stored: unknown, version: number): CourierClientState {
  if (stored === null) return null;
  if (typeof stored !== "object" || !("settings" in stored) || !("money" in stored)) {
    throw new TypeError("stored courier client is not a client");
  }
  const client = stored as Omit<CourierClient, "ledger"> & { ledger?: LedgerBook };
  if (version < 2 || client.ledger === undefined) return { ...client, ledger: EMPTY_BOOK };
  return { ...client, ledger: client.ledger };
}

function indexes(state: CourierClientState): IndexEntry[] {
  if (state === null) return [];
  return [
    { index: "credential", key: state.api_key.hash },
    { index: "client_code", key: `${state.business_id}:${state.code}` },
    ...state.users.map((u) => ({ index: "client_email", key: u.email })),
  ];
}

/** What the courier and projections see: no hashes. */
export function clientView(c: CourierClient) {
  const { credit_limit_minor: _, ...settings } = c.settings;
  return {
    id: c.id,
    name: c.name,
    code: c.code,
    email: c.email,
    ...settings,
    // spec: courier 2.5: read back as written, a decimal in the billing currency.
    credit_limit: decimal(c.settings.credit_limit_minor, c.settings.billing_currency),
    credit_limit_minor: c.settings.credit_limit_minor,
    webhook_url: c.webhook?.url ?? null,
    created_at: new Date(c.created_at).toISOString(),
  };
}

export const courierClientActor: ActorDefinition<
  CourierClientState,
  CourierClientCommand,
  CourierClientEvent,
  CourierClientReply
> = {
  type: "courier_client",
  noun: "client",
  version: 2,
  initial: null,
  decide,
  evolve,
  load,
  indexes,
  // A code names one client of a courier, an e-mail one client user anywhere (it signs in).
  uniqueIndexes: ["client_code", "client_email"],
  project: (s) => s === null ? null : clientView(s),
  // The webhook's secret (even sealed), the key's and the passwords' hashes stay in the state,
  // off the log and the bus (as the business's); events logged whole still evolve the same.
  logged: loggedEvent,
  // spec: courier 6.1: a charge's billing event is ordered in the charge's own commit; 2.6 rule
  // 5: so is the word to the charged entry a note on it is judged by.
  outbox: (event, next) => [...billingOutbox(event, next), ...chargedEntryOutbox(event, next)],
  keptReply: keptClientReply,
};
