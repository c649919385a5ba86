/**
 * Migration 0022 (issue 42, search finds): a database written before it gets the consignee's
 * and the client's names in its read tables from the snapshots already projected, so the search
 * finds old shipments by name without a replay.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { migrateSchemaTo, migrateToLatest } from "../../src/db/migrate.ts";
import { openTestDatabase } from "./helpers.ts";

Deno.test("migrations: 0022 fills the consignee's and the client's names from the snapshots", async () => {
  await using t = await openTestDatabase();
  const before = await migrateSchemaTo(t.db, t.schema, "0021_business_trips_type");
  assert.equal(before.error, undefined);
  const shipment = { client_id: "cl_1", recipient: { name: "Thabo Molefe" } };
  await sql`insert into snapshots (type, id, tenant, version, data) values
    ('shipment', 'WB00000001', 'ten', 1, ${JSON.stringify(shipment)}::text::jsonb),
    ('courier_client', 'cl_1', 'ten', 1, ${
    JSON.stringify({ code: "C1", name: "Acme" })
  }::text::jsonb)`
    .execute(t.db);
  await sql`insert into shipments (id, tenant, version, client_id, status, facility_ids,
      pieces_count, places_count, booked_at)
    values ('WB00000001', 'ten', 1, 'cl_1', 'booked', '{}', 1, 1, 1)`.execute(t.db);
  await sql`insert into courier_clients (id, tenant, version, code) values ('cl_1', 'ten', 1, 'C1')`
    .execute(t.db);
  assert.deepEqual((await migrateToLatest(t.db, t.schema))[0], "0022_search_prefixes");
  const { rows } = await sql<{ recipient_name: string; name: string }>`
    select s.recipient_name, c.name from shipments s join courier_clients c on c.id = s.client_id`
    .execute(t.db);
  assert.deepEqual(rows, [{ recipient_name: "Thabo Molefe", name: "Acme" }]);
});
