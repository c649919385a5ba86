/**
 * `q` on the shipment search and the operations board (courier 4.1, 4.4): a shipment whose
 * waybill, external references, consignee's name or client's name starts with `q`, in any case.
 * Each column is compared in lower case with `like 'prefix%'`, which the `text_pattern_ops`
 * indexes of migration 0022 answer as a range; the clients whose name matches are looked up
 * first, so the shipments' condition stays one indexed OR.
 */
import { type Expression, type ExpressionBuilder, type Kysely, sql, type SqlBool } from "kysely";
import type { Database } from "../../db/schema.ts";
import { SEARCH_CLIENTS_MAX } from "../../limits.ts";

/** A search, ready for the shipments' condition. */
export interface ShipmentSearch {
  readonly pattern: string;
  /** The courier's clients whose name starts with `q`. */
  readonly client_ids: readonly string[];
}

/** The shipments' columns a search looks at (the waybill is the row's id). */
const SEARCHED = [
  "id",
  "external_customer_code",
  "external_billing_reference",
  "client_order_reference",
  "recipient_name",
] as const;

/** A `like` pattern for what starts with `q` in lower case; `%`, `_` and `\` in `q` are literal. */
export function prefixPattern(q: string): string {
  return `${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The search for `q` within one courier: its pattern and the clients whose name matches. */
export async function shipmentSearch(
  db: Kysely<Database>,
  tenant: string,
  q: string,
): Promise<ShipmentSearch> {
  const pattern = prefixPattern(q);
  const clients = await db.selectFrom("courier_clients").select("id")
    .where("tenant", "=", tenant)
    .where(sql<SqlBool>`lower(name) like ${pattern}`)
    .limit(SEARCH_CLIENTS_MAX)
    .execute();
  return { pattern, client_ids: clients.map((c) => c.id) };
}

/** The shipments a search finds (with the courier's own condition on `tenant` beside it). */
export function searchMatches(
  eb: ExpressionBuilder<Database, "shipments">,
  search: ShipmentSearch,
) {
  const arms: Expression<SqlBool>[] = SEARCHED.map((column) =>
    sql<SqlBool>`lower(${sql.ref(`shipments.${column}`)}) like ${search.pattern}`
  );
  if (search.client_ids.length > 0) {
    arms.push(eb("shipments.client_id", "in", [...search.client_ids]));
  }
  return eb.or(arms);
}
