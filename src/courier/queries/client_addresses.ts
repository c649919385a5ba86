/**
 * A client's saved addresses (courier 4.6) over the `client_addresses` read table (migration
 * 0017), by label in any case.
 */
import { type Kysely, sql } from "kysely";
import type { ClientAddress } from "../../../actors/courier/client_address.ts";
import type { ReadTable } from "../../db/read_tables.ts";
import type { Database } from "../../db/schema.ts";
import { snapshotData, snapshotsOf } from "../../db/snapshot_join.ts";

interface AddressValues {
  readonly client_id: string;
  readonly label: string;
}

/** The `client_addresses` read table: one row per saved address. */
export const addressesTable: ReadTable<AddressValues> = {
  table: "client_addresses",
  actorType: "client_address",
  columns: { client_id: "text", label: "text" },
  rowOf: ({ client_id, label }) => {
    if (typeof client_id !== "string" || typeof label !== "string") {
      throw new TypeError("an address snapshot must have a client_id and a label");
    }
    return { client_id, label };
  },
};

/** A client's saved addresses by label, in any case (client_addresses_label_idx); at most `limit`. */
export async function addressesOf(
  db: Kysely<Database>,
  tenant: string,
  clientId: string,
  limit: number,
): Promise<ClientAddress[]> {
  const rows = await db.selectFrom("client_addresses")
    .select(snapshotData("client_address", "client_addresses.id").as("data"))
    .where("tenant", "=", tenant)
    .where("client_id", "=", clientId)
    .orderBy(sql`lower(label)`)
    .limit(limit)
    .execute();
  return snapshotsOf<ClientAddress>(rows);
}
