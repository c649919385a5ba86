/**
 * Customs crossings as answered (courier 2.10, 4.5): what operations read (status, documents,
 * every move and duty) and the little a driver sees (status and papers, never customs values or
 * duties). Documentation: tests/http/answers_runs_test.ts holds answers to these.
 */
import {
  type Crossing,
  CROSSING_STATUSES,
  CUSTOMS_ACTIONS,
  type CustomsMove,
} from "../../../actors/courier/customs_crossing/mod.ts";
import { iso } from "../../../src/domain/iso.ts";
import { decimal } from "../../../src/domain/money.ts";
import { z } from "../../../src/http/route.ts";
import { Country, Currency, Money, orNull, UtcInstant } from "../../../src/http/schemas.ts";

const CrossingStatus = z.enum(CROSSING_STATUSES);

/** One customs move, with its reason, customs reference or evidence (moveView). */
const CustomsMoveAnswer = z.object({
  n: z.number().int().openapi({ description: "The move's number on the crossing: 1, 2, ..." }),
  action: z.enum(CUSTOMS_ACTIONS),
  reason: z.string().nullable(),
  customs_reference: z.string().nullable(),
  evidence: z.string().nullable(),
  amount: orNull(Money).openapi({ description: "Duties only: the amount in `currency`" }),
  currency: Currency.nullable().openapi({ description: "Duties only" }),
  payer: z.string().nullable().openapi({ description: "Duties only: who pays them" }),
  by: z.string(),
  at: UtcInstant,
}).openapi("CustomsMove");

/** spec: courier 2.10, 4.5: a crossing as operations read it (crossingView). */
const CustomsCrossingAnswer = z.object({
  id: z.string(),
  waybill: z.string(),
  country: Country.openapi({ description: "The country the shipment exits" }),
  to_country: Country.openapi({ description: "The country it enters" }),
  border_post: z.string(),
  run_id: z.string().nullable().openapi({
    description: "The run whose border stop presented it; null: opened at booking",
  }),
  stop_id: z.string().nullable(),
  status: CrossingStatus,
  customs_reference: z.string().nullable().openapi({
    description: "The clearance's, once cleared",
  }),
  documents: z.array(
    z.object({
      name: z.string(),
      reference: z.string().nullable(),
      supply: z.number().int().openapi({ description: "The supply it came with: 1, 2, ..." }),
      by: z.string(),
      at: UtcInstant,
    }).openapi("CustomsDocument"),
  ).openapi({ description: "Documents supplied, append-only" }),
  history: z.array(CustomsMoveAnswer).openapi({ description: "Every move, oldest first" }),
  duties: z.array(
    z.object({
      n: z.number().int(),
      amount: Money,
      currency: Currency,
      payer: z.string(),
      evidence: z.string(),
      by: z.string(),
      at: UtcInstant,
    }).openapi("CustomsDuty"),
  ),
  vehicle_left_at: UtcInstant.nullable().openapi({
    description: "The vehicle went on without the shipment",
  }),
  released_after_departure: z.boolean().openapi({
    description: "Released after the vehicle had left: someone must collect it",
  }),
  exit_at: UtcInstant.nullable(),
  entry_at: UtcInstant.nullable(),
  opened_at: UtcInstant,
  cleared_at: UtcInstant.nullable(),
  released_at: UtcInstant.nullable(),
  refused_at: UtcInstant.nullable(),
  updated_at: UtcInstant,
}).openapi("CustomsCrossing");

const Replayed = z.boolean().openapi({
  description: "The same request again: nothing changed; it answers what was first recorded",
});
const SupplyNumber = z.number().int().openapi({ description: "The supply recorded: 1, 2, ..." });

/** The crossing after documents were supplied. */
export const CustomsSuppliedAnswer = CustomsCrossingAnswer.extend({
  supply: SupplyNumber,
  replayed: Replayed,
}).openapi("CustomsSupplied");

/** The crossing after a customs move. */
export const CustomsMovedAnswer = CustomsCrossingAnswer.extend({
  move: CustomsMoveAnswer,
  replayed: Replayed,
  charge_reference: z.string().nullable().openapi({
    description: "The ledger entry the move booked (a clearance, client duties), also on a replay",
  }),
}).openapi("CustomsMoved");

/** spec: courier 2.10: what a driver sees after supplying papers: no customs values or duties. */
export const DriverCustomsSuppliedAnswer = z.object({
  id: z.string(),
  waybill: z.string(),
  country: Country,
  to_country: Country,
  border_post: z.string(),
  status: CrossingStatus,
  documents: z.array(
    z.object({
      name: z.string(),
      reference: z.string().nullable(),
      at: UtcInstant,
    }).openapi("DriverCustomsDocument"),
  ),
  supply: SupplyNumber,
  replayed: Replayed,
}).openapi("DriverCustomsSupplied");

/** spec: courier 4.5: a shipment's customs status: its crossings. */
export const ShipmentCustomsAnswer = z.object({
  waybill: z.string(),
  crossings: z.array(CustomsCrossingAnswer).openapi({
    description: "In the order they opened; a domestic shipment has none",
  }),
}).openapi("ShipmentCustoms");

export function moveView(m: CustomsMove) {
  return {
    n: m.n,
    action: m.action,
    reason: m.reason,
    customs_reference: m.customs_reference,
    evidence: m.evidence,
    amount: m.amount_minor === null || m.currency === null
      ? null
      : decimal(m.amount_minor, m.currency),
    currency: m.currency,
    payer: m.payer,
    by: m.by,
    at: iso(m.at),
  };
}

/** A crossing as operations read it: status, documents, every move and duty. */
export function crossingView(c: Crossing) {
  return {
    id: c.id,
    waybill: c.waybill,
    country: c.country,
    to_country: c.to_country,
    border_post: c.border_post,
    run_id: c.run_id,
    stop_id: c.stop_id,
    status: c.status,
    customs_reference: c.customs_reference,
    documents: c.documents.map((d) => ({ ...d, at: iso(d.at) })),
    history: c.history.map(moveView),
    duties: c.duties.map((d) => ({
      n: d.n,
      amount: decimal(d.amount_minor, d.currency),
      currency: d.currency,
      payer: d.payer,
      evidence: d.evidence,
      by: d.by,
      at: iso(d.at),
    })),
    vehicle_left_at: iso(c.vehicle_left_at),
    released_after_departure: c.released_after_departure,
    exit_at: iso(c.exit_at),
    entry_at: iso(c.entry_at),
    opened_at: iso(c.opened_at),
    cleared_at: iso(c.cleared_at),
    released_at: iso(c.released_at),
    refused_at: iso(c.refused_at),
    updated_at: iso(c.updated_at),
  };
}

/** What a driver sees (courier 2.10): the status and the papers, never customs values or duties. */
export function driverCrossingView(c: Crossing) {
  return {
    id: c.id,
    waybill: c.waybill,
    country: c.country,
    to_country: c.to_country,
    border_post: c.border_post,
    status: c.status,
    documents: c.documents.map((d) => ({ name: d.name, reference: d.reference, at: iso(d.at) })),
  };
}
