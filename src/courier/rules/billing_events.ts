/**
 * Bodies of the events the service sends about money and shipments (courier 2.7, 2.12, 6.1,
 * 6.2). Pure: the caller supplies every fact, these functions only shape and serialize them, so
 * the same facts always give the same bytes (an event created twice is the same event).
 */
import { CHARGE_KINDS, type LedgerEntry } from "./ledger.ts";
import { formatMinor } from "../../domain/money.ts";
import { derivedId, sha256Hex } from "../../domain/secrets.ts";
import { waybillNumberText } from "./waybill.ts";
import { API_VERSION } from "../../domain/signatures.ts";

/** The client as a billing event names it (courier 2.7). */
export interface BilledClient {
  readonly id: string;
  readonly code: string;
  readonly name: string;
}

/** The shipment references a charge event carries (courier 2.7). */
export interface ChargeShipment {
  readonly waybill: string;
  readonly external_customer_code: string | null;
  readonly external_billing_reference: string | null;
  readonly client_order_reference: string | null;
}

/**
 * A stable event id from what the event is about: every instance, and every replay of the fact
 * that causes it, names the same event, so it is created and sent once (courier 6.1 "each is
 * sent once"). `evt_` and 26 hex digits (104 bits) of SHA-256; an event about a sequenced
 * waybill (src/courier/rules/waybill.ts) is named after its number first, then 13 hex digits, so the
 * store keeps a day's events side by side (no event was named so before such waybills existed).
 */
export function eventIdOf(...parts: readonly string[]): string {
  const fact = parts.join("\n");
  const number = parts.map(waybillNumberText).find((n) => n !== null);
  if (number) return `evt_${number}${sha256Hex(fact).slice(0, 13)}`;
  return derivedId("evt", fact, 26);
}

/**
 * The event type of a charge (courier 6.1: one event per charge), or null for an entry that is
 * no charge (top-ups and payments are money received, not charged). A later charge whose
 * `source_event` already names its event (`customs.cleared:X`) keeps that name.
 */
export function chargeEventType(entry: LedgerEntry): string | null {
  const source = entry.source_event ?? "";
  const named = (prefix: string, fallback: string) =>
    source.startsWith(`${prefix}:`) ? source : `${prefix}:${fallback}`;
  switch (entry.kind) {
    case "shipment":
      return "shipment.booked";
    case "customs_admin":
      return named("customs.cleared", entry.reference);
    case "duties":
      return named("customs.duties", entry.reference);
    case "waiting":
      return named("run.waiting", entry.reference);
    case "failed_collection":
      return named("run.collection_failed", entry.reference);
    case "cold_chain":
      return "sample.cold_chain";
    case "errand":
      // A collect stop's errand, one per stop (courier 6.1 `run.collected:{stop}`, 2.6 rule 3).
      // Entries booked before errands were per stop keep the type they were sent with.
      return named("run.collected", entry.reference);
    // Courier 6.1 names no type for these two; a new event type is an additive change (9 rule 2).
    case "redelivery":
      return named("shipment.redelivery", entry.reference);
    case "return":
      return named("shipment.return", entry.reference);
    case "debit_note":
      return "debit_note.issued";
    case "credit_note":
      return "credit_note.issued";
    // A claim's compensation above the booked price (courier 2.4): additive, like the two above.
    case "compensation":
      return "compensation.issued";
    case "cod_remitted":
      return "cod.remitted";
    case "top_up":
    case "payment":
      return null;
  }
}

/** Courier 6.1: a conversion that got its rate is reported again as `charge.resolved`. */
export const CHARGE_RESOLVED = "charge.resolved";

/** The entry fields of courier 2.6 as a billing event carries them (decimal amounts). */
export function entryBody(entry: LedgerEntry) {
  return {
    reference: entry.reference,
    kind: entry.kind,
    amount: formatMinor(entry.amount_minor, entry.currency),
    currency: entry.currency,
    status: entry.status,
    payer: entry.payer,
    recoverable: entry.recoverable,
    reason: entry.reason,
    evidence_path: entry.evidence_path,
    source_event: entry.source_event,
    original_amount: entry.original_amount_minor === null || entry.original_currency === null
      ? null
      : formatMinor(entry.original_amount_minor, entry.original_currency),
    original_currency: entry.original_currency,
    fx_rate: entry.fx_rate,
    // spec: courier 2.6 rule 4: a conversion records its rate and source.
    fx_source: entry.fx_source,
    corrects: entry.corrects,
    shipment: entry.shipment,
    created_at: new Date(entry.created_at).toISOString(),
    // Set when the charge was booked later than it arose (a conversion resolved); else null.
    charged_at: entry.charged_at == null ? null : new Date(entry.charged_at).toISOString(),
  };
}

/** What every billing event starts with (courier 2.7 "Common fields"). */
interface CommonInput {
  readonly eventId: string;
  readonly eventType: string;
  readonly occurredAt: number;
  readonly client: BilledClient;
}

function commonFields(input: CommonInput) {
  return {
    api_version: API_VERSION,
    event_type: input.eventType,
    type: input.eventType,
    event_id: input.eventId,
    occurred_at: new Date(input.occurredAt).toISOString(),
    client: input.client,
  };
}

/** A charge event (courier 2.7): common fields, `entry` and `shipment`. */
export function chargeEventBody(
  input: CommonInput & {
    readonly entry: LedgerEntry;
    readonly shipment: ChargeShipment | null;
  },
): string {
  return JSON.stringify({
    ...commonFields(input),
    entry: entryBody(input.entry),
    shipment: input.shipment,
  });
}

/** A client webhook envelope (courier 2.12): customer-safe fields only. */
export interface ClientWebhookData {
  readonly waybill: string;
  readonly client_order_reference: string | null;
  readonly stage: string;
  readonly status: string;
  readonly condition: string;
  readonly at: number;
  /** `shipment.estimate_changed` only: the new estimate. */
  readonly estimated_delivery_on?: string;
}

export function clientWebhookBody(input: {
  readonly eventId: string;
  readonly event: string;
  readonly clientCode: string;
  readonly timestamp: number;
  readonly data: ClientWebhookData;
}): string {
  const d = input.data;
  return JSON.stringify({
    // spec: courier 9.1, every event body carries its version; added before signing, so the
    // signatures over the raw body cover it.
    api_version: API_VERSION,
    id: input.eventId,
    event_id: input.eventId,
    event: input.event,
    client: input.clientCode,
    timestamp: new Date(input.timestamp).toISOString(),
    data: {
      waybill: d.waybill,
      client_order_reference: d.client_order_reference,
      stage: d.stage,
      status: d.status,
      condition: d.condition,
      at: new Date(d.at).toISOString(),
      ...(d.estimated_delivery_on ? { estimated_delivery_on: d.estimated_delivery_on } : {}),
    },
  });
}

/** Courier 6.1: one event per completed shipment. */
export const COMPLETION_EVENTS = {
  delivered: "shipment.delivered",
  returned: "shipment.returned",
  cancelled: "shipment.cancelled",
} as const;

/**
 * The entries a completion event lists as the shipment's adjustments (courier 2.7): its later
 * charges (2.6 rule 3), the debit and credit notes on it (rule 5) and a claim's compensation
 * above its price (2.4). Money received (a remitted COD names its waybill) changes no bill: it
 * has its own event (`cod.remitted`).
 */
export const ADJUSTMENT_KINDS = [
  ...CHARGE_KINDS,
  "debit_note",
  "credit_note",
  "compensation",
] as const;

/** A later charge on the shipment, as the completion event lists it (courier 2.7). */
export interface Adjustment {
  readonly reference: string;
  readonly kind: string;
  readonly amount: string;
  readonly currency: string;
  readonly reason: string | null;
  readonly recoverable: boolean;
  /** The entry it corrects, for debit and credit notes; else null. */
  readonly correction: string | null;
  /**
   * The entry's status (courier 2.6): `unresolved_fx` is a charge still awaiting its rate, in the
   * currency it arose in and not owed yet; its `charge.resolved` event tells what it becomes.
   */
  readonly status: string;
}

/** The completion event body (courier 2.7 `shipment.delivered`, and returned and cancelled). */
export function completionEventBody(
  input: CommonInput & {
    readonly shipment: {
      readonly waybill: string;
      readonly external_customer_code: string | null;
      readonly external_billing_reference: string | null;
      readonly booked_at: number;
      readonly service: string;
      readonly total_minor: number;
      readonly tax_minor: number;
      readonly currency: string;
      /** The frozen price lines (courier 2.2); the tax line also has `included` and its tax. */
      readonly lines: readonly {
        readonly code: string;
        readonly label: string;
        readonly amount_minor: number;
        readonly included?: boolean;
        readonly tax_minor?: number;
      }[];
      readonly status: string;
      readonly delivered_at: number | null;
      readonly pod: boolean;
    };
    readonly adjustments: readonly Adjustment[];
  },
): string {
  const s = input.shipment;
  const money = (minor: number) => formatMinor(minor, s.currency);
  return JSON.stringify({
    ...commonFields(input),
    shipment: {
      waybill: s.waybill,
      external_customer_code: s.external_customer_code,
      external_billing_reference: s.external_billing_reference,
      booked_on: new Date(s.booked_at).toISOString().slice(0, 10),
      service: s.service,
      base_charge: money(s.total_minor - s.tax_minor),
      currency: s.currency,
      tax: money(s.tax_minor),
      // spec: courier 2.2: the tax line also has `included` and `tax`, as the offer and the
      // shipment's snapshot show it; amounts in this body's own format (decimal strings).
      price_lines: s.lines.map((l) => ({
        code: l.code,
        label: l.label,
        amount: money(l.amount_minor),
        ...(l.included === undefined ? {} : { included: l.included }),
        ...(l.tax_minor === undefined ? {} : { tax: money(l.tax_minor) }),
      })),
      adjustments: input.adjustments,
      status: s.status,
      delivered_at: s.delivered_at === null ? null : new Date(s.delivered_at).toISOString(),
      pod: s.pod,
    },
  });
}
