/**
 * What the business booking bench loads beside the real server: routes of the same shape that book
 * nothing (the ceiling), and the conventional design (the baseline): one Postgres transaction per
 * booking, the fare from the same calculator, the wallet debited with a conditional UPDATE ...
 * RETURNING and the trip inserted in the same transaction.
 */
import { Hono } from "hono";
import { PGlite } from "@electric-sql/pglite";
import postgres from "postgres";
import { parseCatalogue } from "../src/business/rules/catalogue.ts";
import { DEFAULT_CATALOGUE } from "../src/business/rules/default_catalogue.ts";
import { priceTrip } from "../src/business/rules/fare.ts";
import { newId } from "../src/runtime/ids.ts";
import type { Target } from "./booking_load.ts";

function serve(app: Hono, keys: readonly string[], close: () => Promise<void>): Target {
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, app.fetch);
  return {
    base: `http://127.0.0.1:${server.addr.port}`,
    keys,
    close: async () => {
      await server.shutdown();
      await close();
    },
  };
}

/** POST /api/business/book that reads the body and answers a trip's shape, booking nothing. */
export function businessCeilingTarget(): Target {
  const app = new Hono();
  let n = 0;
  app.post("/api/business/book", async (c) => {
    await c.req.json();
    n++;
    return c.json({ success: true, data: { id: n, reference: `BK${n}`, status: "pending" } }, 201);
  });
  return serve(app, ["bk_ceiling"], () => Promise.resolve());
}

type Query = (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

interface Sql {
  readonly label: string;
  begin<T>(fn: (q: Query) => Promise<T>): Promise<T>;
  unsafe: Query;
  end(): Promise<void>;
}

async function openSql(url: string | undefined): Promise<Sql> {
  if (url) {
    const sql = postgres(url, { max: 10, onnotice: () => {} });
    const q = (tx: postgres.Sql): Query => (t, p) =>
      tx.unsafe(t, (p ?? []) as never[]) as unknown as Promise<Record<string, unknown>[]>;
    return {
      label: "Postgres, pool of 10",
      unsafe: q(sql),
      begin: (fn) => sql.begin((tx) => fn(q(tx as unknown as postgres.Sql))) as never,
      end: () => sql.end(),
    };
  }
  const db = await PGlite.create();
  return {
    label: "embedded PGlite (one connection: not a fair baseline)",
    unsafe: async (t, p) => (await db.query<Record<string, unknown>>(t, p)).rows,
    begin: (fn) =>
      db.transaction((tx) =>
        fn(async (t, p) => (await tx.query<Record<string, unknown>>(t, p)).rows)
      ),
    end: () => db.close(),
  };
}

/** The conventional booking: price, then one transaction that debits the wallet and inserts. */
export async function businessBaselineTarget(
  wallets: number,
  databaseUrl: string | undefined,
): Promise<Target & { readonly label: string }> {
  const parsed = parseCatalogue(DEFAULT_CATALOGUE);
  if (!parsed.ok) throw new Error("the default catalogue must parse");
  const sql = await openSql(databaseUrl);
  const schema = `bench_bb_${crypto.randomUUID().slice(0, 8)}`;
  await sql.unsafe(`create schema ${schema}`);
  await sql.unsafe(
    `create table ${schema}.wallets (key text primary key, balance bigint not null)`,
  );
  await sql.unsafe(`create table ${schema}.trips (reference text primary key, wallet text not null,
    idempotency_key text, amount bigint not null, body jsonb not null, unique (wallet, idempotency_key))`);
  const keys = Array.from({ length: wallets }, (_, i) => `bk_base_${i}`);
  for (const key of keys) {
    await sql.unsafe(`insert into ${schema}.wallets values ($1, 1000000000000)`, [key]);
  }
  const app = new Hono();
  app.post("/api/business/book", async (c) => {
    const key = c.req.header("X-Business-API-Key") ?? "";
    const idem = c.req.header("Idempotency-Key") ?? null;
    const b = await c.req.json();
    const price = priceTrip(
      parsed.catalogue,
      {
        pickup: { lat: b.pickup_lat, lng: b.pickup_lng },
        stops: [],
        dest: { lat: b.dest_lat, lng: b.dest_lng },
      },
      { type: b.type, parcel_weight_kg: b.parcel_weight_kg },
      "upgrade",
    );
    if (!price.ok) return c.json({ success: false, code: price.code }, 422);
    const amount = price.price.fare.amount_minor;
    const answer = await sql.begin(async (q) => {
      if (idem) {
        const seen = await q(
          `select reference from ${schema}.trips where wallet = $1 and idempotency_key = $2`,
          [key, idem],
        );
        if (seen[0]) return { reference: seen[0].reference, replayed: true };
      }
      const paid = await q(
        `update ${schema}.wallets set balance = balance - $2 where key = $1 and balance >= $2
         returning balance`,
        [key, amount],
      );
      if (!paid[0]) return null;
      const reference = newId("BK");
      await q(`insert into ${schema}.trips values ($1, $2, $3, $4, $5)`, [
        reference,
        key,
        idem,
        amount,
        JSON.stringify(b),
      ]);
      return { reference, replayed: false };
    });
    if (!answer) return c.json({ success: false, code: "insufficient_balance" }, 422);
    return c.json({ success: true, data: answer }, answer.replayed ? 200 : 201);
  });
  const target = serve(app, keys, async () => {
    await sql.unsafe(`drop schema ${schema} cascade`);
    await sql.end();
  });
  return { ...target, label: sql.label };
}
