/**
 * A courier's client (courier 2.5, 4.6; CONTRACT "Sign-in and people"): a shop, pharmacy or
 * marketplace that books through the courier. This holds who the client is, its settlement
 * settings, its API key (as a hash) and its users, and its account: balances and the bounded
 * ledger aggregates (courier 2.6; the money commands are in `client_ledger.ts`).
 */
import {
  accept,
  type ActorDefinition,
  type Ctx,
  type Decision,
  type IndexEntry,
  reject,
  unreachable,
} from "../../src/runtime/actor.ts";
import { constantTimeEqual } from "../../src/domain/secrets.ts";
import { AMOUNT_MINOR_MAX, decimal, formatMinor } from "../../src/domain/money.ts";
import { applyCharge, checkCharge, NO_MONEY } from "../../src/courier/rules/settlement.ts";
import {
  bookEntry,
  EMPTY_BOOK,
  entryOf,
  type Invoice,
  isOpen,
  type LedgerBook,
  type LedgerEntry,
  NO_EFFECT,
  receiptEffect,
} from "../../src/courier/rules/ledger.ts";
import {
  type AccountBalances,
  accountBalances,
  balanceOutOfRange,
  balancesOf,
  currencyRefusal,
  decideLedger,
  evolveLedger,
  hasBalances,
  type LedgerCommand,
  type LedgerEvent,
  type LedgerReply,
  withEffect,
} from "./client_ledger.ts";
import {
  type KeyRecord,
  retire,
  secretMention,
  type WebhookSecret,
} from "../../src/domain/credentials.ts";
import { CLIENT_ADDRESSES_MAX, CLIENT_USERS_MAX } from "../../src/limits.ts";
import type { ClientSettings, ClientUser, CourierClient } from "./courier_client_state.ts";

export type { SettlementMode } from "../../src/courier/rules/settlement.ts";
import type { SettlementMode } from "../../src/courier/rules/settlement.ts";
export type {
  ClientSettings,
  ClientUser,
  ClientWebhook,
  CourierClient,
} from "./courier_client_state.ts";

/** The references a shipment carries into its billing events (courier 2.7). */
export interface ShipmentReferences {
  readonly external_customer_code: string | null;
  readonly external_billing_reference: string | null;
  readonly client_order_reference: string | null;
}

export type CourierClientState = CourierClient | null;

export type CourierClientCommand =
  | { kind: "create"; client: Omit<CourierClient, "created_at" | "money" | "ledger">; by: string }
  | {
    kind: "charge_booking";
    waybill: string;
    amount_minor: number;
    currency: string;
    /** The option booked, named in the kept reply so a retry asking another one is refused. */
    service_level?: string;
    references?: ShipmentReferences;
    /** What completing the booking needs, kept in the reply (see BookingChargeReply.booking). */
    booking?: BookingOrigin;
    by: string;
  }
  /**
   * Fences off a booking's charge for good: sent under the booking's own idempotency key
   * (`charge:${waybill}`, permanent), so it and the charge are serialised on this account and the
   * first to commit is the answer to both (booking_flow.ts withdrawStopped). Sent without the key
   * it would keep nothing.
   */
  | { kind: "withdraw_booking"; waybill: string }
  | { kind: "top_up"; amount_minor: number; currency: string; reference: string; by: string }
  | {
    kind: "change_settings";
    changes: Partial<ClientSettings>;
    /** The settings the caller checked the change against; refused if they moved since. */
    basis?: Pick<ClientSettings, "billing_currency" | "rate_card_id">;
    by: string;
  }
  | { kind: "rotate_api_key"; key: KeyRecord; by: string }
  | { kind: "set_webhook"; url: string; secret: WebhookSecret; by: string }
  | { kind: "authenticate_key"; hash: string }
  | { kind: "authenticate_user"; user_id: string; session_epoch: number }
  | { kind: "user_for_login"; email: string }
  | { kind: "change_password"; user_id: string; password_hash: string; by: string }
  | { kind: "add_user"; user: ClientUser; by: string }
  | { kind: "reserve_address"; address_id: string; by: string }
  | { kind: "get" }
  | LedgerCommand;

export type CourierClientEvent =
  | { kind: "client_created"; client: CourierClient; by: string }
  | { kind: "settings_changed"; changes: Partial<ClientSettings>; by: string }
  | { kind: "api_key_rotated"; key: KeyRecord; by: string }
  | { kind: "webhook_set"; url: string; secret: WebhookSecret; by: string }
  | { kind: "password_changed"; user_id: string; password_hash: string; by: string }
  /** A client administrator invited a user (courier 4.6); the password is a temporary one. */
  | { kind: "user_added"; user: ClientUser; by: string }
  | { kind: "address_reserved"; address_id: string; by: string }
  | {
    kind: "booking_charged";
    waybill: string;
    amount_minor: number;
    currency: string;
    settlement_mode: SettlementMode;
    /** False for external settlement: calculated and recorded, no receivable (courier 4.2). */
    posted: boolean;
    by: string;
    /** The ledger entry of the booked price (absent on events written before the ledger). */
    entry?: LedgerEntry;
    /** For the `shipment.booked` billing event (absent on events written before it). */
    references?: ShipmentReferences;
  }
  | {
    kind: "topped_up";
    amount_minor: number;
    currency: string;
    reference: string;
    by: string;
    entry?: LedgerEntry;
  }
  | LedgerEvent;

/** What authentication learns: the client, and the user when a person signed in. */
export interface ClientIdentity {
  readonly client_id: string;
  readonly business_id: string;
  readonly user: Omit<ClientUser, "password_hash"> | null;
}

/** The request a booking charge was made for: enough to make its shipment without the caller. */
export interface BookingOrigin {
  readonly prices_reference: string;
  readonly dangerous_goods_confirmed: boolean;
  readonly by: string;
}

/** A booking's charge: kept for good under the booking's idempotency key, so it stays small. */
export interface BookingChargeReply {
  readonly entry: LedgerEntry;
  readonly allocations: readonly [];
  readonly balances: AccountBalances;
  /** Absent on charges kept before it was recorded. */
  readonly service_level?: string;
  /**
   * Absent on charges kept before it was recorded. A booking stopped between its charge and its
   * shipment is completed from it when the client never sends the request again.
   */
  readonly booking?: BookingOrigin;
}

/**
 * A booking's charge withdrawn before it was taken: kept under the booking's idempotency key, it
 * answers a charge of that booking sent later, which then charges nothing (isWithdrawn).
 */
export interface BookingWithdrawnReply {
  readonly withdrawn: string;
}

/** Whether a reply kept under a booking's charge key is its withdrawal, not its charge. */
export function isWithdrawn(reply: unknown): reply is BookingWithdrawnReply {
  return typeof reply === "object" && reply !== null && "withdrawn" in reply;
}

export type CourierClientReply =
  | CourierClient
  | BookingChargeReply
  | BookingWithdrawnReply
  | ClientIdentity
  | { readonly user_id: string; readonly password_hash: string; readonly session_epoch: number }
  | LedgerReply
  | undefined;

const UNAUTHENTICATED = reject("unauthenticated", "unknown client credential");

function withoutHash(u: ClientUser): Omit<ClientUser, "password_hash"> {
  const { password_hash: _, ...rest } = u;
  return rest;
}

type D = Decision<CourierClientState, CourierClientEvent, CourierClientReply>;

/** The client as it stands after the events: the reply of most commands. */
const whole = (s: CourierClientState) => s ?? undefined;

function ok(
  events: CourierClientEvent[],
  reply?: (s: CourierClientState) => CourierClientReply,
): D {
  return accept(events, reply ?? whole);
}

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

/** Who the client is and who acts for it: its key, webhook, users and saved addresses. */
function decideAccess(
  state: CourierClient,
  command: Extract<
    CourierClientCommand,
    {
      kind:
        | "rotate_api_key"
        | "set_webhook"
        | "authenticate_key"
        | "authenticate_user"
        | "user_for_login"
        | "change_password";
    }
  >,
): D {
  switch (command.kind) {
    case "rotate_api_key":
      return ok([{ kind: "api_key_rotated", key: command.key, by: command.by }]);
    case "set_webhook":
      return ok([{
        kind: "webhook_set",
        url: command.url,
        secret: command.secret,
        by: command.by,
      }]);
    case "authenticate_key":
      if (!constantTimeEqual(state.api_key.hash, command.hash)) return UNAUTHENTICATED;
      return ok([], () => ({ client_id: state.id, business_id: state.business_id, user: null }));
    case "authenticate_user": {
      const user = state.users.find((u) => u.id === command.user_id);
      if (!user || user.session_epoch !== command.session_epoch) return UNAUTHENTICATED;
      return ok([], () => ({
        client_id: state.id,
        business_id: state.business_id,
        user: withoutHash(user),
      }));
    }
    case "user_for_login": {
      const user = state.users.find((u) => u.email === command.email);
      if (!user) return UNAUTHENTICATED;
      return ok([], () => ({
        user_id: user.id,
        password_hash: user.password_hash,
        session_epoch: user.session_epoch,
      }));
    }
    case "change_password":
      if (!state.users.some((u) => u.id === command.user_id)) {
        return reject("not_found", `user not found: ${command.user_id}`);
      }
      return ok([{
        kind: "password_changed",
        user_id: command.user_id,
        password_hash: command.password_hash,
        by: command.by,
      }]);
    default:
      return unreachable(command);
  }
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

function changeSettings(
  state: CourierClient,
  c: Extract<CourierClientCommand, { kind: "change_settings" }>,
): Decision<CourierClientState, CourierClientEvent, CourierClientReply> {
  const was = state.settings;
  if (
    c.basis &&
    (c.basis.billing_currency !== was.billing_currency || c.basis.rate_card_id !== was.rate_card_id)
  ) {
    return reject(
      "settings_changed",
      `the client's billing currency or rate card changed meanwhile: ${was.billing_currency}, ${was.rate_card_id}`,
    );
  }
  const currency = c.changes.billing_currency;
  const moves = currency !== undefined && currency !== was.billing_currency;
  // spec: courier 2.6 rule 4: a rate awaited is one unit of the charge's currency in the billing
  // currency it was charged under; resolved under another (even the charge's own) it books a
  // conversion that never happened.
  if (moves && (hasBalances(state) || state.ledger.unresolved.length > 0)) {
    return reject(
      "balance_not_settled",
      `the billing currency changes only with the balances settled and conversions resolved: ${was.billing_currency}`,
    );
  }
  // spec: courier 4.2: each mode settles its own balances (a credit receivable is paid, prepaid
  // funds are spent): under another mode they could never be settled. A conversion awaiting its
  // rate would post under the new mode what was charged under the old.
  // An open invoice too: a credit note not yet invoiced can offset it to a zero balance, and
  // neither external (no invoice, no payment) nor prepaid (no payment) could then settle it.
  const mode = c.changes.settlement_mode;
  if (
    mode !== undefined && mode !== was.settlement_mode &&
    (hasBalances(state) || state.ledger.unresolved.length > 0 ||
      state.ledger.invoices.some(isOpen))
  ) {
    return reject(
      "balance_not_settled",
      `settlement_mode changes only with the balances settled, invoices paid and conversions resolved: ${was.settlement_mode}`,
    );
  }
  // spec: courier 4.2: external posts no invoice, so entries not yet invoiced would stay so for
  // good (an owed of 0 says nothing of them: a payment may have met them): invoice them first.
  const uninvoiced = mode === "external" && was.settlement_mode !== "external"
    ? Object.keys(state.ledger.periods).filter((k) => state.ledger.periods[k]!.count > 0).sort()
    : [];
  if (uninvoiced.length > 0) {
    const periods = [...new Set(uninvoiced.map((k) => k.slice(0, k.indexOf("|"))))];
    return reject(
      "balance_not_settled",
      `settlement_mode becomes external only once every entry is invoiced: invoice ${
        periods.join(", ")
      } first`,
    );
  }
  // spec: courier 2.5: the credit limit is an amount in the billing currency; its minor units
  // would mean another amount in another, so a move of currency names the limit again.
  if (moves && c.changes.credit_limit_minor === undefined && was.credit_limit_minor !== 0) {
    const message =
      `give the credit limit in ${currency} with the change from ${was.billing_currency}`;
    return reject("validation_failed", `invalid request: credit_limit: ${message}`, {
      errors: [{ path: "credit_limit", message }],
    });
  }
  return accept(
    [{ kind: "settings_changed", changes: c.changes, by: c.by }],
    (s) => s ?? undefined,
  );
}

/** spec: courier 4.6: a saved address, counted against the address book's bound. */
function reserveAddress(
  state: CourierClient,
  c: Extract<CourierClientCommand, { kind: "reserve_address" }>,
): D {
  if ((state.addresses_total ?? 0) >= CLIENT_ADDRESSES_MAX) {
    return reject(
      "address_book_full",
      `the address book is full: ${CLIENT_ADDRESSES_MAX} addresses; update a saved one instead`,
    );
  }
  // No reply: it is kept for good under the address's idempotency key, so it stays small.
  return ok(
    [{ kind: "address_reserved", address_id: c.address_id, by: c.by }],
    () => undefined,
  );
}

/** spec: courier 4.6: a client administrator invites a user; an e-mail names one user. */
function addUser(
  state: CourierClient,
  c: Extract<CourierClientCommand, { kind: "add_user" }>,
): Decision<CourierClientState, CourierClientEvent, CourierClientReply> {
  if (state.users.some((u) => u.email === c.user.email)) {
    return reject("email_taken", `a user of this client already has this e-mail: ${c.user.email}`);
  }
  if (state.users.length >= CLIENT_USERS_MAX) {
    return reject("client_users_limit", `a client has at most ${CLIENT_USERS_MAX} users`);
  }
  return accept([{ kind: "user_added", user: c.user, by: c.by }], (s) => s ?? undefined);
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
  // The webhook's secret, even sealed, stays in the state, off the log and the bus (as the
  // business's); events logged with it by earlier versions still evolve to the same state.
  logged: (e) => e.kind === "webhook_set" ? { ...e, secret: secretMention(e.secret) } : e,
};

/** The client a `get`-like reply carries; a reply of another shape is a programming error. */
export function asClient(reply: CourierClientReply): CourierClient {
  if (!reply || !("settings" in reply)) throw new Error("expected the client in the reply");
  return reply;
}

/** The reply of a command that posted an entry (top-up, charge, payment, note, COD). */
export function asPosting(reply: CourierClientReply) {
  if (!reply || !("entry" in reply)) throw new Error("expected a ledger posting in the reply");
  return reply;
}

/** The reply of `issue_invoice`. */
export function asInvoices(reply: CourierClientReply): {
  readonly invoices: readonly Invoice[];
  readonly balances: ReturnType<typeof accountBalances>;
} {
  if (!reply || !("invoices" in reply)) throw new Error("expected invoices in the reply");
  return reply;
}

/** The reply of `resolve_fx`. */
export function asResolved(reply: CourierClientReply) {
  if (!reply || !("resolved" in reply)) throw new Error("expected a resolution in the reply");
  return reply;
}
