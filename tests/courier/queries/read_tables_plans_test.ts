/**
 * The typed read tables' indexes (migration 0016): the board's page and a courier's alerts are
 * read from an index in order, with no sort step.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { openTestDatabase, type TestDatabase } from "../../db/helpers.ts";

/** The plan of `query` with sequential scans forbidden (a handful of rows would take one). */
async function planOf(t: TestDatabase, query: ReturnType<typeof sql>): Promise<string> {
  const plan = await t.db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    return await sql<{ "QUERY PLAN": string }>`explain ${query}`.execute(trx);
  });
  return plan.rows.map((r) => r["QUERY PLAN"]).join("\n");
}

Deno.test("migration 0016: the board's page, unfiltered or by health, is read from an index in order", async () => {
  await using t = await openTestDatabase();
  const page = (health: string | null) =>
    sql`select * from shipments where tenant = 'ten' and closed_at is null
      ${health === null ? sql`` : sql`and health = ${health}`}
      order by first_due_at asc nulls last, id limit 100`;
  const all = await planOf(t, page(null));
  assert.match(all, /shipments_board_idx/);
  assert.doesNotMatch(all, /Sort/, "the index gives the order: no sort step");
  const late = await planOf(t, page("late"));
  assert.match(late, /shipments_board_health_idx/);
  assert.doesNotMatch(late, /Sort/, "the index gives the order: no sort step");
});

Deno.test("migration 0016: a courier's alerts, newest first, are read from their index in order", async () => {
  await using t = await openTestDatabase();
  const plan = await planOf(
    t,
    sql`select id from alerts where tenant = 'ten' and (raised_at, id) < (5::bigint, 'a')
      order by raised_at desc, id desc limit 51`,
  );
  assert.match(plan, /alerts_raised_idx/);
  assert.doesNotMatch(plan, /Sort/, "the index gives the order: no sort step");
});
