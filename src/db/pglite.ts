/**
 * Embedded PGlite as the query side: one Postgres session in WebAssembly, its artifacts compiled
 * once per process, confined to one schema through the session's search_path.
 */
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { PGlite, type PGliteOptions } from "@electric-sql/pglite";
import { Kysely } from "kysely";
import { PGliteDialect } from "./pglite_dialect.ts";
import type { Database } from "./schema.ts";

export const INT8_OID = 20;
const JSON_OID = 114;
const JSONB_OID = 3802;

/** int8 as a number when it fits exactly, else as a bigint (never a lossy number). */
export function parseInt8(text: string): number | bigint {
  const value = BigInt(text);
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value)
    : value;
}

/**
 * Shared buffers of an instance in memory (initdb sets 128MB): its whole database is already in
 * memory, and each start zeroes the buffers, about 0.4 s of the 1 s an instance in memory takes to
 * open from the template at 128MB. The tests open one or more in every file.
 */
const IN_MEMORY_SHARED_BUFFERS = "16MB";

/** `artifacts`: those compiled by another thread (a worker is handed the opener's). */
export async function createPGlite(
  from: { dataDir?: string; loadDataDir?: Blob },
  artifacts?: Artifacts,
): Promise<PGlite> {
  const inMemory = from.dataDir === undefined;
  const buffers = ["-c", `shared_buffers=${IN_MEMORY_SHARED_BUFFERS}`];
  return await PGlite.create({
    ...from,
    ...artifacts ?? await pgliteArtifacts(),
    ...(inMemory ? { startParams: [...PGlite.defaultStartParams, ...buffers] } : {}),
    parsers: { [INT8_OID]: parseInt8 },
    // As postgres.js does: a value bound to json is always stringified.
    serializers: { [JSON_OID]: stringify, [JSONB_OID]: stringify },
  });
}

export type Artifacts = Pick<PGliteOptions, "pgliteWasmModule" | "initdbWasmModule" | "fsBundle">;
let artifacts: Promise<Artifacts> | null = null;

/**
 * PGlite's WebAssembly compiled and its file bundle read once per process, not at every open.
 * Where the package's files cannot be found, PGlite loads them itself.
 */
export function pgliteArtifacts(): Promise<Artifacts> {
  artifacts ??= (async () => {
    const dist = pathToFileURL(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
    const read = (name: string) => Deno.readFile(new URL(name, dist));
    const [pglite, initdb, bundle] = await Promise.all(
      ["pglite.wasm", "initdb.wasm", "pglite.data"].map(read),
    );
    return {
      pgliteWasmModule: await WebAssembly.compile(pglite!),
      initdbWasmModule: await WebAssembly.compile(initdb!),
      fsBundle: new Blob([bundle!]),
    };
  })().catch(() => ({}));
  return artifacts;
}

/** A PGlite query side handle: Kysely over the instance, and what its close does with it. */
export interface PGliteSession {
  readonly db: Kysely<Database>;
  readonly kind: "pglite";
  readonly pglite: PGlite;
  close(): Promise<void>;
}

/**
 * PGlite as the query side, confined to `schema`. Closing hands the instance to `release` once
 * no query holds it (default: closes it); the Kysely instance refuses queries from then on.
 */
export async function sessionOf(
  pglite: PGlite,
  schema: string,
  release: (pglite: PGlite) => Promise<void> = closePGlite,
): Promise<PGliteSession> {
  try {
    // One session for the process' life, so setting it once holds for every query.
    await pglite.query(`set search_path to ${schema}`);
  } catch (error) {
    await pglite.close();
    throw error;
  }
  let handed: Promise<void> | null = null;
  const handOver = () => handed ??= release(pglite);
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite, release: handOver }) });
  const close = async () => {
    await db.destroy();
    await handOver(); // when Kysely never connected, destroy() leaves the instance alone
  };
  return { db, kind: "pglite", close, pglite };
}

export async function closePGlite(pglite: PGlite): Promise<void> {
  if (!pglite.closed) await pglite.close();
}

function stringify(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError(`value is not JSON: ${typeof value}`);
  return text;
}
