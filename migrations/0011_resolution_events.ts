/**
 * The event of an entry's resolution (courier 3.1, 6.1 `charge.resolved`): what the courier's
 * system reports for it is the entry's export state as much as its own event's, so the entry
 * names that event too. Entries resolved before are linked from the events already made.
 * Frozen in time: never import app code here.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table ledger_entries add column resolved_event_id text`.execute(db);
  await sql`update ledger_entries le set resolved_event_id = ev.id
    from snapshots ev
    where ev.type = 'outbound_event' and ev.tenant = le.tenant
      and ev.data->>'event_type' = 'charge.resolved'
      and ev.data->'entry'->>'client_id' = le.client_id
      and ev.data->'entry'->>'reference' = le.reference
      and coalesce(ev.data->'entry'->>'kind', le.kind) = le.kind
      -- Only an entry that was resolved: an event made before entries named their kind would
      -- otherwise link every entry quoting the reference (a payment quoting the waybill).
      and le.fx_rate is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table ledger_entries drop column resolved_event_id`.execute(db);
}
