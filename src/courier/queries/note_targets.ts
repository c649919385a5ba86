/**
 * The adjustments of a shipment (courier 2.7) a note on one of its entries joins, other than the
 * notes on that entry: those the entry's charged entry holds exactly (actors/courier/
 * charged_entry/), and it adds them. Read in one statement over the ledger's read table.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../db/schema.ts";
import { ADJUSTMENT_KINDS } from "../rules/billing_events.ts";

/** The entry a note points at: its reference, its kind and its shipment's waybill. */
export interface NotedEntry {
  readonly reference: string;
  readonly kind: string;
  readonly shipment: string;
}

/**
 * How many adjustments of `e.shipment` the statement holds for the client, the notes correcting
 * `e` left out (a note made before notes named their kind counts as on `e`, the only entry then).
 */
export async function otherAdjustments(
  db: Kysely<Database>,
  tenant: string,
  clientId: string,
  e: NotedEntry,
): Promise<number> {
  const row = await db.selectFrom("ledger_entries")
    .select(sql<string>`count(*)::bigint`.as("count"))
    .where("tenant", "=", tenant)
    .where("client_id", "=", clientId)
    .where("shipment", "=", e.shipment)
    .where("kind", "in", ADJUSTMENT_KINDS)
    .where((w) =>
      w.or([
        w("corrects", "is", null),
        w("corrects", "!=", e.reference),
        w.and([w("corrects_kind", "is not", null), w("corrects_kind", "!=", e.kind)]),
      ])
    )
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}
