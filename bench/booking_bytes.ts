/**
 * Bytes one booking writes (a courier's: price, then book; a business's: POST /business/book), by
 * where they go: to Deno KV (records, events and kept replies, as the store measures them), on the
 * bus (each change's JSON) and to the query side (the JSON text of the event rows and snapshots
 * the projector keeps), and the KV mutations (sets and deletes) and commits it takes, each courier
 * charge's billing event delivered at once by the courier's billing endpoint (a receiver in this
 * process). A count, not a timing: run it before and after a change to the shapes of events or
 * changes.
 *
 *   env -u DATABASE_URL -u NATS_URL deno run --allow-all bench/booking_bytes.ts [bookings] \
 *     [courier|business]
 */
import { type Kysely, sql } from "kysely";
import { MemoryBus } from "../src/bus/memory_bus.ts";
import type { Bus } from "../src/bus/bus.ts";
import type { Database } from "../src/db/schema.ts";
import { KvActorStore } from "../src/runtime/kv_store.ts";
import { storedBytes } from "../src/runtime/store.ts";
import { bookShipment, newClient, newCourier, topUp } from "../tests/helpers/courier.ts";
import { openTestEnv, type TestEnv } from "../tests/helpers/test_env.ts";
import { startReceiver, until } from "../tests/helpers/receiver.ts";
import { BOOK_BODY } from "./business_book.ts";

type Tally = Map<string, number>;

function add(tally: Tally, key: string, n: number): void {
  tally.set(key, (tally.get(key) ?? 0) + n);
}

/** Counts KV bytes by actor type: record, events and kept replies of every write committed. */
function countKv(tally: Tally): () => void {
  const proto = KvActorStore.prototype;
  const commit = proto.commit;
  proto.commit = function (writes) {
    for (const w of writes) {
      const replies = w.replies.reduce(
        (n, r) => n + (r.reply === undefined ? 0 : storedBytes(JSON.stringify(r.reply))),
        0,
      );
      add(tally, `${w.type} record`, w.recordBytes);
      add(tally, `${w.type} events`, w.events.reduce((n, e) => n + e.bytes, 0));
      add(tally, `${w.type} replies`, replies);
    }
    return commit.call(this, writes);
  };
  return () => proto.commit = commit;
}

/**
 * Counts KV mutations (each set and delete, in an atomic commit or alone) by the key's first part
 * (`actor`, `events`, `timer`, `outbox`...), and atomic commits under `commits`.
 */
function countKvMutations(tally: Tally): () => void {
  const atomic = Deno.AtomicOperation.prototype;
  const kv = Deno.Kv.prototype;
  const saved = {
    set: atomic.set,
    delete: atomic.delete,
    commit: atomic.commit,
    kvSet: kv.set,
    kvDelete: kv.delete,
  };
  const kind = (key: Deno.KvKey) => String(key[0]);
  atomic.set = function (key, ...rest) {
    add(tally, `set ${kind(key)}`, 1);
    return saved.set.call(this, key, ...rest);
  };
  atomic.delete = function (key) {
    add(tally, `delete ${kind(key)}`, 1);
    return saved.delete.call(this, key);
  };
  atomic.commit = function () {
    add(tally, "commits", 1);
    return saved.commit.call(this);
  };
  kv.set = function (key, ...rest) {
    add(tally, `set ${kind(key)}`, 1);
    add(tally, "commits", 1);
    return saved.kvSet.call(this, key, ...rest);
  };
  kv.delete = function (key) {
    add(tally, `delete ${kind(key)}`, 1);
    add(tally, "commits", 1);
    return saved.kvDelete.call(this, key);
  };
  return () => {
    Object.assign(atomic, { set: saved.set, delete: saved.delete, commit: saved.commit });
    Object.assign(kv, { set: saved.kvSet, delete: saved.kvDelete });
  };
}

/** The in-process bus, counting each change's JSON by actor type (the subject's third token). */
function countingBus(tally: Tally): Bus {
  const bus = new MemoryBus();
  const publish = bus.publish.bind(bus);
  bus.publish = (subject, payload) => {
    add(tally, subject.split(".")[2] ?? subject, JSON.stringify(payload).length);
    return publish(subject, payload);
  };
  return bus;
}

/** The JSON text the query side keeps: snapshots by actor type, and outbound event rows. */
async function querySide(db: Kysely<Database>): Promise<Map<string, number>> {
  const rows = await sql<{ type: string; bytes: string }>`
    select type, sum(bytes)::text as bytes from (
      select type, octet_length(data::text) as bytes from snapshots
      union all select 'outbound_events rows', octet_length(o::text) from outbound_events o
    ) x group by type`.execute(db);
  return new Map(rows.rows.map((r) => [r.type, Number(r.bytes)]));
}

/** The tallies of one kind of booking, each counted from zero. */
interface Tallies {
  readonly kv: Tally;
  readonly mutations: Tally;
  readonly bus: Tally;
}

/** Counts what `run` (making `bookings` bookings, then settled) writes, and prints it. */
async function measure(
  t: TestEnv,
  tallies: Tallies,
  title: string,
  bookings: number,
  run: () => Promise<void>,
): Promise<void> {
  await t.settle();
  const before = await querySide(t.env.db);
  for (const tally of Object.values(tallies)) tally.clear();
  const restore = countKv(tallies.kv);
  const restoreMutations = countKvMutations(tallies.mutations);
  try {
    await run();
    await t.settle();
  } finally {
    restoreMutations();
    restore();
  }
  const after = await querySide(t.env.db);
  const query: Tally = new Map();
  for (const [type, n] of after) add(query, type, n - (before.get(type) ?? 0));
  console.log(`== ${title}`);
  print("KV", tallies.kv, bookings);
  print("KV mutations (sets and deletes) and commits", tallies.mutations, bookings, 10);
  print("bus", tallies.bus, bookings);
  print("query side (snapshots JSON, outbound_events rows)", query, bookings);
}

/** Courier bookings, each charge's billing event delivered by the courier's endpoint. */
async function courierBookings(t: TestEnv, tallies: Tallies, bookings: number): Promise<void> {
  // The usual course: the courier's billing endpoint answers each charge's event at once.
  const receiver = startReceiver();
  try {
    const courier = await newCourier(t);
    const set = await t.call("PUT", "/business/courier/billing/endpoint", {
      key: courier.business.api_key,
      body: { url: receiver.url },
    });
    if (set.status !== 200) throw new Error(`billing endpoint: ${set.status}`);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "100000");
    await measure(t, tallies, "courier bookings (price, then book)", bookings, async () => {
      for (let i = 0; i < bookings; i++) await bookShipment(t, client);
      await until(t, () => receiver.effects.size >= bookings, "every charge's event delivered");
    });
  } finally {
    await receiver.close();
  }
}

/** Business API bookings (POST /business/book), each with its own external_reference. */
async function businessBookings(t: TestEnv, tallies: Tallies, bookings: number): Promise<void> {
  const b = await t.createBusiness();
  const funded = await t.call("POST", `/operator/businesses/${b.id}/wallet`, {
    operator: true,
    body: { amount: "100000.00", currency: "BWP", reference: "bytes-fund" },
  });
  if (funded.status !== 201) throw new Error(`fund: ${funded.status}`);
  await measure(t, tallies, "business bookings (POST /business/book)", bookings, async () => {
    for (let i = 0; i < bookings; i++) {
      const r = await t.call("POST", "/business/book", {
        key: b.api_key,
        body: { ...BOOK_BODY, external_reference: `BYTES-${i}` },
      });
      if (r.status !== 201) throw new Error(`book: ${r.status} ${JSON.stringify(r.body)}`);
    }
  });
}

async function main(bookings: number, kinds: readonly string[]): Promise<void> {
  const tallies: Tallies = { kv: new Map(), mutations: new Map(), bus: new Map() };
  const bus = countingBus(tallies.bus);
  const t = await openTestEnv({ bus });
  try {
    if (kinds.includes("courier")) await courierBookings(t, tallies, bookings);
    if (kinds.includes("business")) await businessBookings(t, tallies, bookings);
  } finally {
    await t.close();
    // The bus is this bench's, not the environment's: its owner drains it, or the process stays.
    await bus.drain();
  }
}

/** Per booking, rounded to 1/`scale` (bytes: whole; counts: tenths). */
function print(title: string, tally: Tally, bookings: number, scale = 1): void {
  let total = 0;
  console.log(`${title}, ${scale === 1 ? "bytes " : ""}per booking:`);
  const round = (n: number) => Math.round((n / bookings) * scale) / scale;
  for (const [key, n] of [...tally].sort()) {
    if (n === 0) continue;
    if (key !== "commits") total += n;
    console.log(`  ${key}: ${round(n)}`);
  }
  console.log(`  total: ${round(total)}`);
}

if (import.meta.main) {
  const kinds = Deno.args[1] ? [Deno.args[1]] : ["courier", "business"];
  await main(Number(Deno.args[0] ?? 20), kinds);
  // PGlite's WebAssembly keeps re-arming a timer after its environment has closed (as bench/mod.ts
  // says): the process would not end by itself.
  Deno.exit(0);
}
