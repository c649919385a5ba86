/**
 * Partition leases on Postgres (store.ts LeaseStore; issue 43 item 2): a row per partition taken
 * at least once, changed by single statements (compare-and-set in their `where`). A commit of
 * fenced writes locks the rows of its partitions for share and checks their holder and epoch in
 * its own transaction (pg_commit.ts): a take waits for it, and fails every later commit of the
 * older epoch.
 */
import type postgres from "postgres";
import { PARTITIONS } from "../limits.ts";
import type { Fence, Lease, LeaseStore } from "./store.ts";

export class PgLeases implements LeaseStore {
  readonly #sql: postgres.Sql;

  constructor(sql: postgres.Sql) {
    this.#sql = sql;
  }

  async all(): Promise<Lease[]> {
    const found: Lease[] = Array.from(
      { length: PARTITIONS },
      (_, partition) => ({ partition, holder: null, epoch: 0, expires: 0 }),
    );
    const rows = await this.#sql<Lease[]>`
      select partition, holder, epoch, expires from actor_store_leases where partition < ${PARTITIONS}`;
    for (const r of rows) {
      found[r.partition] = {
        partition: r.partition,
        holder: r.holder,
        epoch: r.epoch,
        expires: r.expires,
      };
    }
    return found;
  }

  async take(partitions: readonly number[], holder: string, now: number, expires: number) {
    if (partitions.length === 0) return [];
    // In partition order, as every instance takes them: two takes never wait on each other in a
    // cycle.
    const ordered = [...partitions].sort((a, b) => a - b);
    const rows = await this.#sql<{ partition: number; epoch: number }[]>`
      insert into actor_store_leases as l (partition, holder, epoch, expires)
      select p, ${holder}, 1, ${expires} from unnest(${this.#sql.array(ordered)}::int[]) as p
      on conflict (partition) do update
        set holder = excluded.holder, epoch = l.epoch + 1, expires = excluded.expires
        where l.expires <= ${now}
      returning partition, epoch`;
    return rows.map((r) => ({ partition: r.partition, holder, epoch: r.epoch, expires }))
      .sort((a, b) => a.partition - b.partition);
  }

  renew(holder: string, held: readonly Fence[], expires: number): Promise<number[]> {
    return this.#extend(holder, held, expires);
  }

  async release(holder: string, held: readonly Fence[]): Promise<void> {
    await this.#extend(holder, held, 0);
  }

  async presence(instance: string, now: number, until: number): Promise<string[]> {
    const sql = this.#sql;
    if (until > now) {
      await sql`insert into actor_store_instances (instance, until) values (${instance}, ${until})
        on conflict (instance) do update set until = excluded.until`;
    }
    // The dead go (this one too, leaving): one that comes back is written again.
    await sql`delete from actor_store_instances where until <= ${now}
      or (instance = ${instance} and ${until} <= ${now})`;
    const rows = await sql<{ instance: string }[]>`
      select instance from actor_store_instances where until > ${now} order by instance`;
    return rows.map((r) => r.instance);
  }

  /** Sets the expiry of the leases `holder` still holds at the epochs named (compare-and-set). */
  async #extend(holder: string, held: readonly Fence[], expires: number): Promise<number[]> {
    if (held.length === 0) return [];
    const sql = this.#sql;
    const rows = await sql<{ partition: number }[]>`
      update actor_store_leases l set expires = ${expires}
      from unnest(${sql.array(held.map((f) => f.partition))}::int[],
        ${sql.array(held.map((f) => f.epoch))}::bigint[]) as h(partition, epoch)
      where l.partition = h.partition and l.epoch = h.epoch and l.holder = ${holder}
      returning l.partition`;
    return rows.map((r) => r.partition).sort((a, b) => a - b);
  }
}
