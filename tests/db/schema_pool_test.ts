import assert from "node:assert/strict";
import { Kysely, sql } from "kysely";
import { PostgresJSDialect } from "kysely-postgres-js";
import postgres from "postgres";
import { type DatabaseHandle, openDatabase } from "../../src/db/db.ts";
import { dropSchema } from "../../src/db/migrate.ts";
import { hex } from "../../src/domain/secrets.ts";
import { claimSchema } from "../helpers/schema_pool.ts";

async function rateCounters(h: DatabaseHandle): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from rate_counters`
    .execute(h.db);
  return rows[0]!.n;
}

Deno.test({
  name:
    "schema pool: a schema handed back is claimed again empty and as migrated; a held one is not",
  // Postgres only: an embedded PGlite is each test's own (pglite_memory.ts).
  ignore: !Deno.env.get("DATABASE_URL"),
  async fn() {
    const url = Deno.env.get("DATABASE_URL")!;
    // A pool of its own, so no other test process claims its schemas meanwhile.
    const version = hex(crypto.getRandomValues(new Uint8Array(8)));
    const made = new Set<string>();
    try {
      const first = (await claimSchema(url, { version }))!;
      made.add(first.schema);
      const h = await openDatabase({ url, schema: first.schema });
      try {
        await sql`insert into rate_counters values ('k', 1, 1, 1, 1, 1, 30, 1000)`.execute(h.db);
        // A test that failed before dropping what it added to the catalog.
        await sql`alter table rate_counters add constraint poison check (key <> 'p')`
          .execute(h.db);
        const held = (await claimSchema(url, { version }))!;
        made.add(held.schema);
        await held.release();
        assert.notEqual(held.schema, first.schema);
      } finally {
        await h.close();
        await first.release();
      }
      const again = (await claimSchema(url, { version }))!;
      const next = await openDatabase({ url, schema: again.schema });
      try {
        assert.equal(again.schema, first.schema);
        assert.equal(await rateCounters(next), 0);
        // The constraint is gone: the schema was made again.
        await sql`insert into rate_counters values ('p', 1, 1, 1, 1, 1, 30, 1000)`.execute(next.db);
        assert.equal(await rateCounters(next), 1);
      } finally {
        await next.close();
        await again.release();
      }
    } finally {
      const client = postgres(url, { max: 1, onnotice: () => {} });
      const db = new Kysely<unknown>({ dialect: new PostgresJSDialect({ postgres: client }) });
      for (const schema of made) await dropSchema(db, schema);
      await db.destroy();
    }
  },
});
