/**
 * A client's saved quotations (courier 4.1) over the `quotes` read table (migration 0016), newest
 * first; a page shows its quotations as projected.
 */
import type { Kysely } from "kysely";
import { type KeysetPage, keysetPage, type PageRequest } from "../../db/keyset.ts";
import type { ReadTable } from "../../db/read_tables.ts";
import type { Database } from "../../db/schema.ts";
import { snapshotData, snapshotsOf } from "../../db/snapshot_join.ts";

interface QuoteValues {
  readonly client_id: string;
  readonly created_at: number;
}

/** The `quotes` read table: one row per price offer saved as a quotation. */
export const quotesTable: ReadTable<QuoteValues> = {
  table: "quotes",
  actorType: "price_offer",
  columns: { client_id: "text", created_at: "bigint" },
  rowOf: (snapshot) => {
    // Held prices are read from the actor; only quotations are listed.
    if (snapshot.kind !== "quote") return null;
    const { client_id, created_at } = snapshot;
    if (typeof client_id !== "string" || !Number.isSafeInteger(created_at)) {
      throw new TypeError("a quotation snapshot must have a client_id and created_at");
    }
    return { client_id, created_at: created_at as number };
  },
};

/** One page of a client's quotations, newest first (then by id). */
export async function quotePage<Q>(
  db: Kysely<Database>,
  tenant: string,
  clientId: string,
  page: PageRequest,
): Promise<KeysetPage<Q>> {
  const q = db.selectFrom("quotes")
    .select(["id", "created_at", snapshotData("price_offer", "quotes.id").as("data")])
    .where("tenant", "=", tenant)
    .where("client_id", "=", clientId);
  const found = await keysetPage(
    q,
    { at: "quotes.created_at", id: "quotes.id", order: "desc" },
    page,
    (r) => ({ at: r.created_at, id: r.id }),
  );
  return { rows: snapshotsOf<Q>(found.rows), next: found.next };
}
