/**
 * The query side's tables, as Kysely sees them (kysely's `example/src/user/` shape). The tables
 * themselves are made by `migrations/`, which never import this file.
 */
import type { ColumnType, Expression, Generated, Insertable, Selectable } from "kysely";

/**
 * A jsonb column: reads as the parsed value; writes only through an expression, normally
 * `jsonb(value)` from `json.ts`, so every driver binds JSON the same way.
 */
export type JsonbColumn<S = unknown> = ColumnType<S, Expression<unknown>, Expression<unknown>>;

/** int8 columns read as numbers; the drivers parse them so (see `db.ts`). */
export type Int8Column = ColumnType<number, number, number>;

export interface Database {
  snapshots: SnapshotTable;
  actor_events: ActorEventTable;
  audit_log: AuditLogTable;
}

/** The latest projected state of each actor; primary key (type, id). */
export interface SnapshotTable {
  type: string;
  id: string;
  tenant: string;
  /** Sequence of the actor's last event when this snapshot was taken. */
  version: Int8Column;
  data: JsonbColumn;
  updated_at: Generated<Date>;
}

/** Every event of every actor, in order: trails, reports, audit. Primary key (type, id, seq). */
export interface ActorEventTable {
  type: string;
  id: string;
  tenant: string;
  seq: ColumnType<number, number, never>;
  at: ColumnType<Date, Date, never>;
  /** The event's `kind` tag. */
  kind: ColumnType<string, string, never>;
  event: ColumnType<unknown, Expression<unknown>, never>;
}

/** Who did what, when, in which tenant. */
export interface AuditLogTable {
  id: string;
  tenant: string;
  at: Generated<Date>;
  /** The principal: its kind and id, e.g. `api_key:key_123`. */
  actor: string;
  action: string;
  detail: JsonbColumn;
}

export type SnapshotRow = Selectable<SnapshotTable>;
export type NewSnapshot = Insertable<SnapshotTable>;
export type ActorEventRow = Selectable<ActorEventTable>;
export type NewActorEvent = Insertable<ActorEventTable>;
export type AuditLogRow = Selectable<AuditLogTable>;
export type NewAuditLog = Insertable<AuditLogTable>;
