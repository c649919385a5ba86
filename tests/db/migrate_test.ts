import assert from "node:assert/strict";
import { sql } from "kysely";
import { NO_MIGRATIONS } from "kysely/migration";
import { openDatabase } from "../../src/db/db.ts";
import { dropSchema, migrateSchemaTo, migrateToLatest } from "../../src/db/migrate.ts";
import { upsertSnapshot } from "../../src/db/projection.ts";
import { after, MIGRATIONS, openTestDatabase, tablesIn, uniqueSchema } from "./helpers.ts";

const TABLES = [
  "alerts",
  "audit_log",
  "billing_exports",
  "board_counts",
  "business_batches",
  "business_checkouts",
  "business_subscriptions",
  "business_trips",
  "checklists",
  "claims",
  "client_addresses",
  "client_stores",
  "courier_clients",
  "customs_crossings",
  "deferred_work",
  "driver_positions",
  "invoices",
  "kysely_migration",
  "kysely_migration_lock",
  "ledger_entries",
  "ledger_watermarks",
  "login_throttles",
  "network_runs",
  "outbound_events",
  "parked_changes",
  "pool_drivers",
  "quotes",
  "rate_counters",
  "recipient_rate_counters",
  "retail_packets",
  "sandbox_inbox",
  "sandbox_receiver_steps",
  "shipments",
  "snapshots",
];

Deno.test("migrateToLatest() run twice: the second run does nothing and keeps the rows", async () => {
  await using t = await openTestDatabase();
  assert.deepEqual(await tablesIn(t, t.schema), TABLES);
  await upsertSnapshot(t.db, { type: "order", id: "o1", tenant: "ten", version: 1, data: {} });

  assert.deepEqual(await migrateToLatest(t.db, t.schema), []);

  assert.deepEqual(await tablesIn(t, t.schema), TABLES);
  const applied = await sql<{ name: string }>`
    select name from ${sql.table(`${t.schema}.kysely_migration`)}`.execute(t.db);
  assert.deepEqual(applied.rows.map((r) => r.name), MIGRATIONS);
  const rows = await t.db.selectFrom("snapshots").select(["id", "version"]).execute();
  assert.deepEqual(rows, [{ id: "o1", version: 1 }]);
});

Deno.test("migrations: down drops every table of the schema and up makes them again", async () => {
  await using t = await openTestDatabase();
  const down = await migrateSchemaTo(t.db, t.schema, NO_MIGRATIONS);
  assert.equal(down.error, undefined);
  assert.deepEqual(await tablesIn(t, t.schema), ["kysely_migration", "kysely_migration_lock"]);

  assert.deepEqual(await migrateToLatest(t.db, t.schema), MIGRATIONS);
  assert.deepEqual(await tablesIn(t, t.schema), TABLES);
});

Deno.test("openDatabase() refuses a schema name that would need quoting", async () => {
  await assert.rejects(openDatabase({ schema: "Live-Env" }), RangeError);
  await assert.rejects(openDatabase({ schema: 'x"; drop table y; --' }), RangeError);
});

Deno.test("openDatabase() with PGlite keeps its rows in dataDir across a reopen", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "pglite_" });
  const schema = uniqueSchema();
  try {
    const first = await openDatabase({ dataDir, schema });
    try {
      assert.equal(first.kind, "pglite");
      await upsertSnapshot(first.db, {
        type: "order",
        id: "o1",
        tenant: "ten",
        version: 3,
        data: [1],
      });
    } finally {
      await first.close();
    }
    const second = await openDatabase({ dataDir, schema });
    try {
      const row = await second.db.selectFrom("snapshots").select(["version", "data"])
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { version: 3, data: [1] });
    } finally {
      await second.close();
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("migrations: a client's shipment list, newest first, can be read from its index", async () => {
  await using t = await openTestDatabase();
  const plan = await t.db.transaction().execute(async (trx) => {
    // With a handful of rows a scan is cheaper; forbid it to see that the index fits the query.
    await sql`set local enable_seqscan = off`.execute(trx);
    return await sql<{ "QUERY PLAN": string }>`explain
      select id, data from snapshots
      where type = 'shipment' and tenant = 'ten' and data->>'client_id' = 'cli_1'
      order by (data->>'booked_at')::bigint desc, id desc limit 50`.execute(trx);
  });
  const text = plan.rows.map((r) => r["QUERY PLAN"]).join("\n");
  assert.match(text, /snapshots_client_shipments_booked_idx/);
  assert.doesNotMatch(text, /Sort/, "the index gives the order: no sort step");
});

Deno.test("migrations: a client's shipment by external reference can be found from its index", async () => {
  await using t = await openTestDatabase();
  const plan = await t.db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    // The query of bookedBefore (src/courier/flows/booking/claim.ts), under unique_external_reference.
    return await sql<{ "QUERY PLAN": string }>`explain
      select id from snapshots
      where type = 'shipment' and tenant = 'ten' and data->>'client_id' = 'cli_1'
        and coalesce(data->>'client_order_reference', data->>'external_billing_reference') = 'PO-1'
        and id <> 'WB1'
      order by (data->>'booked_at')::bigint limit 1`.execute(trx);
  });
  const text = plan.rows.map((r) => r["QUERY PLAN"]).join("\n");
  assert.match(text, /snapshots_shipment_external_reference_idx/);
});

Deno.test("migrations: the completion sweep pages through closed shipments on their index", async () => {
  await using t = await openTestDatabase();
  const plan = await t.db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    // The query of completedShipments (src/courier/reactors/billing_events.ts), past its first page.
    return await sql<{ "QUERY PLAN": string }>`explain
      select id, tenant, data->>'status' as status, (data->>'closed_at')::bigint as closed_at
      from snapshots
      where type = 'shipment' and data->>'closed_at' is not null
        and (data->>'closed_at')::bigint >= 1000 and (data->>'closed_at')::bigint < 9000
        and ((data->>'closed_at')::bigint, id) > (2000::bigint, 'WB1')
      order by (data->>'closed_at')::bigint, id limit 500`.execute(trx);
  });
  const text = plan.rows.map((r) => r["QUERY PLAN"]).join("\n");
  assert.match(text, /snapshots_shipment_closed_idx/);
  assert.doesNotMatch(text, /Sort/, "the index gives the order: no sort step");
});

Deno.test("migrations: the charge sweep reads a round's entries on their index, not the ledger", async () => {
  await using t = await openTestDatabase();
  const plan = await t.db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    // The query of BillingEvents.sweep (src/courier/reactors/billing_events.ts), past its first page.
    return await sql<{ "QUERY PLAN": string }>`explain
      select le.* from ledger_entries as le
      where le.event_id is not null
        and le.created_at >= '2026-11-01T00:00:00Z' and le.created_at < '2026-11-02T00:00:00Z'
        and (le.created_at, le.event_id) > ('2026-11-01T00:00:00Z'::timestamptz, 'evt_1')
        and not exists (select 1 from snapshots as s
          where s.type = 'outbound_event' and s.id = le.event_id)
      order by le.created_at, le.event_id limit 500`.execute(trx);
  });
  const text = plan.rows.map((r) => r["QUERY PLAN"]).join("\n");
  assert.match(text, /ledger_entries_event_created_idx/);
  assert.doesNotMatch(text, /Sort/, "the index gives the order: no sort step");
});

Deno.test("migrations: 0005 keys entries by kind too and names the kind a note corrects", async () => {
  await using t = await openTestDatabase();
  const to0004 = await migrateSchemaTo(t.db, t.schema, "0004_client_lists");
  assert.equal(to0004.error, undefined);
  const row = (reference: string, seq: number, kind: string, corrects: string | null) =>
    sql`
    insert into ${sql.table(`${t.schema}.ledger_entries`)} (tenant, client_id, reference, seq,
      period, kind, amount_minor, currency, status, payer, recoverable, corrects, created_at)
    values ('ten', 'c1', ${reference}, ${seq}, '2026-01', ${kind}, 100, 'BWP', 'posted',
      'client', false, ${corrects}, now())`;
  await row("WB-1", 1, "shipment", null).execute(t.db);
  await row("CN-1", 2, "credit_note", "WB-1").execute(t.db);
  await assert.rejects(
    row("WB-1", 3, "payment", null).execute(t.db),
    "the old key: one per reference",
  );

  assert.deepEqual(await migrateToLatest(t.db, t.schema), after("0004_client_lists"));
  await row("WB-1", 3, "payment", null).execute(t.db);
  const rows = await t.db.selectFrom("ledger_entries").select([
    "reference",
    "kind",
    "corrects_kind",
  ])
    .orderBy("seq").execute();
  assert.deepEqual(rows, [
    { reference: "WB-1", kind: "shipment", corrects_kind: null },
    { reference: "CN-1", kind: "credit_note", corrects_kind: "shipment" },
    { reference: "WB-1", kind: "payment", corrects_kind: null },
  ]);
  await assert.rejects(row("WB-1", 4, "payment", null).execute(t.db), "one per kind and reference");
});

Deno.test({
  name: "openDatabase() migrates while another process drops its own schemas meanwhile",
  // PGlite has one connection: nothing runs meanwhile there.
  ignore: !Deno.env.get("DATABASE_URL"),
  async fn() {
    const url = Deno.env.get("DATABASE_URL")!;
    let migrating = true;
    // Another process's tests: schemas made and dropped all the while (as test helpers drop).
    const churn = (async () => {
      const own = uniqueSchema();
      const other = await openDatabase({ url, schema: own });
      try {
        while (migrating) {
          const s = uniqueSchema();
          await sql`create schema ${sql.id(s)}`.execute(other.db);
          await sql`create table ${sql.table(`${s}.x`)} (id int)`.execute(other.db);
          await dropSchema(other.db, s);
        }
        await dropSchema(other.db, own);
      } finally {
        await other.close();
      }
    })();
    try {
      // The migrator looks at every schema's tables: each look may meet a schema being dropped.
      for (let i = 0; i < 20; i++) {
        await using t = await openTestDatabase();
        assert.deepEqual(await migrateToLatest(t.db, t.schema), []);
      }
    } finally {
      migrating = false;
      await churn;
    }
  },
});

Deno.test("migrations: 0007 keeps allocations on ledger rows; rows from before have none known", async () => {
  await using t = await openTestDatabase();
  const to0006 = await migrateSchemaTo(t.db, t.schema, "0006_shipment_external_reference");
  assert.equal(to0006.error, undefined);
  await sql`
    insert into ${sql.table(`${t.schema}.ledger_entries`)} (tenant, client_id, reference, seq,
      period, kind, amount_minor, currency, status, payer, recoverable, created_at)
    values ('ten', 'c1', 'EFT-1', 1, '2026-01', 'payment', -100, 'BWP', 'posted', 'client',
      false, now())`.execute(t.db);
  assert.deepEqual(
    await migrateToLatest(t.db, t.schema),
    after("0006_shipment_external_reference"),
  );
  const [row] = await t.db.selectFrom("ledger_entries").select(["reference", "allocations"])
    .execute();
  assert.deepEqual(row, { reference: "EFT-1", allocations: null });
});

Deno.test("migrations: 0013 starts each account's ledger watermark at its highest entry seq there", async () => {
  await using t = await openTestDatabase();
  const to0012 = await migrateSchemaTo(t.db, t.schema, "0012_resolved_charges");
  assert.equal(to0012.error, undefined);
  const row = (client: string, reference: string, seq: number) =>
    sql`
      insert into ${sql.table(`${t.schema}.ledger_entries`)} (tenant, client_id, reference, seq,
        period, kind, amount_minor, currency, status, payer, recoverable, created_at)
      values ('ten', ${client}, ${reference}, ${seq}, '2026-01', 'shipment', 100, 'BWP',
        'posted', 'client', false, now())`;
  await row("c1", "WB-1", 1).execute(t.db);
  await row("c1", "WB-2", 3).execute(t.db);
  await row("c2", "WB-3", 1).execute(t.db);
  assert.deepEqual(await migrateToLatest(t.db, t.schema), after("0012_resolved_charges"));
  const marks = await t.db.selectFrom("ledger_watermarks").select(["client_id", "seq"])
    .orderBy("client_id").execute();
  assert.deepEqual(marks, [{ client_id: "c1", seq: 3 }, { client_id: "c2", seq: 1 }]);
});

Deno.test("migrations: 0015 holds each account's watermark before the ledger changes parked then", async () => {
  await using t = await openTestDatabase();
  const to0014 = await migrateSchemaTo(t.db, t.schema, "0014_parked_changes");
  assert.equal(to0014.error, undefined);
  const park = (projection: string, digest: string, payload: unknown) =>
    sql`
      insert into ${sql.table(`${t.schema}.parked_changes`)} (projection, digest, subject,
        payload, error)
      values (${projection}, ${digest}, 'live.ten.x.c1', ${JSON.stringify(payload)}, 'e')`
      .execute(t.db);
  const owner = { tenant: "ten", client_id: "c1" };
  await park("ledger", "d1", {
    owner,
    subject: "s",
    events: [
      { kind: "invoices_issued", invoices: [] },
      { kind: "fx_resolved", resolution: { seq: 7 } },
      { kind: "entry_posted", entry: { seq: 5 } },
    ],
  });
  await park("ledger", "d2", { owner, subject: "s", events: [{ kind: "invoices_issued" }] });
  await park("ledger", "d3", "not a change");
  await park("snapshots", "d4", { owner, events: [{ entry: { seq: 1 } }] });
  // Up to 0015 only: 0016 parks the snapshots' changes for the read tables too.
  const to0015 = await migrateSchemaTo(t.db, t.schema, "0015_parked_ledger_holds");
  assert.equal(to0015.error, undefined);
  assert.deepEqual(to0015.results?.map((r) => r.migrationName), ["0015_parked_ledger_holds"]);
  const rows = await t.db.selectFrom("parked_changes")
    .select(["digest", "tenant", "actor_id", "holds_seq"]).orderBy("digest").execute();
  assert.deepEqual(rows, [
    { digest: "d1", tenant: "ten", actor_id: "c1", holds_seq: 5 },
    { digest: "d2", tenant: null, actor_id: null, holds_seq: null },
    { digest: "d3", tenant: null, actor_id: null, holds_seq: null },
    { digest: "d4", tenant: null, actor_id: null, holds_seq: null },
  ]);
});
