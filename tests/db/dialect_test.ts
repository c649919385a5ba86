/** Behaviour the app relies on from either driver: transactions, streaming, int8 parsing. */
import assert from "node:assert/strict";
import { AbortedTransactionError, sql } from "kysely";
import { openDatabase } from "../../src/db/db.ts";
import { jsonb } from "../../src/db/json.ts";
import { openTestDatabase, uniqueSchema } from "./helpers.ts";

function audit(id: string, tenant = "ten") {
  return { id, tenant, actor: "api_key:k1", action: "order.create", detail: jsonb({ id }) };
}

Deno.test("db.transaction(): an error rolls back every write made in it", async () => {
  await using t = await openTestDatabase();
  await assert.rejects(
    t.db.transaction().execute(async (trx) => {
      await trx.insertInto("audit_log").values(audit("a1")).execute();
      await trx.insertInto("audit_log").values(audit("a1")).execute(); // duplicate key
    }),
    (e: unknown) => e instanceof Error && "code" in e && e.code === "23505",
  );
  await t.db.transaction().execute(async (trx) => {
    await trx.insertInto("audit_log").values(audit("a2")).execute();
  });
  const ids = await t.db.selectFrom("audit_log").select("id").execute();
  assert.deepEqual(ids, [{ id: "a2" }]);
});

Deno.test("db.transaction(): concurrent transactions each commit whole", async () => {
  await using t = await openTestDatabase();
  await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      t.db.transaction().execute(async (trx) => {
        await trx.insertInto("audit_log").values(audit(`a${i}`, `t${i}`)).execute();
        await trx.insertInto("audit_log").values(audit(`b${i}`, `t${i}`)).execute();
        if (i % 3 === 0) throw new Error(`abandon ${i}`);
      }).catch((e: unknown) => e)),
  );
  const rows = await t.db.selectFrom("audit_log").select([
    "tenant",
    (eb) => eb.fn.countAll().as("n"),
  ])
    .groupBy("tenant").orderBy("tenant").execute();
  const expected = [1, 2, 4, 5, 7, 8, 10, 11].map((i) => `t${i}`).sort();
  assert.deepEqual(rows.map((r) => [r.tenant, Number(r.n)]), expected.map((x) => [x, 2]));
});

Deno.test("stream(): yields every matching row, a chunk at a time, and can stop early", async () => {
  await using t = await openTestDatabase();
  await t.db.insertInto("audit_log")
    .values(Array.from({ length: 25 }, (_, i) => audit(`a${String(i).padStart(2, "0")}`)))
    .execute();
  const query = t.db.selectFrom("audit_log").select("id").where("tenant", "=", "ten").orderBy("id");
  const seen: string[] = [];
  for await (const row of query.stream(10)) seen.push(row.id);
  assert.equal(seen.length, 25);
  assert.equal(seen[24], "a24");

  let taken = 0;
  for await (const _ of query.stream(4)) if (++taken === 5) break;
  assert.equal(taken, 5);
  // The connection is usable after an early exit.
  const one = await t.db.selectFrom("audit_log").select("id").where("id", "=", "a07").execute();
  assert.deepEqual(one, [{ id: "a07" }]);
});

Deno.test("int8 reads as a number when exact and as a bigint beyond 2^53", async () => {
  await using t = await openTestDatabase();
  const { rows } = await sql<{ small: unknown; big: unknown; n: unknown }>`
    select 42::int8 as small, 9007199254740993::int8 as big, count(*) as n
    from audit_log`.execute(t.db);
  assert.deepEqual(rows, [{ small: 42, big: 9007199254740993n, n: 0 }]);
});

Deno.test("savepoints: rolling back to one keeps what came before it", async () => {
  await using t = await openTestDatabase();
  const trx = await t.db.startTransaction().execute();
  try {
    await trx.insertInto("audit_log").values(audit("a1")).execute();
    const sp = await trx.savepoint("before a2").execute();
    await sp.insertInto("audit_log").values(audit("a2")).execute();
    await (await sp.rollbackToSavepoint("before a2").execute()).commit().execute();
  } catch (error) {
    await trx.rollback().execute();
    throw error;
  }
  assert.deepEqual(await t.db.selectFrom("audit_log").select("id").execute(), [{ id: "a1" }]);
});

Deno.test("PGlite dialect: committing a transaction a failed statement aborted throws", async () => {
  const handle = await openDatabase({ schema: uniqueSchema() });
  try {
    await assert.rejects(
      handle.db.transaction().execute(async (trx) => {
        await trx.insertInto("audit_log").values(audit("a1")).execute();
        await sql`select 1/0`.execute(trx).catch(() => "swallowed");
      }),
      AbortedTransactionError,
    );
    assert.deepEqual(await handle.db.selectFrom("audit_log").select("id").execute(), []);
  } finally {
    await handle.close();
  }
});
