/**
 * A client's stores and their retail packets (courier 4.6) over the `client_stores` and
 * `retail_packets` read tables (migration 0017): stores by code, a page at a time, and how many
 * packets each has in each state.
 */
import type { Kysely } from "kysely";
import type { ClientStore } from "../../../actors/courier/client_store.ts";
import type { ReadTable } from "../../db/read_tables.ts";
import type { Database } from "../../db/schema.ts";
import { snapshotData, snapshotsOf } from "../../db/snapshot_join.ts";

interface StoreValues {
  readonly client_id: string;
  readonly code: string;
}

interface PacketValues {
  readonly client_id: string;
  readonly store_id: string;
  readonly state: string;
}

function text(value: unknown, what: string): string {
  if (typeof value !== "string") throw new TypeError(`${what} must be a string`);
  return value;
}

/** The `client_stores` read table: one row per store. */
export const storesTable: ReadTable<StoreValues> = {
  table: "client_stores",
  actorType: "client_store",
  columns: { client_id: "text", code: "text" },
  rowOf: (s) => ({
    client_id: text(s.client_id, "a store's client_id"),
    code: text(s.code, "a store's code"),
  }),
};

/** The `retail_packets` read table: one row per packet. */
export const packetsTable: ReadTable<PacketValues> = {
  table: "retail_packets",
  actorType: "retail_packet",
  columns: { client_id: "text", store_id: "text", state: "text" },
  rowOf: (p) => ({
    client_id: text(p.client_id, "a packet's client_id"),
    store_id: text(p.store_id, "a packet's store_id"),
    state: text(p.state, "a packet's state"),
  }),
};

/**
 * One page of a client's stores by code, after the code `after`; `more` when another page
 * follows.
 */
export async function storePage(
  db: Kysely<Database>,
  tenant: string,
  clientId: string,
  page: { readonly limit: number; readonly after: string | null },
): Promise<{ stores: ClientStore[]; more: boolean }> {
  let q = db.selectFrom("client_stores")
    .select(snapshotData("client_store", "client_stores.id").as("data"))
    .where("tenant", "=", tenant)
    .where("client_id", "=", clientId);
  if (page.after !== null) q = q.where("code", ">", page.after);
  // One row more than the page tells whether another page follows.
  const rows = await q.orderBy("code").limit(page.limit + 1).execute();
  return {
    stores: snapshotsOf<ClientStore>(rows.slice(0, page.limit)),
    more: rows.length > page.limit,
  };
}

/** How many packets of a client each of these stores has, by state. */
export async function packetCounts(
  db: Kysely<Database>,
  tenant: string,
  clientId: string,
  storeIds: readonly string[],
): Promise<Map<string, Record<string, number>>> {
  const counts = new Map<string, Record<string, number>>();
  if (storeIds.length === 0) return counts;
  const rows = await db.selectFrom("retail_packets")
    .select((eb) => ["store_id", "state", eb.fn.countAll<number>().as("n")])
    .where("tenant", "=", tenant)
    .where("client_id", "=", clientId)
    .where("store_id", "in", storeIds)
    .groupBy(["store_id", "state"])
    .execute();
  for (const r of rows) {
    const byState = counts.get(r.store_id) ?? {};
    byState[r.state] = Number(r.n);
    counts.set(r.store_id, byState);
  }
  return counts;
}
