import type { Artifacts } from "./pglite.ts";

/**
 * The messages between the serving thread and the PGlite worker (pglite_worker.ts): queries go
 * in batches and are answered in the order sent, one answer each, so no ids are needed.
 */

export interface QueryResults<R = Record<string, unknown>> {
  readonly rows: R[];
  readonly fields: readonly { readonly name: string; readonly dataTypeID: number }[];
  readonly affectedRows?: number;
  readonly command?: string;
}

export interface WireQuery {
  readonly sql: string;
  readonly params: readonly unknown[];
}

export type ToWorker =
  | {
    readonly type: "open";
    readonly dataDir?: string;
    /** A dump (PGlite's dumpDataDir) to start from when the data folder is empty. */
    readonly loadDataDir?: Blob;
    /** PGlite's WebAssembly compiled once by the opener (modules clone to a worker). */
    readonly artifacts?: Artifacts;
    readonly schema: string;
  }
  | { readonly type: "queries"; readonly queries: readonly WireQuery[] }
  | { readonly type: "close" };

export type Answer =
  | { readonly ok: true; readonly results: QueryResults }
  | { readonly ok: false; readonly error: WireError };

export type FromWorker =
  | { readonly type: "opened" }
  | { readonly type: "failed"; readonly error: WireError }
  | { readonly type: "answers"; readonly answers: readonly Answer[] }
  /** PGlite's WebAssembly aborted: the instance is unusable and the worker ends. */
  | { readonly type: "fatal"; readonly error: WireError }
  | { readonly type: "closed" };

/** An error as plain data: its message, name and Postgres fields (`code`, `detail`...). */
export interface WireError {
  readonly name: string;
  readonly message: string;
  readonly fields: Readonly<Record<string, string | number>>;
}

/** The fields of PGlite's DatabaseError that callers read, as Postgres reports them. */
const FIELDS = [
  "severity",
  "code",
  "detail",
  "hint",
  "position",
  "internalPosition",
  "internalQuery",
  "where",
  "schema",
  "table",
  "column",
  "dataType",
  "constraint",
  "file",
  "line",
  "routine",
] as const;

export function errorToWire(error: unknown): WireError {
  if (!(error instanceof Error)) return { name: "Error", message: String(error), fields: {} };
  const fields: Record<string, string | number> = {};
  for (const f of FIELDS) {
    const value = (error as unknown as Record<string, unknown>)[f];
    if (typeof value === "string" || typeof value === "number") fields[f] = value;
  }
  return { name: error.name, message: error.message, fields };
}

/** The error again on this side: an Error carrying the same name, message and fields. */
export function errorFromWire(wire: WireError): Error {
  const error = Object.assign(new Error(wire.message), wire.fields);
  error.name = wire.name;
  return error;
}
