/**
 * How far the query side holds a client account's ledger (courier 2.7): every entry
 * the account booked up to this seq is in `ledger_entries`, or was kept out and reported (a
 * reference another fact holds). It is the account's watermark (migration 0013), which the
 * account's later changes move on, stopped just before the first entry of any change of it that
 * is parked (parked_changes.ts, migration 0015): a parked entry is not written yet, and a reader
 * that counted it so would send a completion without it.
 * Once the change goes in its row is let go, in the same round, and the watermark stands again.
 */
import { type Expression, type Kysely, sql } from "kysely";
import type { Database } from "../../db/schema.ts";

/** The account's watermark as a scalar subquery: null (none) before its first entry. */
export function heldWatermark(
  tenant: Expression<string>,
  clientId: Expression<string>,
) {
  return sql<number | null>`(
    select least(w.seq, (
      select min(p.holds_seq) - 1 from parked_changes p
      where p.projection = 'ledger' and p.tenant = ${tenant} and p.actor_id = ${clientId}
        and p.holds_seq is not null
    ))
    from ledger_watermarks w where w.tenant = ${tenant} and w.client_id = ${clientId})`;
}

/** `heldWatermark` of one account; 0 before its first entry. */
export async function ledgerWatermark(
  db: Kysely<Database>,
  tenant: string,
  clientId: string,
): Promise<number> {
  const { rows } = await sql<{ seq: number | null }>`select ${
    heldWatermark(sql.val(tenant), sql.val(clientId))
  } as seq`.execute(db);
  return Number(rows[0]?.seq ?? 0);
}
