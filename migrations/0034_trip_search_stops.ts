/**
 * A trips search (Business API 4.1) matches every address of the trip: the rows projected before
 * the stops' addresses were searched get them, in the order the projection writes them
 * (reference, passenger, pickup, the stops, destination, external_reference).
 * Frozen in time: never import app code here.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`update business_trips b set search = lower(concat_ws(' ',
      nullif(s.data->>'reference', ''), nullif(s.data->>'passenger_name', ''),
      nullif(s.data->'pickup'->>'address', ''),
      (select string_agg(nullif(e.stop->>'address', ''), ' ' order by e.n)
        from jsonb_array_elements(s.data->'stops') with ordinality as e(stop, n)),
      nullif(s.data->'dest'->>'address', ''), nullif(s.data->>'external_reference', '')))
    from snapshots s
    where s.type = 'business_trip' and s.id = b.id and jsonb_typeof(s.data) = 'object'
      and jsonb_typeof(s.data->'stops') = 'array' and jsonb_array_length(s.data->'stops') > 0`
    .execute(db);
}

export async function down(_db: Kysely<unknown>): Promise<void> {
  // The stops' addresses stay searchable: the earlier text is a part of this one.
}
