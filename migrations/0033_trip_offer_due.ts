/**
 * The dispatcher's restart sweep (Business API 3.1) takes up the trips waiting for a driver that
 * are due to be offered now: the trips' read table keeps when each trip is due to be offered, so
 * trips scheduled far ahead never crowd the ones due out of its bounded read. Filled from the
 * snapshots already projected: at once (its creation) when no offer time was decided yet, at once
 * (its readiness) for a prep order marked ready, else the offer time decided at booking.
 * Frozen in time: never import app code here.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("business_trips").addColumn("offer_due_at", "bigint").execute();
  await sql`update business_trips b set offer_due_at = case
      when s.data->'dispatch'->>'window_ends_at' is null then (s.data->>'created_at')::bigint
      when s.data->>'scheduled_at' is null and s.data->>'ready_at' is not null
        then (s.data->>'ready_at')::bigint
      else coalesce((s.data->'dispatch'->>'offer_after')::bigint,
        (s.data->>'created_at')::bigint)
    end
    from snapshots s
    where s.type = 'business_trip' and s.id = b.id and jsonb_typeof(s.data) = 'object'`
    .execute(db);
  await sql`update business_trips set offer_due_at = created_at where offer_due_at is null`
    .execute(db);
  await sql`alter table business_trips alter column offer_due_at set not null`.execute(db);
  await sql`create index business_trips_waiting_idx on business_trips (offer_due_at, id)
    where active = 1 and driver_id is null and status in ('pending', 'scheduled')`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index business_trips_waiting_idx`.execute(db);
  await db.schema.alterTable("business_trips").dropColumn("offer_due_at").execute();
}
