/**
 * A courier's client (courier 2.5, 4.6; CONTRACT "Sign-in and people"): a shop, pharmacy or
 * marketplace that books through the courier. This holds who the client is, its settlement
 * settings, its API key (as a hash) and its users; money and bookings build on it.
 */
import {
  accept,
  type ActorDefinition,
  type IndexEntry,
  reject,
  unreachable,
} from "../src/runtime/actor.ts";
import { constantTimeEqual } from "../src/domain/secrets.ts";
import { type AccountMoney, applyCharge, checkCharge, NO_MONEY } from "../src/domain/settlement.ts";
import type { KeyRecord } from "./business.ts";

export type { SettlementMode } from "../src/domain/settlement.ts";
import type { SettlementMode } from "../src/domain/settlement.ts";

export interface ClientUser {
  readonly id: string;
  readonly email: string;
  readonly name: string;
  /** Client administrators may invite users (courier 4.6). */
  readonly role: "client_admin" | "client_user";
  readonly password_hash: string;
  /** A password that was sent to the client must be changed before anything else (courier 5). */
  readonly must_change_password: boolean;
  readonly session_epoch: number;
}

export interface ClientSettings {
  readonly settlement_mode: SettlementMode;
  /** Minor units of the billing currency. */
  readonly credit_limit_minor: number;
  readonly payment_days: number | null;
  readonly billing_currency: string;
  readonly external_system: string | null;
  readonly unique_external_reference: boolean;
  readonly rate_card_id: string | null;
}

export interface CourierClient {
  readonly id: string;
  readonly business_id: string;
  readonly name: string;
  readonly code: string;
  readonly email: string;
  readonly settings: ClientSettings;
  readonly api_key: KeyRecord;
  readonly users: readonly ClientUser[];
  /** The account: changed only by this actor's serialized commands (courier 4.1). */
  readonly money: AccountMoney;
  readonly created_at: number;
}

export type CourierClientState = CourierClient | null;

export type CourierClientCommand =
  | { kind: "create"; client: Omit<CourierClient, "created_at" | "money">; by: string }
  | {
    kind: "charge_booking";
    waybill: string;
    amount_minor: number;
    currency: string;
    by: string;
  }
  | { kind: "top_up"; amount_minor: number; currency: string; reference: string; by: string }
  | { kind: "change_settings"; changes: Partial<ClientSettings>; by: string }
  | { kind: "rotate_api_key"; key: KeyRecord; by: string }
  | { kind: "authenticate_key"; hash: string }
  | { kind: "authenticate_user"; user_id: string; session_epoch: number }
  | { kind: "user_for_login"; email: string }
  | { kind: "change_password"; user_id: string; password_hash: string; by: string }
  | { kind: "get" };

export type CourierClientEvent =
  | { kind: "client_created"; client: CourierClient; by: string }
  | { kind: "settings_changed"; changes: Partial<ClientSettings>; by: string }
  | { kind: "api_key_rotated"; key: KeyRecord; by: string }
  | { kind: "password_changed"; user_id: string; password_hash: string; by: string }
  | {
    kind: "booking_charged";
    waybill: string;
    amount_minor: number;
    currency: string;
    settlement_mode: SettlementMode;
    /** False for external settlement: calculated and recorded, no receivable (courier 4.2). */
    posted: boolean;
    by: string;
  }
  | { kind: "topped_up"; amount_minor: number; currency: string; reference: string; by: string };

/** What authentication learns: the client, and the user when a person signed in. */
export interface ClientIdentity {
  readonly client_id: string;
  readonly business_id: string;
  readonly user: Omit<ClientUser, "password_hash"> | null;
}

export type CourierClientReply =
  | CourierClient
  | ClientIdentity
  | { readonly user_id: string; readonly password_hash: string; readonly session_epoch: number }
  | undefined;

const UNAUTHENTICATED = reject("unauthenticated", "unknown client credential");

function withoutHash(u: ClientUser): Omit<ClientUser, "password_hash"> {
  const { password_hash: _, ...rest } = u;
  return rest;
}

type D = ReturnType<typeof accept<CourierClientState, CourierClientEvent, CourierClientReply>>;

function decide(
  state: CourierClientState,
  command: CourierClientCommand | { kind: "timer" },
  ctx: { now: number },
) {
  const whole = (s: CourierClientState) => s ?? undefined;
  const ok = (
    events: CourierClientEvent[],
    reply?: (s: CourierClientState) => CourierClientReply,
  ): D => accept(events, reply ?? whole);
  if (command.kind === "create") {
    if (state !== null) return reject("already_exists", `client exists: ${command.client.id}`);
    return ok([{
      kind: "client_created",
      client: { ...command.client, money: NO_MONEY, created_at: ctx.now },
      by: command.by,
    }]);
  }
  if (state === null) return reject("not_found", "client not found");
  switch (command.kind) {
    case "get":
    case "timer":
      return ok([]);
    case "change_settings":
      return ok([{ kind: "settings_changed", changes: command.changes, by: command.by }]);
    case "charge_booking": {
      const terms = state.settings;
      const check = checkCharge(terms, state.money, command.amount_minor, command.currency);
      if (!check.ok) return reject(check.code, check.message);
      return ok([{
        kind: "booking_charged",
        waybill: command.waybill,
        amount_minor: command.amount_minor,
        currency: command.currency,
        settlement_mode: terms.settlement_mode,
        posted: terms.settlement_mode !== "external",
        by: command.by,
      }]);
    }
    case "top_up":
      if (state.settings.settlement_mode !== "prepaid") {
        return reject(
          "not_prepaid",
          `top-ups are for prepaid accounts: this one settles ${state.settings.settlement_mode}`,
        );
      }
      if (command.currency !== state.settings.billing_currency) {
        return reject(
          "currency_mismatch",
          `the account bills in ${state.settings.billing_currency}: ${command.currency}`,
        );
      }
      return ok([{
        kind: "topped_up",
        amount_minor: command.amount_minor,
        currency: command.currency,
        reference: command.reference,
        by: command.by,
      }]);
    case "rotate_api_key":
      return ok([{ kind: "api_key_rotated", key: command.key, by: command.by }]);
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

function evolve(state: CourierClientState, event: CourierClientEvent): CourierClientState {
  if (event.kind === "client_created") return event.client;
  if (state === null) throw new Error(`${event.kind} before client_created`);
  switch (event.kind) {
    case "settings_changed":
      return { ...state, settings: { ...state.settings, ...event.changes } };
    case "api_key_rotated":
      return { ...state, api_key: event.key };
    case "booking_charged":
      return {
        ...state,
        money: applyCharge(event.settlement_mode, state.money, event.amount_minor),
      };
    case "topped_up":
      return {
        ...state,
        money: { ...state.money, prepaid_minor: state.money.prepaid_minor + event.amount_minor },
      };
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
    default:
      return unreachable(event);
  }
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
    credit_limit_minor: c.settings.credit_limit_minor,
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
  version: 1,
  initial: null,
  decide,
  evolve,
  indexes,
  project: (s) => s === null ? null : clientView(s),
};

/** The client a `get`-like reply carries; a reply of another shape is a programming error. */
export function asClient(reply: CourierClientReply): CourierClient {
  if (!reply || !("settings" in reply)) throw new Error("expected the client in the reply");
  return reply;
}
