/**
 * The tables of the actor store on Postgres (pg_store.ts), made when the store is opened, in the
 * environment's own schema beside the query side's tables and prefixed `actor_store_`: they are
 * the store's, not a migration of the query side (migrations/). Every key column is text in the
 * "C" collation, so keys sort as Deno KV sorts them (by their UTF-8 bytes): prefix lookups, the
 * listing of stored actors and outbox items come in the same order on either store.
 *
 * What a sweep reads (due timers, recovery markers, outbox items) carries its actor's partition
 * (placement.ts), set at write, so an instance reads those of the partitions it holds only (issue
 * 43 item 3). Added to a store made before it by `add column if not exists`: its rows written
 * before keep a null partition, which every instance reads, as all did then.
 */
import type postgres from "postgres";

/** The statements making the store's tables, each `if not exists`: opening a made store changes none. */
export const PG_STORE_TABLES = [
  // One row per actor: its record as JSON text, and the version a write must name (compare-and-set).
  `create table if not exists actor_store_actors (
    type text collate "C" not null,
    id text collate "C" not null,
    version bigint not null,
    record text not null,
    primary key (type, id))`,
  // The events of one commit in one row (as Deno KV keeps them in a chunk): a commit of many
  // events is one row written, and an actor's log is read a few rows at a time.
  `create table if not exists actor_store_events (
    type text collate "C" not null,
    id text collate "C" not null,
    seq bigint not null,
    last_seq bigint not null,
    events text not null,
    primary key (type, id, seq))`,
  `create table if not exists actor_store_index (
    index text collate "C" not null,
    key text collate "C" not null,
    type text collate "C" not null,
    id text collate "C" not null,
    tenant text not null,
    primary key (index, key))`,
  // Due order is the key order: when, then whose.
  `create table if not exists actor_store_timers (
    at bigint not null,
    type text collate "C" not null,
    id text collate "C" not null,
    name text collate "C" not null,
    primary key (at, type, id, name))`,
  `alter table actor_store_timers add column if not exists partition smallint`,
  `create index if not exists actor_store_timers_partition on actor_store_timers (partition, at)`,
  // `reply` null: a reply of no value (undefined); `expires_at` null: kept for good.
  `create table if not exists actor_store_replies (
    type text collate "C" not null,
    id text collate "C" not null,
    key text collate "C" not null,
    reply text,
    expires_at bigint,
    primary key (type, id, key))`,
  `create index if not exists actor_store_replies_expiry
    on actor_store_replies (expires_at) where expires_at is not null`,
  `create table if not exists actor_store_unpublished (
    type text collate "C" not null,
    id text collate "C" not null,
    from_seq bigint not null,
    primary key (type, id))`,
  `alter table actor_store_unpublished add column if not exists partition smallint`,
  `create index if not exists actor_store_unpublished_partition
    on actor_store_unpublished (partition)`,
  `create table if not exists actor_store_outbox (
    outbox text collate "C" not null,
    type text collate "C" not null,
    id text collate "C" not null,
    seq bigint not null,
    n integer not null,
    tenant text not null,
    at bigint not null,
    bytes integer not null,
    payload text not null,
    primary key (outbox, type, id, seq, n))`,
  `alter table actor_store_outbox add column if not exists partition smallint`,
  // Failed attempts at an item and when it is next due (ActorStore.retryOutboxItem).
  `alter table actor_store_outbox add column if not exists attempts integer not null default 0`,
  `alter table actor_store_outbox add column if not exists next_at bigint not null default 0`,
  `alter table actor_store_outbox add column if not exists request_id text`,
  `create index if not exists actor_store_outbox_partition
    on actor_store_outbox (outbox, partition)`,
  `create table if not exists actor_store_passes (name text collate "C" primary key)`,
  // A partition's lease (pg_leases.ts): a commit of its actors locks the row (for share) and
  // checks holder and epoch, so a take waits for it and every later commit of the old epoch fails.
  `create table if not exists actor_store_leases (
    partition integer primary key,
    holder text not null,
    epoch bigint not null,
    expires bigint not null)`,
  `create table if not exists actor_store_instances (
    instance text collate "C" primary key,
    until bigint not null)`,
  `create table if not exists actor_store_identity (
    one boolean primary key default true check (one),
    identity text not null)`,
] as const;

/** Tries of the creation when another instance makes the same tables at the same moment. */
const CREATE_TRIES_MAX = 5;

/**
 * Makes the schema and the store's tables when missing. Two instances starting at once may both
 * try: `if not exists` is not atomic in Postgres (one fails on the catalog's unique index), so the
 * loser tries again and finds them made.
 */
export async function createStoreTables(sql: postgres.Sql, schema: string): Promise<void> {
  for (let attempt = 1;; attempt++) {
    try {
      await sql.begin(async (tx) => {
        await tx.unsafe(`create schema if not exists "${schema}"`);
        for (const statement of PG_STORE_TABLES) await tx.unsafe(statement);
      });
      return;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (attempt >= CREATE_TRIES_MAX || (code !== "23505" && code !== "42P07")) throw error;
    }
  }
}
