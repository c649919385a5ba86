/**
 * What a courier's client account takes, tells and answers (courier 2.5, 2.6, 4.1, 4.2, 4.6):
 * its commands, the events that state what was decided, its replies and their readers.
 */
import type { Invoice, LedgerEntry } from "../../../src/courier/rules/ledger.ts";
import {
  type AccountBalances,
  accountBalances,
  type LedgerCommand,
  type LedgerEvent,
  type LedgerReply,
} from "../client_ledger.ts";
import type { KeyRecord, PreviousSecret, WebhookSecret } from "../../../src/domain/credentials.ts";
import type { ClientSettings, ClientUser, CourierClient } from "./state.ts";
import type { SettlementMode } from "../../../src/courier/rules/settlement.ts";

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
  /** `replaces`: the hash of the key rotated; another key held by then refuses it. */
  | { kind: "rotate_api_key"; key: KeyRecord; replaces: string; by: string }
  | { kind: "set_webhook"; url: string; secret: WebhookSecret; by: string }
  /** Old data: the webhook's secrets sealed before seals were bound, bound to this client. */
  | { kind: "bind_webhook_seals"; secret: WebhookSecret | null; previous: WebhookSecret | null }
  | { kind: "authenticate_key"; hash: string }
  | { kind: "authenticate_user"; user_id: string; session_epoch: number }
  | { kind: "user_for_login"; email: string }
  | {
    kind: "change_password";
    user_id: string;
    password_hash: string;
    /** The session epoch the current password was checked under: the change holds only then. */
    session_epoch: number;
    by: string;
  }
  | { kind: "add_user"; user: ClientUser; by: string }
  | { kind: "reserve_address"; address_id: string; by: string }
  | { kind: "get" }
  | LedgerCommand;

export type CourierClientEvent =
  | { kind: "client_created"; client: CourierClient; by: string }
  | { kind: "settings_changed"; changes: Partial<ClientSettings>; by: string }
  | { kind: "api_key_rotated"; key: KeyRecord; by: string }
  | { kind: "webhook_set"; url: string; secret: WebhookSecret; by: string }
  | { kind: "webhook_seals_bound"; secret: WebhookSecret | null; previous: PreviousSecret | null }
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
  /** The client's API key's hash as this check found it: what a rotation it sends replaces. */
  readonly api_key_hash: string;
}

/** The request a booking charge was made for: enough to make its shipment without the caller. */
export interface BookingOrigin {
  readonly prices_reference: string;
  readonly dangerous_goods_confirmed: boolean;
  readonly by: string;
}

/** A booking's charge, as answered when it is made (kept as KeptBookingCharge). */
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
 * A booking's charge as kept for good under the booking's idempotency key, and answered to a
 * replay: what completing the booking reads of it (when it was charged, under which settlement
 * mode, for which option and request), not its entry and balances, which a replay never reads
 * and which made it some 850 bytes a booking. A whole BookingChargeReply, kept before, is one.
 */
export interface KeptBookingCharge {
  readonly entry: Pick<LedgerEntry, "created_at">;
  readonly balances: Pick<AccountBalances, "settlement_mode">;
  readonly service_level?: string;
  readonly booking?: BookingOrigin;
}

/**
 * The kept form of a reply: a booking's charge trimmed (KeptBookingCharge), others whole. The
 * charge's replay is read only by the booking flows, as a KeptBookingCharge (a whole charge is
 * one too), so it is not named among the replies every other caller narrows.
 */
export function keptClientReply(reply: CourierClientReply): CourierClientReply {
  if (!isBookingCharge(reply)) return reply;
  const { entry, balances, service_level, booking } = reply;
  const kept: KeptBookingCharge = {
    entry: { created_at: entry.created_at },
    balances: { settlement_mode: balances.settlement_mode },
    ...(service_level === undefined ? {} : { service_level }),
    ...(booking === undefined ? {} : { booking }),
  };
  return kept as BookingChargeReply;
}

/** A booking's charge whole: its entry is the booked price (charge_booking's alone). */
function isBookingCharge(reply: CourierClientReply): reply is BookingChargeReply {
  if (typeof reply !== "object" || reply === null || !("entry" in reply)) return false;
  const entry: Partial<LedgerEntry> = reply.entry;
  return "balances" in reply && entry.kind === "shipment" &&
    entry.source_event === `shipment.booked:${entry.reference}`;
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
