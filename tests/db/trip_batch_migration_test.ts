/**
 * Migration 0036 (Business API 4.2, the batches list's order): a database written before it gets
 * each trip's batch from the snapshots already projected; a trip booked alone has none.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { migrateSchemaTo, migrateToLatest } from "../../src/db/migrate.ts";
import { after, openTestDatabase } from "./helpers.ts";

Deno.test("migrations: 0036 names each trip's batch, none for a trip booked alone", async () => {
  await using t = await openTestDatabase();
  const before = await migrateSchemaTo(t.db, t.schema, "0035_sandbox_inbox_order");
  assert.equal(before.error, undefined);
  const trips: Record<string, object> = {
    stop: { reference: "BK-1", batch: { id: "BT-1", position: 1, stops: 2 } },
    alone: { reference: "BK-2" },
  };
  for (const [id, data] of Object.entries(trips)) {
    await sql`insert into snapshots (type, id, tenant, version, data) values
      ('business_trip', ${id}, 'ten', 1, ${JSON.stringify(data)}::text::jsonb)`.execute(t.db);
    await sql`insert into business_trips (id, tenant, version, number, created_at, month, status,
        active, is_test, search, type, offer_due_at)
      values (${id}, 'ten', 1, 1, 1000, '1970-01', 'pending', 1, 0, '', 'parcel', 0)`
      .execute(t.db);
  }
  assert.deepEqual(await migrateToLatest(t.db, t.schema), after("0035_sandbox_inbox_order"));
  const { rows } = await sql<{ id: string; batch_id: string | null }>`
    select id, batch_id from business_trips order by id`.execute(t.db);
  assert.deepEqual(rows.map((r) => [r.id, r.batch_id]), [["alone", null], ["stop", "BT-1"]]);
});
