/**
 * The adjustments of a shipment (courier 2.7): the later charges and notes booked on it in its
 * client's ledger, as its completion event lists them.
 */
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { ADJUSTMENT_KINDS } from "../rules/billing_events.ts";

/** One adjustment as a completion lists it (minor units of its currency). */
export interface Adjustment {
  readonly reference: string;
  readonly kind: string;
  readonly amount_minor: number;
  readonly currency: string;
  readonly reason: string | null;
  readonly recoverable: boolean;
  readonly corrects: string | null;
  readonly status: string;
}

/** The shipment's first `limit` adjustments on the query side, in the order they were booked. */
export async function shipmentAdjustments(
  db: Kysely<Database>,
  tenant: string,
  clientId: string,
  waybill: string,
  limit: number,
): Promise<Adjustment[]> {
  const rows = await db.selectFrom("ledger_entries")
    .selectAll()
    .where("tenant", "=", tenant)
    .where("client_id", "=", clientId)
    .where("shipment", "=", waybill)
    // spec: courier 2.7: later charges and notes; a remitted COD is no adjustment.
    .where("kind", "in", ADJUSTMENT_KINDS)
    .orderBy("seq")
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    reference: r.reference,
    kind: r.kind,
    amount_minor: Number(r.amount_minor),
    currency: r.currency,
    reason: r.reason,
    recoverable: r.recoverable,
    corrects: r.corrects,
    status: r.status,
  }));
}
