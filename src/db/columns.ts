/**
 * The column shapes the query side's tables share: jsonb and int8 columns, epoch milliseconds,
 * and the versioned row every typed read table extends.
 */
import type { ColumnType, Expression } from "kysely";

/**
 * A jsonb column: reads as the parsed value; writes only through an expression, normally
 * `jsonb(value)` from `json.ts`, so every driver binds JSON the same way.
 */
export type JsonbColumn<S = unknown> = ColumnType<S, Expression<unknown>, Expression<unknown>>;

/** int8 columns read as numbers; the drivers parse them so (see `db.ts`). */
export type Int8Column = ColumnType<number, number, number>;

/** Epoch milliseconds (bigint), as the actors keep times. */
export type Millis = Int8Column;
export type MaybeMillis = ColumnType<number | null, number | null, number | null>;

/**
 * The typed read tables (migration 0016): one row per actor, keyed by id, at the `version` of the
 * change it was made from; a projection writes a row only over an older one. Their columns are
 * the filters and sorts of the lists that read them.
 */
export interface VersionedRow {
  id: string;
  tenant: string;
  version: Int8Column;
}
