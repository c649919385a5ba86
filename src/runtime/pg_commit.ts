/**
 * A group commit on Postgres (pg_store.ts): every part of every write in one transaction, sent
 * as one pipelined batch of statements, one statement per kind of row (arrays unnested), so a
 * group of a hundred actors costs the round trips of one.
 *
 * Compare-and-set on the version column: an actor written before is updated only where its
 * version is still the one read (`expected`); a new one is inserted only where no row exists.
 * A statement that touches fewer rows than it was given, a unique key claimed meanwhile, or the
 * engine's own refusal of a race (a unique violation, a serialization failure, a deadlock) rolls
 * the whole transaction back and answers `conflict`: the runtime reloads and decides again.
 * Under READ COMMITTED the update re-reads a row another transaction changed before it compares
 * the version, so the check holds there too; under SERIALIZABLE (CockroachDB) a race is a
 * serialization failure, answered the same.
 */
import type postgres from "postgres";
import { IDEMPOTENCY_TTL_MS } from "../limits.ts";
import { replyTextsOf } from "./pg_cost.ts";
import { partitionOf } from "./placement.ts";
import {
  type ActorWrite,
  claimsAKeyTwice,
  type CommitResult,
  type Fence,
  fencesOf,
} from "./store.ts";

/** SQLSTATEs of a race lost: unique violation, serialization failure, deadlock. */
const RACE_LOST = new Set(["23505", "40001", "40P01"]);

/** Thrown inside the transaction to roll it back when a compare-and-set missed. */
class VersionMoved extends Error {}

/** Thrown inside the transaction to roll it back when a write's lease moved on (pg_leases.ts). */
class LeaseMoved extends Error {
  constructor(readonly partition: number) {
    super(`lease of partition ${partition} moved`);
  }
}

/** What the transaction was asked to do, as one array per column of each statement. */
type Statement = { readonly text: string; readonly columns: unknown[][]; readonly rows?: number };

export function versionAfter(expected: string | null): string {
  return String(expected === null ? 1 : Number(expected) + 1);
}

/** Commits every part of `writes` or none (see the module comment). */
export async function commitWrites(
  sql: postgres.Sql,
  writes: readonly ActorWrite[],
  now: number,
): Promise<CommitResult> {
  if (claimsAKeyTwice(writes)) return { ok: false, reason: "conflict" };
  const fences = fencesOf(writes);
  // The leases first: locked before any write, so a take waits for this commit or fences it.
  const statements = [
    ...fences.length > 0 ? [fenceStatement(fences)] : [],
    ...statementsOf(writes, now),
  ];
  try {
    await sql.begin(async (tx) => {
      // Sent together without waiting for each answer: the transaction's statements pipelined.
      const sent = statements.map((s) =>
        tx.unsafe(s.text, s.columns.map((c) => tx.array(c as string[])) as never[])
      );
      const results = await Promise.allSettled(sent);
      if (fences.length > 0) checkFences(results[0]!, fences);
      const failed = results.find((r) => r.status === "rejected");
      if (failed) throw (failed as PromiseRejectedResult).reason;
      results.forEach((r, i) => {
        const rows = statements[i]!.rows;
        if (
          rows !== undefined &&
          (r as PromiseFulfilledResult<postgres.RowList<[]>>).value.count !== rows
        ) {
          throw new VersionMoved();
        }
      });
    });
    return { ok: true, versions: writes.map((w) => versionAfter(w.expected)) };
  } catch (error) {
    if (error instanceof LeaseMoved) {
      return { ok: false, reason: "fenced", partition: error.partition };
    }
    if (error instanceof VersionMoved || RACE_LOST.has((error as { code?: string }).code ?? "")) {
      return { ok: false, reason: "conflict" };
    }
    return {
      ok: false,
      reason: "error",
      error: error instanceof Error ? error : new Error(String(error)),
    };
  }
}

/**
 * The lease rows still held at the fences' holders and epochs, locked to the commit's end, in
 * partition order as a take updates them (pg_leases.ts): neither waits on the other in a cycle.
 */
function fenceStatement(fences: readonly Fence[]): Statement {
  return {
    text: `select l.partition from actor_store_leases l
      join unnest($1::int[], $2::text[], $3::bigint[]) as f(partition, holder, epoch)
        on l.partition = f.partition and l.holder = f.holder and l.epoch = f.epoch
      order by l.partition
      for share of l`,
    columns: columnsOf(fences.map((f) => [f.partition, f.holder, f.epoch]), 3),
  };
}

/** Throws LeaseMoved naming a fence whose lease row was not found at its holder and epoch. */
function checkFences(result: PromiseSettledResult<unknown>, fences: readonly Fence[]): void {
  if (result.status === "rejected") throw result.reason;
  const held = new Set((result.value as { partition: number }[]).map((r) => r.partition));
  const moved = fences.find((f) => !held.has(f.partition));
  // Two fences of one partition: one of them at least is stale.
  if (moved === undefined && held.size === fences.length) return;
  throw new LeaseMoved(moved?.partition ?? fences[0]!.partition);
}

/** The statements of one commit, in the order they run; those with nothing to do left out. */
function statementsOf(writes: readonly ActorWrite[], now: number): Statement[] {
  const updated = writes.filter((w) => w.expected !== null);
  const created = writes.filter((w) => w.expected === null);
  const claims = writes.flatMap((w) =>
    (w.indexClaims ?? []).map((c) => [c.index, c.key, w.type, w.id, w.record.tenant])
  );
  const claimed = new Set(claims.map(([index, key]) => `${index}\u0000${key}`));
  const statements: Statement[] = [
    {
      text: `update actor_store_actors a set version = w.version, record = w.record
        from unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::text[])
          as w(type, id, expected, version, record)
        where a.type = w.type and a.id = w.id and a.version = w.expected`,
      columns: columnsOf(
        updated.map((w) => [w.type, w.id, w.expected, versionAfter(w.expected), w.recordJson]),
        5,
      ),
      rows: updated.length,
    },
    {
      text: `insert into actor_store_actors (type, id, version, record)
        select * from unnest($1::text[], $2::text[], $3::bigint[], $4::text[])
        on conflict do nothing`,
      columns: columnsOf(created.map((w) => [w.type, w.id, 1, w.recordJson]), 4),
      rows: created.length,
    },
    {
      // A claimed key must be free: held by any actor (itself included), the commit fails.
      text: `insert into actor_store_index (index, key, type, id, tenant)
        select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])
        on conflict do nothing`,
      columns: columnsOf(claims, 5),
      rows: claims.length,
    },
    {
      text: `delete from actor_store_index i
        using unnest($1::text[], $2::text[]) as d(index, key)
        where i.index = d.index and i.key = d.key`,
      columns: columnsOf(writes.flatMap((w) => w.indexDelete.map((i) => [i.index, i.key])), 2),
    },
    {
      text: `insert into actor_store_index (index, key, type, id, tenant)
        select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])
        on conflict (index, key) do update
          set type = excluded.type, id = excluded.id, tenant = excluded.tenant`,
      columns: columnsOf(
        lastOf(
          writes.flatMap((w) =>
            w.indexSet.filter((i) => !claimed.has(`${i.index}\u0000${i.key}`))
              .map((i) => [i.index, i.key, w.type, w.id, w.record.tenant])
          ),
          2,
        ),
        5,
      ),
    },
    ...logStatements(writes),
    ...keptStatements(writes, now),
  ];
  return statements.filter((s) => (s.columns[0]?.length ?? 0) > 0);
}

/** The rows of an actor's log and schedule: its events, its timers. */
function logStatements(writes: readonly ActorWrite[]): Statement[] {
  return [
    {
      // The whole of what the runtime stored of each event (StoredEvent), as a JSON array.
      text: `insert into actor_store_events (type, id, seq, last_seq, events)
        select * from unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::text[])`,
      columns: columnsOf(
        writes.filter((w) => w.events.length > 0).map((w) => [
          w.type,
          w.id,
          w.events[0]!.seq,
          w.events[w.events.length - 1]!.seq,
          JSON.stringify(w.events),
        ]),
        5,
      ),
    },
    {
      text: `delete from actor_store_timers t
        using unnest($1::bigint[], $2::text[], $3::text[], $4::text[]) as d(at, type, id, name)
        where t.at = d.at and t.type = d.type and t.id = d.id and t.name = d.name`,
      columns: columnsOf(
        writes.flatMap((w) => w.timerDelete.map((t) => [t.at, w.type, w.id, t.name])),
        4,
      ),
    },
    {
      // Its partition, so the holder alone fires it (issue 43 item 3).
      text: `insert into actor_store_timers (at, type, id, name, partition)
        select * from unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::smallint[])
        on conflict do nothing`,
      columns: columnsOf(
        writes.flatMap((w) => w.timerSet.map((t) => [t.at, w.type, w.id, t.name, partitionOf(w)])),
        5,
      ),
    },
  ];
}

/** The rows kept for after the commit: replies, unpublished markers, outbox items. */
function keptStatements(writes: readonly ActorWrite[], now: number): Statement[] {
  const expiry = now + IDEMPOTENCY_TTL_MS;
  return [
    {
      text: `insert into actor_store_replies (type, id, key, reply, expires_at)
        select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[])
        on conflict (type, id, key) do update
          set reply = excluded.reply, expires_at = excluded.expires_at`,
      columns: columnsOf(
        lastOf(
          writes.flatMap((w) =>
            w.replies.map((r, i) => [
              w.type,
              w.id,
              r.key,
              replyTextsOf(w)[i] ?? null,
              r.permanent ? null : expiry,
            ])
          ),
          3,
        ),
        5,
      ),
    },
    {
      text: `insert into actor_store_unpublished (type, id, from_seq, partition)
        select * from unnest($1::text[], $2::text[], $3::bigint[], $4::smallint[])
        on conflict (type, id) do update
          set from_seq = excluded.from_seq, partition = excluded.partition`,
      columns: columnsOf(
        writes.filter((w) => w.unpublishedFrom !== null).map((
          w,
        ) => [w.type, w.id, w.unpublishedFrom, partitionOf(w)]),
        4,
      ),
    },
    {
      // The same item written again (a batch decided again) is the same item.
      text: `insert into actor_store_outbox
          (outbox, type, id, seq, n, tenant, at, bytes, payload, partition, request_id)
        select * from unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::int[],
          $6::text[], $7::bigint[], $8::int[], $9::text[], $10::smallint[], $11::text[])
        on conflict (outbox, type, id, seq, n) do update
          set tenant = excluded.tenant, at = excluded.at, bytes = excluded.bytes,
            payload = excluded.payload, partition = excluded.partition,
            request_id = excluded.request_id`,
      columns: columnsOf(
        lastOf(
          writes.flatMap((w) =>
            (w.outbox ?? []).map((o) => [
              o.outbox,
              o.type,
              o.id,
              o.seq,
              o.n,
              o.tenant,
              o.at,
              o.bytes,
              JSON.stringify(o.payload),
              partitionOf(o),
              o.requestId ?? null,
            ])
          ),
          5,
        ),
        11,
      ),
    },
  ];
}

/** Rows as one array per column, for unnest. */
function columnsOf(rows: readonly unknown[][], width: number): unknown[][] {
  return Array.from({ length: width }, (_, c) => rows.map((r) => r[c] ?? null));
}

/**
 * The last of the rows sharing their first `keyWidth` columns: one statement may not upsert a
 * row twice, and the last write of a key is the one that stays (as a later mutation would).
 */
function lastOf(rows: readonly unknown[][], keyWidth: number): unknown[][] {
  const byKey = new Map<string, unknown[]>();
  for (const r of rows) byKey.set(JSON.stringify(r.slice(0, keyWidth)), r);
  return [...byKey.values()];
}
