/**
 * Migration 0034 (Business API 4.1, the trips search): a database written before it gets the
 * stops' addresses in each trip's search text, its fields kept apart, from the snapshots already
 * projected.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { migrateSchemaTo, migrateToLatest } from "../../src/db/migrate.ts";
import { after, openTestDatabase } from "./helpers.ts";

const trip = (stops: object[]) => ({
  reference: "BK-1",
  passenger_name: "Neo",
  pickup: { address: "Main Mall" },
  stops,
  dest: { address: "Block 8" },
  external_reference: null,
});

Deno.test("migrations: 0034 writes each trip's search text with its stops, fields kept apart", async () => {
  await using t = await openTestDatabase();
  const before = await migrateSchemaTo(t.db, t.schema, "0033_trip_offer_due");
  assert.equal(before.error, undefined);
  const trips: Record<string, object> = {
    two_stops: trip([{ address: "Riverwalk" }, { address: "Tlokweng Road" }]),
    no_stops: trip([]),
  };
  for (const [id, data] of Object.entries(trips)) {
    await sql`insert into snapshots (type, id, tenant, version, data) values
      ('business_trip', ${id}, 'ten', 1, ${JSON.stringify(data)}::text::jsonb)`.execute(t.db);
    await sql`insert into business_trips (id, tenant, version, number, created_at, month, status,
        active, is_test, search, type, offer_due_at)
      values (${id}, 'ten', 1, 1, 1000, '1970-01', 'pending', 1, 0, 'as before', 'parcel', 0)`
      .execute(t.db);
  }
  assert.deepEqual(await migrateToLatest(t.db, t.schema), after("0033_trip_offer_due"));
  const { rows } = await sql<{ id: string; search: string }>`
    select id, search from business_trips order by id`.execute(t.db);
  assert.deepEqual(rows.map((r) => [r.id, r.search.replaceAll("\u001f", "|")]), [
    ["no_stops", "bk-1|neo|main mall|block 8"],
    ["two_stops", "bk-1|neo|main mall|riverwalk|tlokweng road|block 8"],
  ]);
});
