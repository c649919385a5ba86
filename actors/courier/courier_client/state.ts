/**
 * The state of a courier's client (courier 2.5, 4.6): who it is, its settlement settings, its key
 * and users, and its account. Its own file so that the money part (`../client_ledger.ts`) and the
 * rest of the actor (`../courier_client.ts`) both build on it without importing each other.
 */
import type { KeyRecord, PreviousSecret, WebhookSecret } from "../../../src/domain/credentials.ts";
import type { AccountMoney, SettlementMode } from "../../../src/courier/rules/settlement.ts";
import type { LedgerBook } from "../../../src/courier/rules/ledger.ts";

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
  /** When the user was added (absent on users made with the client: its created_at). */
  readonly created_at?: number;
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
  /** Bounded ledger aggregates; the entries are in the event log and Postgres (courier 2.6). */
  readonly ledger: LedgerBook;
  readonly created_at: number;
  /** Courier 6.2: the client's own webhook, signed with its own secret (never the courier's). */
  readonly webhook?: ClientWebhook | null;
  /** Saved addresses (courier 4.6), counted against CLIENT_ADDRESSES_MAX; each is its own actor. */
  readonly addresses_total?: number;
}

export interface ClientWebhook {
  readonly url: string;
  readonly secret: WebhookSecret;
  /** The secret before the last change, still verifiable during its grace period. */
  readonly previous: PreviousSecret | null;
}
