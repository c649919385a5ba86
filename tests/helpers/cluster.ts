/**
 * Several instances of the server on one Postgres and one NATS, as processes on loopback
 * (ACTOR_STORE=postgres, PLACEMENT=leased): a fresh database, their settings, and whether they
 * hold every partition between them. For the cluster test and the cluster bench.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { PARTITIONS } from "../../src/limits.ts";
import { OPERATOR_TOKEN, type Server } from "./server_process.ts";
import { PARCEL } from "../routes/business/trips_fixtures.ts";

/** The settings every instance of one cluster shares. */
export function clusterEnv(
  databaseUrl: string,
  leaseSeconds: number,
  forwardWaitMs: number,
): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    ACTOR_STORE: "postgres",
    PLACEMENT: "leased",
    LEASE_SECONDS: String(leaseSeconds),
    FORWARD_WAIT_MS: String(forwardWaitMs),
    // 32 bytes, base64url: every instance seals and opens secrets alike.
    SECRETS_KEY: "AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA",
    SANDBOX_PORT: "0",
    // Warnings and errors only: what a failure prints (Server.output), not a line per request.
    LOG_LEVEL: "warn",
  };
}

/** A parcel across Gaborone, of 2.5 kg. */
export const BOOK = { ...PARCEL, parcel_weight_kg: 2.5 };

export interface Answer {
  readonly status: number;
  // deno-lint-ignore no-explicit-any
  readonly body: any;
}

export const OPERATOR = { Authorization: `Bearer ${OPERATOR_TOKEN}` };

export async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = OPERATOR,
): Promise<Answer> {
  const r = await fetch(`${base}/api${path}`, {
    method,
    headers: { "Content-Type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}

/** A fresh database for the cluster, so its leases and actors meet nobody else's. */
export async function freshDatabase(url: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `cluster_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const u = new URL(url);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

export async function heldBy(server: Server): Promise<number[]> {
  try {
    const r = await fetch(`${server.live}/health`);
    const h = await r.json();
    return h.data?.partitions ?? [];
  } catch {
    return [];
  }
}

/**
 * Waits until the instances hold every partition between them, each once, and each instance at
 * least what the others' fair shares leave; answers the time it took.
 */
export async function spread(servers: readonly Server[], boundMs: number): Promise<number> {
  const start = Date.now();
  // Each takes up to the ceiling of a fair share, so the last may hold what the others leave.
  const share = Math.ceil(PARTITIONS / servers.length);
  const floor = PARTITIONS - (servers.length - 1) * share;
  while (true) {
    const each = await Promise.all(servers.map(heldBy));
    const held = each.flat();
    const fair = each.every((h) => h.length >= floor);
    if (fair && held.length === PARTITIONS && new Set(held).size === PARTITIONS) {
      return Date.now() - start;
    }
    if (Date.now() - start > boundMs) {
      assert.fail(`partitions not spread within ${boundMs} ms: ${held.length} held`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Who holds what, as each instance answers it and as the store has it: the leases by holder,
 * those expired, and the instances present. For a failure's message.
 */
export async function leaseReport(url: string, servers: readonly Server[]): Promise<string> {
  const lines: string[] = [];
  for (const s of servers) {
    try {
      const r = await fetch(`${s.live}/health`, { signal: AbortSignal.timeout(2_000) });
      const h = (await r.json()).data;
      lines.push(`${s.livePort}: ${h.instance} answers for ${JSON.stringify(h.partitions)}`);
    } catch (e) {
      lines.push(`${s.livePort}: no answer (${e})`);
    }
  }
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const now = Date.now();
    const leases = await sql<{ partition: number; holder: string | null; expires: string }[]>`
      select partition, holder, expires from actor_store_leases order by partition`;
    const by = new Map<string, number[]>();
    for (const l of leases) {
      const who = l.holder === null || Number(l.expires) <= now ? "expired or free" : l.holder;
      by.set(who, [...(by.get(who) ?? []), l.partition]);
    }
    for (const [who, ps] of by) lines.push(`store: ${who}: ${JSON.stringify(ps)}`);
    const present = await sql`select instance, until from actor_store_instances`;
    lines.push(`present at ${now}: ${JSON.stringify(present)}`);
  } finally {
    await sql.end();
  }
  return lines.join("\n");
}
