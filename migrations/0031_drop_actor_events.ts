/**
 * The query side's copy of every actor event goes (issue 36: one write per change, not an event
 * row and a snapshot of the same record). The actor store keeps the events, the record of what
 * happened; no read used this copy. Frozen in time: never import app code here.
 */
import type { Kysely } from "kysely";
import { sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("actor_events").ifExists().execute();
}

/** The table again, empty: the events it held are still in the actor store. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`create table actor_events (
    type text not null, id text not null, tenant text not null, seq integer not null,
    at timestamptz not null, kind text not null, event jsonb not null,
    constraint actor_events_pkey primary key (type, id, seq))`.execute(db);
  await sql`create index actor_events_tenant_at_idx on actor_events (tenant, at)`.execute(db);
}
