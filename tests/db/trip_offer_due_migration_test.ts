/**
 * Migration 0033 (Business API 3.1, the dispatcher's restart sweep): a database written before it
 * gets each trip's offer time in its read table from the snapshots already projected, so the
 * sweep reads the trips due first without a replay.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { migrateSchemaTo, migrateToLatest } from "../../src/db/migrate.ts";
import { after, openTestDatabase } from "./helpers.ts";

const trip = (dispatch: object, more: object = {}) => ({
  created_at: 1_000,
  scheduled_at: null,
  ready_at: null,
  dispatch: { offer_after: null, window_ends_at: 99_000, ...dispatch },
  ...more,
});

Deno.test("migrations: 0033 fills each trip's offer time from the snapshots", async () => {
  await using t = await openTestDatabase();
  const before = await migrateSchemaTo(t.db, t.schema, "0032_waiting_charge_events");
  assert.equal(before.error, undefined);
  const trips: Record<string, object> = {
    now: trip({}),
    scheduled: trip({ offer_after: 500_000 }, { scheduled_at: 600_000 }),
    ready: trip({ offer_after: 300_000 }, { ready_at: 2_000 }),
    undecided: trip({ offer_after: 300_000, window_ends_at: null }),
  };
  for (const [id, data] of [...Object.entries(trips), ["no_snapshot", null] as const]) {
    if (data !== null) {
      await sql`insert into snapshots (type, id, tenant, version, data) values
        ('business_trip', ${id}, 'ten', 1, ${JSON.stringify(data)}::text::jsonb)`.execute(t.db);
    }
    await sql`insert into business_trips (id, tenant, version, number, created_at, month, status,
        active, is_test, search, type)
      values (${id}, 'ten', 1, 1, 1000, '1970-01', 'pending', 1, 0, '', 'parcel')`.execute(t.db);
  }
  assert.deepEqual(await migrateToLatest(t.db, t.schema), after("0032_waiting_charge_events"));
  const { rows } = await sql<{ id: string; offer_due_at: string }>`
    select id, offer_due_at from business_trips order by id`.execute(t.db);
  assert.deepEqual(rows.map((r) => [r.id, Number(r.offer_due_at)]), [
    ["no_snapshot", 1_000],
    ["now", 1_000],
    ["ready", 2_000],
    ["scheduled", 500_000],
    ["undecided", 1_000],
  ]);
});
