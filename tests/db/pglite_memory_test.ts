/**
 * In-memory PGlite instances are kept for the next opener (src/db/pglite_memory.ts): the next
 * opener sees none of the last one's rows, settings or catalog changes, and the last one's
 * handle can no longer reach the instance.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { openDatabase } from "../../src/db/db.ts";
import { jsonb } from "../../src/db/json.ts";
import { uniqueSchema } from "./helpers.ts";

const embedded = Deno.env.get("DATABASE_URL") === undefined;

function audit(id: string) {
  return { id, tenant: "ten", actor: "api_key:k1", action: "order.create", detail: jsonb({ id }) };
}

Deno.test({
  name: "in-memory PGlite: the next opener finds no rows, no cursor and no setting of the last",
  ignore: !embedded,
  async fn() {
    for (let round = 0; round < 3; round++) {
      const first = await openDatabase({ schema: uniqueSchema() });
      await first.db.insertInto("audit_log").values(audit(`a${round}`)).execute();
      await sql`set statement_timeout to 1234`.execute(first.db);
      await sql`declare left_open cursor with hold for select 1`.execute(first.db);
      await first.close();
      await assert.rejects(
        first.db.selectFrom("audit_log").selectAll().execute(),
        /destroyed|closed/,
      );

      const schema = uniqueSchema();
      const next = await openDatabase({ schema });
      try {
        assert.deepEqual(await next.db.selectFrom("audit_log").selectAll().execute(), []);
        const { rows } = await sql<{ s: string; t: string }>`
          select current_schema() as s, current_setting('statement_timeout') as t`
          .execute(next.db);
        assert.deepEqual(rows, [{ s: schema, t: "0" }]);
        // The cursor of the same name is free again.
        await sql`declare left_open cursor with hold for select 1`.execute(next.db);
        await sql`close left_open`.execute(next.db);
      } finally {
        await next.close();
      }
    }
  },
});

Deno.test({
  name: "in-memory PGlite: a catalog the last opener changed is not handed to the next",
  ignore: !embedded,
  async fn() {
    for (let round = 0; round < 3; round++) {
      const first = await openDatabase({ schema: uniqueSchema() });
      await sql`alter table audit_log add constraint poison check (id <> 'x')`.execute(first.db);
      await sql`create table extra (id int)`.execute(first.db);
      await first.close();

      const next = await openDatabase({ schema: uniqueSchema() });
      try {
        await next.db.insertInto("audit_log").values(audit("x")).execute();
        await sql`create table extra (id int)`.execute(next.db);
      } finally {
        await next.close();
      }
    }
  },
});

Deno.test({
  name: "in-memory PGlite: an opener closed inside a transaction leaves nothing of it",
  ignore: !embedded,
  async fn() {
    const first = await openDatabase({ schema: uniqueSchema() });
    const held = Promise.withResolvers<void>();
    const taken = Promise.withResolvers<void>();
    const work = first.db.transaction().execute(async (trx) => {
      await trx.insertInto("audit_log").values(audit("in-flight")).execute();
      taken.resolve();
      await held.promise;
    });
    await taken.promise;
    const closing = first.close();
    held.resolve();
    await work;
    await closing;
    const next = await openDatabase({ schema: uniqueSchema() });
    try {
      assert.deepEqual(await next.db.selectFrom("audit_log").selectAll().execute(), []);
    } finally {
      await next.close();
    }
  },
});

Deno.test({
  name: "in-memory PGlite: opened without initdb's template databases, on small shared buffers",
  ignore: !embedded,
  async fn() {
    const h = await openDatabase({ schema: uniqueSchema() });
    try {
      const { rows } = await sql<{ names: string[]; buffers: string }>`
        select array(select datname::text from pg_database order by 1) as names,
          current_setting('shared_buffers') as buffers`.execute(h.db);
      assert.deepEqual(rows, [{ names: ["postgres"], buffers: "16MB" }]);
    } finally {
      await h.close();
    }
  },
});
