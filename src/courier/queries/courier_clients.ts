/**
 * A courier's client accounts over the `courier_clients` read table (migration 0017): their codes
 * by id, as the billing export shows them beside each entry (courier 3.1).
 */
import type { ReadTable } from "../../db/read_tables.ts";

interface ClientValues {
  readonly code: string;
  readonly name: string | null;
}

/** The `courier_clients` read table: one row per client account. */
export const courierClientsTable: ReadTable<ClientValues> = {
  table: "courier_clients",
  actorType: "courier_client",
  columns: { code: "text", name: "text" },
  rowOf: ({ code, name }) => {
    if (typeof code !== "string") throw new TypeError("a client snapshot must have a code");
    return { code, name: typeof name === "string" ? name : null };
  },
};
