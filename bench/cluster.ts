/**
 * Several instances (issue 43 "Measured, not asserted"): bookings/s on one hot wallet through one,
 * two and three instances on this machine (processes on loopback, one Postgres and one NATS), and
 * after killing one of three with SIGKILL, the time until the others hold every partition and
 * until a booking through them is answered again. On two cores the point is that an instance
 * costs little, not that it scales. Needs DATABASE_URL and NATS_URL; NaN without them.
 */
import { type Server, startServer } from "../tests/helpers/server_process.ts";
import { BOOK, call, clusterEnv, freshDatabase, spread } from "../tests/helpers/cluster.ts";
import { recordFigure } from "./summary.ts";

const LEASE_SECONDS = 2;
const BOUND_MS = 60_000;
const SECONDS = 5;
const CLIENTS = 32;

/** A business on enterprise limits with money for every booking the bench makes; its key. */
async function fundedKey(base: string): Promise<string> {
  const made = await call(base, "POST", "/operator/businesses", {
    name: "Cluster bench",
    plan: "enterprise",
    currency: "BWP",
    country: "BW",
    owner_email: `cluster-bench-${crypto.randomUUID()}@example.com`,
  });
  if (made.status !== 201) throw new Error(`business: ${made.status}`);
  const id = made.body.data.id;
  await call(base, "PATCH", `/operator/businesses/${id}`, {
    rate_limit_per_minute: 1_000_000,
    rate_limit_per_day: 100_000_000,
  });
  await call(base, "POST", `/operator/businesses/${id}/wallet`, {
    amount: "100000000.00",
    currency: "BWP",
    reference: "bench",
  });
  return made.body.data.api_key;
}

function bookThrough(server: Server, key: string): Promise<number> {
  return call(server.live, "POST", "/business/book", BOOK, {
    "X-Business-API-Key": key,
    "Idempotency-Key": crypto.randomUUID(),
  }).then((a) => a.status, () => 0);
}

/** Bookings answered 201 per second, CLIENTS at once, round robin over `servers`. */
async function bookingsPerSecond(servers: readonly Server[], key: string): Promise<number> {
  let booked = 0;
  const start = performance.now();
  const deadline = start + SECONDS * 1000;
  await Promise.all(Array.from({ length: CLIENTS }, async (_, client) => {
    for (let i = client; performance.now() < deadline; i += CLIENTS) {
      if (await bookThrough(servers[i % servers.length]!, key) === 201) booked++;
    }
  }));
  return booked / ((performance.now() - start) / 1000);
}

/** Kills the last of `servers`; ms until the others hold all, and until a booking is answered. */
async function afterKill(servers: readonly Server[], key: string): Promise<[number, number]> {
  const survivors = servers.slice(0, -1);
  const killedAt = performance.now();
  servers.at(-1)!.child.kill("SIGKILL");
  const booked = (async () => {
    for (let i = 0; performance.now() - killedAt < BOUND_MS; i++) {
      if (await bookThrough(survivors[i % survivors.length]!, key) === 201) {
        return performance.now() - killedAt;
      }
    }
    return NaN;
  })();
  const heldMs = await spread(survivors, BOUND_MS);
  return [heldMs, await booked];
}

async function withCluster<T>(
  url: string,
  count: number,
  run: (servers: Server[]) => Promise<T>,
): Promise<T> {
  const db = await freshDatabase(url);
  const env = clusterEnv(db.url, LEASE_SECONDS, BOUND_MS);
  const dirs: string[] = [];
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) {
      dirs.push(await Deno.makeTempDir());
      servers.push(await startServer(dirs[i]!, { env }));
    }
    await spread(servers, BOUND_MS);
    return await run(servers);
  } finally {
    for (const s of servers) await s.stop().catch(() => {});
    await db.drop();
    for (const d of dirs) await Deno.remove(d, { recursive: true }).catch(() => {});
  }
}

export async function clusterBench(): Promise<void> {
  const url = Deno.env.get("DATABASE_URL");
  if (!url || !Deno.env.get("NATS_URL")) {
    console.log("cluster: DATABASE_URL and NATS_URL unset, not measured");
    for (const n of [1, 2, 3]) recordFigure(`cluster_bookings_per_s_${n}`, NaN);
    recordFigure("cluster_kill_to_partitions_held_ms", NaN);
    recordFigure("cluster_kill_to_booking_answered_ms", NaN);
    return;
  }
  for (const n of [1, 2, 3]) {
    await withCluster(url, n, async (servers) => {
      const key = await fundedKey(servers[0]!.live);
      await bookingsPerSecond(servers, key); // warm: actors loaded, connections open
      const rate = await bookingsPerSecond(servers, key);
      console.log(`cluster: ${n} instance(s), ${CLIENTS} clients: ${rate.toFixed(0)} bookings/s`);
      recordFigure(`cluster_bookings_per_s_${n}`, rate);
      if (n < 3) return;
      const [held, booked] = await afterKill(servers, key);
      console.log(
        `cluster: one of three killed (lease ${LEASE_SECONDS} s): every partition held again ` +
          `after ${held.toFixed(0)} ms, a booking answered after ${booked.toFixed(0)} ms`,
      );
      recordFigure("cluster_kill_to_partitions_held_ms", held);
      recordFigure("cluster_kill_to_booking_answered_ms", booked);
    });
  }
}
