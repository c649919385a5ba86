/**
 * A trips search (Business API 4.1) matches every address of the trip, within one field: each
 * row projected before gets the stops' addresses, and its fields apart by the unit separator
 * (U+001F, which no field holds), in the order the projection writes them (reference, passenger,
 * pickup, the stops, destination, external_reference).
 * Frozen in time: never import app code here.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`update business_trips b set search = lower(concat_ws(chr(31),
      nullif(s.data->>'reference', ''), nullif(s.data->>'passenger_name', ''),
      nullif(s.data->'pickup'->>'address', ''),
      (select string_agg(nullif(e.stop->>'address', ''), chr(31) order by e.n)
        from jsonb_array_elements(
          case when jsonb_typeof(s.data->'stops') = 'array' then s.data->'stops' else '[]' end
        ) with ordinality as e(stop, n)),
      nullif(s.data->'dest'->>'address', ''), nullif(s.data->>'external_reference', '')))
    from snapshots s
    where s.type = 'business_trip' and s.id = b.id and jsonb_typeof(s.data) = 'object'`
    .execute(db);
}

export async function down(_db: Kysely<unknown>): Promise<void> {
  // The search text keeps its fields apart: every search the earlier text met within one field
  // it still meets.
}
