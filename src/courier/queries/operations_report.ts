/**
 * The operations report (courier 4.4) over the `shipments` and `alerts` read tables (migration
 * 0016): counted in the database, not by reading every open shipment of the courier.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../db/schema.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

export interface OpenShipmentCounts {
  readonly total: number;
  /** Only the health values that have open shipments. */
  readonly by_health: Record<string, number>;
  /** By next owner; `none` for shipments with no open milestone. */
  readonly by_next_owner: Record<string, number>;
  /** By whole days since booking: one count per bucket, the last one open-ended. */
  readonly ageing: number[];
}

/**
 * A courier's open shipments counted by health, next owner and age, each bucket of age holding
 * up to its most whole days (`bucketDaysMax`, ascending), the last bucket the rest.
 */
export async function openShipmentCounts(
  db: Kysely<Database>,
  tenant: string,
  now: number,
  bucketDaysMax: readonly number[],
): Promise<OpenShipmentCounts> {
  // Whole days since booking are at most `max` exactly when less than max + 1 days have passed.
  const whens = bucketDaysMax.map((max, i) =>
    sql`when ${now} - booked_at < ${(max + 1) * DAY_MS} then ${sql.lit(i)}`
  );
  const bucket = sql<number>`case ${sql.join(whens, sql` `)} else ${
    sql.lit(bucketDaysMax.length)
  } end`;
  const rows = await db.selectFrom("shipments")
    .select((eb) => [
      "health",
      "next_owner",
      bucket.as("bucket"),
      eb.fn.countAll<number>().as("n"),
    ])
    .where("tenant", "=", tenant)
    .where("closed_at", "is", null)
    .groupBy(["health", "next_owner", sql`3`])
    .execute();
  const byHealth: Record<string, number> = {};
  const byOwner: Record<string, number> = {};
  const ageing = Array.from({ length: bucketDaysMax.length + 1 }, () => 0);
  let total = 0;
  for (const r of rows) {
    const n = Number(r.n);
    total += n;
    const health = String(r.health);
    byHealth[health] = (byHealth[health] ?? 0) + n;
    const owner = r.next_owner ?? "none";
    byOwner[owner] = (byOwner[owner] ?? 0) + n;
    ageing[Number(r.bucket)]! += n;
  }
  return { total, by_health: byHealth, by_next_owner: byOwner, ageing };
}

export interface AlertCounts {
  /** Only the kinds that have open alerts. */
  readonly open_by_kind: Record<
    string,
    { open: number; unacknowledged: number; older_than_24h: number }
  >;
  readonly raised_since: number;
  readonly resolved_since: number;
}

/** A courier's alerts not resolved, by kind, and those raised and resolved since `dayStart`. */
export async function alertCounts(
  db: Kysely<Database>,
  tenant: string,
  now: number,
  dayStart: number,
): Promise<AlertCounts> {
  const [open, raised, resolved] = await Promise.all([
    db.selectFrom("alerts")
      .select((eb) => [
        "kind",
        eb.fn.countAll<number>().as("open"),
        sql<number>`count(*) filter (where status = 'open')`.as("unacknowledged"),
        sql<number>`count(*) filter (where raised_at < ${now - DAY_MS})`.as("older"),
      ])
      .where("tenant", "=", tenant)
      .where("status", "<>", "resolved")
      .groupBy("kind")
      .execute(),
    db.selectFrom("alerts").select((eb) => eb.fn.countAll<number>().as("n"))
      .where("tenant", "=", tenant)
      .where("raised_at", ">=", dayStart)
      .executeTakeFirstOrThrow(),
    db.selectFrom("alerts").select((eb) => eb.fn.countAll<number>().as("n"))
      .where("tenant", "=", tenant)
      .where("status", "=", "resolved")
      .where("resolved_at", ">=", dayStart)
      .executeTakeFirstOrThrow(),
  ]);
  const byKind: AlertCounts["open_by_kind"] = {};
  for (const r of open) {
    byKind[r.kind] = {
      open: Number(r.open),
      unacknowledged: Number(r.unacknowledged),
      older_than_24h: Number(r.older),
    };
  }
  return {
    open_by_kind: byKind,
    raised_since: Number(raised.n),
    resolved_since: Number(resolved.n),
  };
}

/** A courier's shipments delivered since `dayStart`. */
export async function deliveredSince(
  db: Kysely<Database>,
  tenant: string,
  dayStart: number,
): Promise<number> {
  const row = await db.selectFrom("shipments").select((eb) => eb.fn.countAll<number>().as("n"))
    .where("tenant", "=", tenant)
    .where("delivered_at", ">=", dayStart)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
