/**
 * insertRows (src/db/json.ts): a batch's rows go in one JSON parameter, so the statement's text
 * is one whatever their number (postgres.js keeps every text it prepared, per connection), and
 * every column type a batch writer uses reads back as written, on PGlite and on Postgres.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { insertRows } from "../../src/db/json.ts";
import { openTestDatabase } from "./helpers.ts";

const position = (i: number) => ({
  driver_id: `drv_${i}`,
  at: 1_796_000_000_000 + i,
  lat: -24.6545 + i / 1000,
  lng: 25.9086,
  accuracy: i % 2 === 0 ? null : 5.5,
  heading: null,
});

Deno.test("insertRows: one statement text for 1, 3 and 500 rows, one parameter each", async () => {
  await using t = await openTestDatabase();
  const texts = new Set<string>();
  for (const n of [1, 3, 500]) {
    const rows = Array.from({ length: n }, (_, i) => position(i));
    const q = insertRows(t.db, "driver_positions", rows).compile();
    texts.add(q.sql);
    assert.equal(q.parameters.length, 1);
  }
  assert.equal(texts.size, 1);
});

Deno.test("insertRows: numbers, nulls, text and jsonb read back as written", async () => {
  await using t = await openTestDatabase();
  const positions = [position(1), position(2)];
  await insertRows(t.db, "driver_positions", positions).execute();
  const got = await t.db.selectFrom("driver_positions").selectAll().orderBy("at").execute();
  assert.deepEqual(got.map((r) => ({ ...r, at: Number(r.at) })), positions);

  const delivery = {
    id: "dlv_1",
    tenant: "biz_1",
    version: 3,
    event: "trip.created",
    event_id: "evt_1",
    received_at: 1_796_000_000_123,
    headers: { "X-Service-Event": "trip.created", quote: 'a "b" \\ c' },
    body: '{"id":"evt_1"}',
  };
  await insertRows(t.db, "sandbox_inbox", [delivery]).execute();
  const { rows } = await sql<{ headers: unknown; received_at: unknown; body: string }>`
    select headers, received_at, body from sandbox_inbox where id = 'dlv_1'`.execute(t.db);
  const headers = typeof rows[0]!.headers === "string"
    ? JSON.parse(rows[0]!.headers)
    : rows[0]!.headers;
  assert.deepEqual(headers, delivery.headers);
  assert.equal(Number(rows[0]!.received_at), delivery.received_at);
  assert.equal(rows[0]!.body, delivery.body);
});

Deno.test("insertRows: a column worked out in SQL from the row, and no rows refused", async () => {
  await using t = await openTestDatabase();
  await insertRows(t.db, "ledger_watermarks", [{ tenant: "biz_1", client_id: "cli_1" }], {
    seq: sql`length(r.client_id) * 10`,
  }).execute();
  const row = await t.db.selectFrom("ledger_watermarks").selectAll().executeTakeFirstOrThrow();
  assert.equal(Number(row.seq), 50);
  assert.throws(() => insertRows(t.db, "ledger_watermarks", []), RangeError);
});
