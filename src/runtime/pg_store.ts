/**
 * The actor store on Postgres (issue 43, ARCHITECTURE "Growing past one machine"): the store
 * port (store.ts) with Deno KV's semantics, for instances that outgrow one KV file. Chosen with
 * `ACTOR_STORE=postgres` (src/config.ts); its tables (pg_schema.ts) are made on open in the
 * environment's schema, prefixed `actor_store_`.
 *
 * Meant for Postgres (13 and later; tested on 15) and for the engines that speak its protocol
 * and SQL while spreading the data over machines: CockroachDB and YugabyteDB (YSQL), and Citus
 * with these tables left on the coordinator (distributing them is not designed here: a commit
 * touches rows of many actors). Only Postgres is tested. What it needs of an engine, and nothing
 * more:
 *
 * - a transaction that writes all of its rows or none (every write of a group commit);
 * - a row-level compare-and-set: `update ... where version = $expected` that changes no row
 *   once another transaction changed it (Postgres re-reads a row changed under READ COMMITTED;
 *   CockroachDB and YugabyteDB, under SERIALIZABLE or snapshot isolation, fail the later writer
 *   with a serialization failure), and `insert ... on conflict do nothing` that inserts no row
 *   when one exists or is being inserted;
 * - `select ... for share` honoured as a lock, or SERIALIZABLE (where clearing a marker and a
 *   newer commit's rewrite of it conflict), so a marker is cleared only while its actor stays at
 *   the version named;
 * - text in the "C" collation (byte order), `unnest` of arrays, and `on conflict do update`.
 *
 * Any lost race (a unique violation, 40001, 40P01) is answered as a `conflict`, which the runtime
 * meets by reloading the actor and deciding again: no isolation level beyond READ COMMITTED is
 * needed for safety. Versions are per actor (1, 2, 3...), opaque to the runtime.
 *
 * Unlike Deno KV, a value has no size cap here, so records, events and replies are stored whole
 * as JSON text, never split; the limits a transaction keeps are in pg_cost.ts.
 */
import postgres from "postgres";
import { INDEX_PREFIX_LOOKUP_MAX } from "../limits.ts";
import { assertSchemaName } from "../db/migrate.ts";
import { newId } from "./ids.ts";
import { commitWrites } from "./pg_commit.ts";
import { pgWriteCost } from "./pg_cost.ts";
import { PgLeases } from "./pg_leases.ts";
import { createStoreTables } from "./pg_schema.ts";
import type {
  ActorKey,
  ActorRecord,
  ActorStore,
  ActorWrite,
  CommitCost,
  CommitResult,
  DueTimer,
  HeldPartitions,
  IndexEntryFound,
  IndexTarget,
  OutboxItem,
  StoredActor,
  StoredEvent,
  StoredRecord,
} from "./store.ts";

/** Postgres's type id of int8 (bigint). */
const INT8_OID = 20;
/** Connections one store holds: the group committer sends one transaction at a time per env. */
const PG_STORE_POOL_MAX = 8;
/**
 * The leases' own connection: a renewal never waits in the queue of the pool's loads and commits.
 * Queued behind them under load it took longer than a lease lasts, so the instance counted on
 * none of its partitions while the store kept it their holder, and nobody answered for them.
 */
const PG_LEASES_POOL_MAX = 1;
/** Rows of events (one commit's each) read at a time when an actor's log is replayed. */
const EVENT_ROWS_PAGE = 100;
/** Expired replies removed at most this often, and this many at once (a due-timer sweep does it). */
const REPLY_SWEEP_MS = 60_000;
const REPLY_SWEEP_ROWS = 1_000;

export interface PgStoreOptions {
  /** A Postgres URL (`ACTOR_STORE_URL`, else `DATABASE_URL`). */
  readonly url: string;
  /** The schema holding the store's tables: the environment's own. */
  readonly schema: string;
  /** Wall-clock time, for the expiry of kept replies (as Deno KV's `expireIn`); Date.now. */
  readonly now?: () => number;
}

/** A pool of `max` connections to the store's schema. */
function connect(o: PgStoreOptions, max: number): postgres.Sql {
  return postgres(o.url, {
    max,
    connection: { search_path: o.schema },
    // Numbers the store keeps (seq, at, versions) fit a double exactly.
    types: {
      bigint: {
        to: INT8_OID,
        from: [INT8_OID],
        serialize: (v: number) => String(v),
        parse: Number,
      },
    },
    onnotice: () => {},
  });
}

export class PgActorStore implements ActorStore {
  readonly #sql: postgres.Sql;
  readonly #now: () => number;
  #replySweptAt = 0;
  readonly leases: PgLeases;
  readonly #leasesSql: postgres.Sql;

  private constructor(sql: postgres.Sql, leasesSql: postgres.Sql, now: () => number) {
    this.#sql = sql;
    this.#leasesSql = leasesSql;
    this.#now = now;
    this.leases = new PgLeases(leasesSql);
  }

  /** Connects, and makes the store's tables when they are missing. */
  static async open(o: PgStoreOptions): Promise<PgActorStore> {
    assertSchemaName(o.schema);
    const sql = connect(o, PG_STORE_POOL_MAX);
    try {
      await createStoreTables(sql, o.schema);
    } catch (error) {
      await sql.end();
      throw error;
    }
    const leasesSql = connect(o, PG_LEASES_POOL_MAX);
    try {
      // Connected before its first array parameter: postgres.js learns the array types when it
      // connects, and an array sent before then goes as a scalar ("malformed array literal").
      await leasesSql`select 1`;
    } catch (error) {
      await Promise.all([sql.end(), leasesSql.end()]);
      throw error;
    }
    return new PgActorStore(sql, leasesSql, o.now ?? Date.now);
  }

  async load(key: ActorKey): Promise<StoredActor | null> {
    // The marker in the same statement as the record (one snapshot).
    const [row] = await this.#sql<{ version: number; record: string; from: number | null }[]>`
      select a.version, a.record, u.from_seq as "from" from actor_store_actors a
      left join actor_store_unpublished u on u.type = a.type and u.id = a.id
      where a.type = ${key.type} and a.id = ${key.id}`;
    if (!row) return null;
    const stored = { record: JSON.parse(row.record) as ActorRecord, version: String(row.version) };
    return row.from === null ? stored : { ...stored, unpublishedFrom: row.from };
  }

  commit(writes: readonly ActorWrite[]): Promise<CommitResult> {
    return commitWrites(this.#sql, writes, this.#now());
  }

  async replies(key: ActorKey, keys: readonly string[]): Promise<Map<string, unknown>> {
    const found = new Map<string, unknown>();
    if (keys.length === 0) return found;
    const rows = await this.#sql<{ key: string; reply: string | null }[]>`
      select key, reply from actor_store_replies
      where type = ${key.type} and id = ${key.id} and key = any(${this.#sql.array([...keys])})
        and (expires_at is null or expires_at > ${this.#now()})`;
    for (const r of rows) found.set(r.key, r.reply === null ? undefined : JSON.parse(r.reply));
    return found;
  }

  async lookup(index: string, key: string): Promise<IndexTarget | null> {
    const [row] = await this.#sql<IndexTarget[]>`
      select type, id, tenant from actor_store_index where index = ${index} and key = ${key}`;
    return row ? { type: row.type, id: row.id, tenant: row.tenant } : null;
  }

  async lookupPrefix(index: string, prefix: string, limit: number): Promise<IndexEntryFound[]> {
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > INDEX_PREFIX_LOOKUP_MAX) {
      throw new RangeError(`prefix lookup limit out of range: ${limit}`);
    }
    // The keys beginning with `prefix` are those from it up to the next prefix of its length
    // (byte order, collation "C"): an index range, read no further than it.
    const after = nextPrefix(prefix);
    const rows = await this.#sql<{ key: string; type: string; id: string; tenant: string }[]>`
      select key, type, id, tenant from actor_store_index
      where index = ${index} and key >= ${prefix}
        ${after === null ? this.#sql`` : this.#sql`and key < ${after}`}
        and left(key, ${[...prefix].length}) = ${prefix}
      order by key limit ${limit}`;
    return rows.map((r) => ({ key: r.key, target: { type: r.type, id: r.id, tenant: r.tenant } }));
  }

  async passDone(name: string): Promise<boolean> {
    const rows = await this.#sql`select 1 from actor_store_passes where name = ${name}`;
    return rows.length > 0;
  }

  async markPassDone(name: string): Promise<void> {
    await this.#sql`insert into actor_store_passes (name) values (${name}) on conflict do nothing`;
  }

  async dueTimers(until: number, limit: number, held?: HeldPartitions): Promise<DueTimer[]> {
    await this.#sweepReplies();
    if (held?.length === 0) return [];
    const rows = await this.#sql<DueTimer[]>`
      select at, type, id, name from actor_store_timers where at <= ${until} ${this.#in(held)}
      order by at, type, id, name limit ${limit}`;
    return rows.map((r) => ({ at: r.at, type: r.type, id: r.id, name: r.name }));
  }

  async dropTimer(t: DueTimer): Promise<void> {
    await this.#sql`delete from actor_store_timers
      where at = ${t.at} and type = ${t.type} and id = ${t.id} and name = ${t.name}`;
  }

  async *events(key: ActorKey, fromSeq: number): AsyncIterable<StoredEvent> {
    // Rows hold one commit's events each: those ending at or after fromSeq, a page at a time.
    for (let after = fromSeq - 1;;) {
      const rows = await this.#sql<{ last_seq: number; events: string }[]>`
        select last_seq, events from actor_store_events
        where type = ${key.type} and id = ${key.id} and last_seq > ${after}
        order by seq limit ${EVENT_ROWS_PAGE}`;
      for (const r of rows) {
        for (const e of JSON.parse(r.events) as StoredEvent[]) if (e.seq >= fromSeq) yield e;
      }
      if (rows.length < EVENT_ROWS_PAGE) return;
      after = rows[rows.length - 1]!.last_seq;
    }
  }

  async unpublished(
    limit: number,
    held?: HeldPartitions,
  ): Promise<(ActorKey & { from: number })[]> {
    if (held?.length === 0) return [];
    const rows = await this.#sql<(ActorKey & { from: number })[]>`
      select type, id, from_seq as "from" from actor_store_unpublished where true ${this.#in(held)}
      order by type, id limit ${limit}`;
    return rows.map((r) => ({ type: r.type, id: r.id, from: r.from }));
  }

  async markPublished(actors: readonly { key: ActorKey; version: string }[]): Promise<boolean[]> {
    if (actors.length === 0) return [];
    const sql = this.#sql;
    // The actors still at their version are locked (for share) until their markers are gone: a
    // commit racing this one waits, and writes its own marker after.
    const still = await sql<{ type: string; id: string }[]>`
      with at_version as (
        select a.type, a.id from actor_store_actors a
        join unnest(${sql.array(actors.map((a) => a.key.type))}::text[],
          ${sql.array(actors.map((a) => a.key.id))}::text[],
          ${sql.array(actors.map((a) => a.version))}::bigint[]) as w(type, id, version)
          on a.type = w.type and a.id = w.id and a.version = w.version
        for share of a),
      cleared as (
        delete from actor_store_unpublished u using at_version v
        where u.type = v.type and u.id = v.id)
      select type, id from at_version`;
    const done = new Set(still.map((r) => `${r.type}\u0000${r.id}`));
    return actors.map((a) => done.has(`${a.key.type}\u0000${a.key.id}`));
  }

  async outboxItems(
    outbox: string,
    limit: number,
    held?: HeldPartitions,
    due?: number,
  ): Promise<OutboxItem[]> {
    if (held?.length === 0) return [];
    type Row = Omit<OutboxItem, "payload" | "attempts" | "nextAt" | "requestId"> & {
      payload: string;
      attempts: number;
      next_at: number;
      request_id: string | null;
    };
    const rows = await this.#sql<Row[]>`
      select outbox, type, id, seq, n, tenant, at, bytes, payload, attempts, next_at, request_id
      from actor_store_outbox
      where outbox = ${outbox} ${this.#in(held)}
        ${due === undefined ? this.#sql`` : this.#sql`and next_at <= ${due}`}
      order by type, id, seq, n limit ${limit}`;
    return rows.map(({ payload, attempts, next_at, request_id, ...r }) => ({
      ...r,
      payload: JSON.parse(payload),
      ...(request_id === null ? {} : { requestId: request_id }),
      // As Deno KV keeps them: only once an attempt failed.
      ...(attempts === 0 ? {} : { attempts, nextAt: next_at }),
    }));
  }

  async retryOutboxItem(item: OutboxItem, attempts: number, nextAt: number): Promise<void> {
    await this.#sql`update actor_store_outbox set attempts = ${attempts}, next_at = ${nextAt}
      where outbox = ${item.outbox} and type = ${item.type} and id = ${item.id}
        and seq = ${item.seq} and n = ${item.n}`;
  }

  async removeOutboxItems(items: readonly OutboxItem[]): Promise<void> {
    if (items.length === 0) return;
    const sql = this.#sql;
    const col = <T>(f: (i: OutboxItem) => T) => sql.array(items.map(f) as never[]);
    await sql`delete from actor_store_outbox o
      using unnest(${col((i) => i.outbox)}::text[], ${col((i) => i.type)}::text[],
        ${col((i) => i.id)}::text[], ${col((i) => i.seq)}::bigint[], ${col((i) => i.n)}::int[])
        as d(outbox, type, id, seq, n)
      where o.outbox = d.outbox and o.type = d.type and o.id = d.id and o.seq = d.seq
        and o.n = d.n`;
  }

  async identity(): Promise<string> {
    // The first instance to ask sets it; every later one (and any racing it) reads that one.
    await this.#sql`insert into actor_store_identity (identity) values (${newId("store")})
      on conflict do nothing`;
    const [row] = await this.#sql<
      { identity: string }[]
    >`select identity from actor_store_identity`;
    if (!row) throw new Error("the store has no identity");
    return row.identity;
  }

  async stored(type: string, after: string | null, limit: number): Promise<StoredRecord[]> {
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw new RangeError(`actor listing limit out of range: ${limit}`);
    }
    const rows = await this.#sql<{ id: string; record: string }[]>`
      select id, record from actor_store_actors
      where type = ${type} ${after === null ? this.#sql`` : this.#sql`and id > ${after}`}
      order by id limit ${limit}`;
    return rows.map((r) => ({ id: r.id, record: JSON.parse(r.record) as ActorRecord }));
  }

  /** What a write adds to one transaction (pg_cost.ts), measured once per write. */
  cost(w: ActorWrite): CommitCost {
    let cost = costCache.get(w);
    if (!cost) costCache.set(w, cost = pgWriteCost(w));
    return cost;
  }

  /** Closes every connection once the statements under way are answered. */
  async close(): Promise<void> {
    await Promise.all([this.#sql.end({ timeout: 5 }), this.#leasesSql.end({ timeout: 5 })]);
  }

  /**
   * The condition on a sweep's rows that keeps the `held` partitions' (pg_schema.ts): a row of
   * no partition, written before partitions were, is every instance's as it was then.
   */
  #in(held: HeldPartitions): postgres.PendingQuery<postgres.Row[]> {
    if (held === undefined) return this.#sql``;
    return this.#sql`and (partition = any(${this.#sql.array([...held])}::smallint[])
      or partition is null)`;
  }

  /** Expired replies go (Deno KV drops them itself): a bounded batch, now and then. */
  async #sweepReplies(): Promise<void> {
    const now = this.#now();
    if (now - this.#replySweptAt < REPLY_SWEEP_MS) return;
    this.#replySweptAt = now;
    await this.#sql`delete from actor_store_replies where (type, id, key) in (
      select type, id, key from actor_store_replies where expires_at <= ${now}
      limit ${REPLY_SWEEP_ROWS})`;
  }
}

const costCache = new WeakMap<ActorWrite, CommitCost>();

/**
 * The first string of the prefix's length past every string that begins with it (its last
 * character the next one); null when there is none (empty, or only the last character).
 */
export function nextPrefix(prefix: string): string | null {
  const chars = [...prefix];
  while (chars.length > 0) {
    const last = chars.pop()!.codePointAt(0)!;
    // The surrogates are no characters of UTF-8: after U+D7FF comes U+E000.
    const next = last === 0xd7ff ? 0xe000 : last + 1;
    if (next <= 0x10ffff) return chars.join("") + String.fromCodePoint(next);
  }
  return null;
}
