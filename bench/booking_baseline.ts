/**
 * The booking flow done the conventional way, as the booking bench's baseline: Hono routes of the
 * same shape as ours, one Postgres transaction per booking with a conditional UPDATE ...
 * RETURNING on the account's balance. It records what a booking records: the held offer, the
 * shipment with its pricing and tracking token, its ledger entry and its billing event (an outbox
 * row in the same transaction).
 */
import { type Context, Hono } from "hono";
import postgres from "postgres";
import { PGlite } from "@electric-sql/pglite";
import { hashSecret } from "../src/domain/secrets.ts";
import { priceOption } from "../src/courier/rules/pricing.ts";
import type { RateCardTerms } from "../src/courier/rules/rate_card.ts";
import { newId } from "../src/runtime/ids.ts";
import type { Target } from "./booking_load.ts";

const TERMS: RateCardTerms = {
  currency: "BWP",
  base_charge: 5_000,
  per_kg: 1_000,
  included_grams: 1_000,
  volumetric_divisor: 5_000,
  minimum_charge: 0,
  collection_fee: 0,
  delivery_fee: 0,
  discount_bp: 0,
  surcharge_bp: 0,
  tax_bp: 1_400,
  tax_inclusive: false,
  tax_label: "VAT",
  corridors: [],
  liability_cover_bp: 0,
  redelivery_fee: 0,
  return_fee: 0,
  claim_window_days: 0,
  customs_admin_fee: 0,
  errand_fee: 0,
  failed_collection_fee: 0,
  cold_chain_fee: 0,
  waiting_fee: 0,
};

type Rows = Promise<Record<string, unknown>[]>;
type Query = (text: string, params?: unknown[]) => Rows;

interface Sql {
  unsafe: Query;
  begin<T>(fn: (q: Query) => Promise<T>): Promise<T>;
  end(): Promise<void>;
  label: string;
}

async function openSql(pool: number, url: string | undefined): Promise<Sql> {
  if (url) {
    const sql = postgres(url, { max: pool, onnotice: () => {} });
    return {
      label: `Postgres, pool of ${pool}`,
      unsafe: (t, p) => sql.unsafe(t, (p ?? []) as never[]) as unknown as Rows,
      begin: (fn) =>
        sql.begin((tx) =>
          fn((t, p) => tx.unsafe(t, (p ?? []) as never[]) as unknown as Rows)
        ) as never,
      end: () => sql.end(),
    };
  }
  const db = await PGlite.create();
  const q = async (t: string, p?: unknown[]) =>
    (await db.query<Record<string, unknown>>(t, p)).rows;
  return {
    label: "embedded PGlite (not a fair baseline)",
    unsafe: q,
    begin: (fn) =>
      db.transaction((tx) =>
        fn(async (t, p) => (await tx.query<Record<string, unknown>>(t, p)).rows)
      ),
    end: () => db.close(),
  };
}

/** The balance did not cover the booking: rolls the transaction back. */
class Refused extends Error {}

/** The conventional design: Hono routes, one Postgres transaction per booking. */
export async function baselineTarget(
  accounts: number,
  pool: number,
  databaseUrl: string | undefined = Deno.env.get("DATABASE_URL"),
): Promise<Target & { label: string }> {
  const sql = await openSql(pool, databaseUrl);
  const s = `bench_${crypto.randomUUID().replaceAll("-", "").slice(0, 8)}`;
  await createTables(sql, s);
  const keys = await seedAccounts(sql, s, accounts);
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    baselineApp(sql, s).fetch,
  );
  return {
    label: sql.label,
    base: `http://127.0.0.1:${server.addr.port}`,
    keys,
    async close() {
      await server.shutdown();
      await sql.unsafe(`drop schema ${s} cascade`);
      await sql.end();
    },
  };
}

async function createTables(sql: Sql, s: string): Promise<void> {
  await sql.unsafe(`create schema ${s}`);
  await sql.unsafe(
    `create table ${s}.accounts (id text primary key, key_hash text unique, balance bigint not null)`,
  );
  await sql.unsafe(
    `create table ${s}.offers (id text primary key, account text not null, valid_until bigint not null, options jsonb not null, waybill text)`,
  );
  await sql.unsafe(
    `create table ${s}.shipments (waybill text primary key, account text not null, total bigint not null, pricing jsonb not null, tracking_token text not null unique)`,
  );
  // The same flow as ours: the booking's ledger entry (a row for statements and exports) and its
  // shipment.booked billing event (an outbox row the sender picks up) commit with the booking.
  await sql.unsafe(
    `create table ${s}.ledger_entries (id bigint generated always as identity primary key, account text not null, reference text not null, kind text not null, amount bigint not null, currency text not null, created_at timestamptz not null default now())`,
  );
  await sql.unsafe(`create index on ${s}.ledger_entries (account, id)`);
  await sql.unsafe(
    `create table ${s}.billing_events (id bigint generated always as identity primary key, account text not null, type text not null, body jsonb not null, sent_at timestamptz)`,
  );
  await sql.unsafe(`create index on ${s}.billing_events (id) where sent_at is null`);
}

/** `accounts` accounts with a balance well beyond the load; their keys. */
async function seedAccounts(sql: Sql, s: string, accounts: number): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < accounts; i++) {
    const key = `ck_${crypto.randomUUID()}`;
    keys.push(key);
    await sql.unsafe(`insert into ${s}.accounts values ($1, $2, $3)`, [
      `a${i}`,
      await hashSecret(key),
      1_000_000_000,
    ]);
  }
  return keys;
}

function baselineApp(sql: Sql, s: string): Hono {
  const app = new Hono();
  const accountOf = async (c: Context) => {
    const rows = await sql.unsafe(`select id from ${s}.accounts where key_hash = $1`, [
      await hashSecret(c.req.header("X-Client-API-Key") ?? ""),
    ]);
    return rows[0]?.id as string | undefined;
  };
  app.post("/api/client/prices", async (c) => {
    const account = await accountOf(c);
    if (!account) return c.json({ success: false, code: "unauthenticated" }, 401);
    const body = await c.req.json();
    const option = priceOption(TERMS, { code: "express", name: "Express", adjustment_bp: 0 }, {
      parcels: body.parcels,
      from_country: body.from_country,
      to_country: body.to_country,
      declared_value_minor: null,
      liability_cover: false,
    });
    const id = newId("prc");
    await sql.unsafe(`insert into ${s}.offers values ($1, $2, $3, $4, null)`, [
      id,
      account,
      Date.now() + 30 * 60_000,
      JSON.stringify([option]),
    ]);
    return c.json({ success: true, data: { prices_reference: id, options: [option] } });
  });
  app.post("/api/client/book", async (c) => {
    const account = await accountOf(c);
    if (!account) return c.json({ success: false, code: "unauthenticated" }, 401);
    const body = await c.req.json();
    const result = await sql.begin((q) => book(q, s, account, body)).catch((e) => {
      if (e instanceof Refused) return { status: 422 as const };
      throw e;
    });
    return c.json({ success: result.status < 300, data: result }, result.status);
  });
  return app;
}

/** One booking in one transaction: the offer taken, the shipment, its ledger entry and event. */
async function book(
  q: Query,
  s: string,
  account: string,
  body: { prices_reference: string; service_level: string },
) {
  const [offer] = await q(
    `select * from ${s}.offers where id = $1 and account = $2 for update`,
    [
      body.prices_reference,
      account,
    ],
  );
  if (!offer) return { status: 404 as const };
  if (offer.waybill) return { status: 200 as const, waybill: offer.waybill };
  if (Number(offer.valid_until) < Date.now()) return { status: 422 as const };
  const options =
    (typeof offer.options === "string" ? JSON.parse(offer.options) : offer.options) as {
      code: string;
      total_minor: number;
      lines: unknown[];
    }[];
  const option = options.find((o) => o.code === body.service_level);
  if (!option) return { status: 422 as const };
  const waybill = newId("WB");
  await q(`insert into ${s}.shipments values ($1, $2, $3, $4, $5)`, [
    waybill,
    account,
    option.total_minor,
    JSON.stringify(option),
    crypto.randomUUID(),
  ]);
  await q(
    `insert into ${s}.ledger_entries (account, reference, kind, amount, currency) values ($1, $2, 'shipment', $3, $4)`,
    [account, waybill, option.total_minor, TERMS.currency],
  );
  await q(`insert into ${s}.billing_events (account, type, body) values ($1, $2, $3)`, [
    account,
    "shipment.booked",
    JSON.stringify({ waybill, total_minor: option.total_minor, lines: option.lines }),
  ]);
  await q(`update ${s}.offers set waybill = $1 where id = $2`, [
    waybill,
    body.prices_reference,
  ]);
  // The hot row last: its lock is held only from here to the commit.
  const paid = await q(
    `update ${s}.accounts set balance = balance - $1 where id = $2 and balance >= $1 returning balance`,
    [option.total_minor, account],
  );
  if (paid.length === 0) throw new Refused();
  return { status: 201 as const, waybill };
}
