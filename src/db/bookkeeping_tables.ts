/**
 * The query side's own bookkeeping tables: actor snapshots, the audit log, and the changes a
 * projection parked to write again.
 */
import type { Generated } from "kysely";
import type { Int8Column, JsonbColumn } from "./columns.ts";

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

/**
 * A change a projection could not write for a lasting reason, kept to be written again
 * (migration 0014); primary key (projection, digest).
 */
export interface ParkedChangeTable {
  projection:
    | "snapshots"
    | "ledger"
    | "read_tables"
    | "platform_read_tables"
    | "business_read_tables"
    | "sandbox_inbox";
  /** SHA-256 of `payload`. */
  digest: string;
  subject: string;
  /** The change as JSON text. */
  payload: string;
  error: string;
  attempts: Generated<number>;
  parked_at: Generated<Date>;
  failed_at: Generated<Date>;
  /**
   * A ledger change: its client account and the lowest entry seq it hands out, which readers'
   * watermark stops before (migration 0015); null for others.
   */
  tenant: string | null;
  actor_id: string | null;
  holds_seq: number | null;
}
