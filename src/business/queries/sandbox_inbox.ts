/**
 * The sandbox inbox's list (Business API 4.4): the `sandbox_inbox` read table (migration 0025),
 * written from the inbox delivery actors' snapshots and trimmed, in the same transaction, to the
 * newest SANDBOX_INBOX_KEPT_MAX deliveries of each business the batch wrote to.
 */
import { type Kysely, sql, type Transaction } from "kysely";
import { type InboxDelivery, sandboxInboxActor } from "../../../actors/business/sandbox_inbox.ts";
import type { ActorChange } from "../../bus/bus.ts";
import { BusProjection, parseChange, type ProjectionOptions } from "../../db/bus_projection.ts";
import { insertRows } from "../../db/json.ts";
import type { Database } from "../../db/schema.ts";
import { SANDBOX_INBOX_KEPT_MAX } from "../rules/sandbox.ts";

/** Changes written together when a backlog builds up (bodies of several KB each). */
const INBOX_BATCH_MAX = 200;

/** Projects inbox deliveries into `sandbox_inbox`; a delivery never changes once received. */
export function startSandboxInbox(options: ProjectionOptions): BusProjection<ActorChange> {
  return new BusProjection<ActorChange>(options, {
    name: "sandbox_inbox",
    // Every type, as the sync sentinels of settle() come on their own subject.
    type: "*",
    limits: { itemsMax: INBOX_BATCH_MAX },
    take: (change) =>
      change.type === sandboxInboxActor.type && isDelivery(change.snapshot) ? change : null,
    write: async (changes) => {
      await options.db.transaction().execute((trx) => writeDeliveries(trx, changes));
    },
    parked: (change) => change,
    unparked: parseChange,
  });
}

async function writeDeliveries(
  trx: Transaction<Database>,
  changes: readonly ActorChange[],
): Promise<void> {
  const kept = changes.map((c) => ({
    tenant: c.tenant,
    version: c.version,
    delivery: c.snapshot as InboxDelivery,
  }));
  await writeRows(trx, kept);
}

/**
 * Keeps one delivery the inbox received in its list, trimmed in the same transaction (spec:
 * business 4.4). A row, no actor: the list is the inbox, so nothing per delivery is kept in the
 * actor store, which has no way to remove a record and would grow with every webhook for ever.
 * The same attempt handed over twice is kept once (its id).
 */
export async function keepInboxDelivery(
  db: Kysely<Database>,
  tenant: string,
  delivery: InboxDelivery,
): Promise<void> {
  await db.transaction().execute((trx) => writeRows(trx, [{ tenant, version: 1, delivery }]));
}

async function writeRows(
  trx: Transaction<Database>,
  kept: readonly { tenant: string; version: number; delivery: InboxDelivery }[],
): Promise<void> {
  const rows = kept.map(({ tenant, version, delivery: d }) => ({
    id: d.id,
    tenant,
    version,
    event: d.event,
    event_id: d.event_id,
    received_at: d.received_at,
    headers: d.headers,
    body: d.body,
  }));
  await insertRows(trx, "sandbox_inbox", rows)
    .onConflict((oc) => oc.column("id").doNothing()).execute();
  for (const tenant of new Set(kept.map((k) => k.tenant))) await trim(trx, tenant);
}

/** Deletes a business's deliveries beyond the newest SANDBOX_INBOX_KEPT_MAX. */
async function trim(trx: Transaction<Database>, tenant: string): Promise<void> {
  await sql`delete from sandbox_inbox where tenant = ${tenant} and (received_at, seq) < (
      select received_at, seq from sandbox_inbox where tenant = ${tenant}
      order by received_at desc, seq desc offset ${SANDBOX_INBOX_KEPT_MAX - 1} limit 1)`
    .execute(trx);
}

/**
 * A business's newest inbox deliveries, newest first: by the time received, then by the order
 * they were written (the order their keeping committed, as the bus hands changes over), so a
 * step's webhooks kept in one millisecond are listed as received (spec: business 4.4).
 */
export async function inboxDeliveries(
  db: Kysely<Database>,
  tenant: string,
  limit: number,
): Promise<InboxDelivery[]> {
  const rows = await db.selectFrom("sandbox_inbox")
    .select(["id", "event", "event_id", "received_at", "headers", "body"])
    .where("tenant", "=", tenant)
    .orderBy("received_at", "desc").orderBy("seq", "desc")
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    event: r.event,
    event_id: r.event_id,
    received_at: Number(r.received_at),
    headers: r.headers as Record<string, string>,
    body: r.body,
  }));
}

function isDelivery(x: unknown): x is InboxDelivery {
  return typeof x === "object" && x !== null && typeof (x as InboxDelivery).body === "string" &&
    typeof (x as InboxDelivery).received_at === "number";
}
