/**
 * The entries a debit or credit note may point at (courier 2.6 rule 5), as the query side holds
 * them: each with the sum of the notes on it, the adjustments of its shipment (2.7) and how far
 * the query side had got with the account, all read in one statement (one snapshot).
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../db/schema.ts";
import { ADJUSTMENT_KINDS } from "../rules/billing_events.ts";
import { heldWatermark } from "./ledger_watermarks.ts";

/** One entry of the client holding the reference, with what was read beside it. */
export interface NoteTargetRow {
  readonly reference: string;
  readonly kind: string;
  readonly amount_minor: number;
  readonly currency: string;
  readonly status: string;
  readonly recoverable: boolean;
  readonly shipment: string | null;
  /** The sum of the notes on it. */
  readonly notes_minor: number;
  readonly shipment_adjustments: number;
  /** The account's watermark on the query side (ledger_watermarks.ts) in the same snapshot. */
  readonly seen_seq: number;
}

/** The client's entries holding `reference` (of `kind` when given), in kind order. */
export async function noteTargets(
  db: Kysely<Database>,
  tenant: string,
  clientId: string,
  target: { readonly reference: string; readonly kind?: string | undefined },
): Promise<NoteTargetRow[]> {
  let query = db.selectFrom("ledger_entries as o")
    .select([
      "o.reference",
      "o.kind",
      "o.amount_minor",
      "o.currency",
      "o.status",
      "o.recoverable",
      "o.shipment",
      // A note made before notes named the kind they correct pointed at the only entry then.
      (eb) =>
        eb.selectFrom("ledger_entries as n")
          .select(sql<string>`coalesce(sum(n.amount_minor), 0)::bigint`.as("sum"))
          .whereRef("n.tenant", "=", "o.tenant")
          .whereRef("n.client_id", "=", "o.client_id")
          .whereRef("n.corrects", "=", "o.reference")
          .where((w) =>
            w.or([w("n.corrects_kind", "=", w.ref("o.kind")), w("n.corrects_kind", "is", null)])
          )
          .as("notes"),
      // spec: courier 2.7: the adjustments of its shipment, which its completion lists (a note
      // joins a bounded number of them, client_ledger.ts correct).
      (eb) =>
        eb.selectFrom("ledger_entries as a")
          .select(sql<string>`count(*)::bigint`.as("count"))
          .whereRef("a.tenant", "=", "o.tenant")
          .whereRef("a.client_id", "=", "o.client_id")
          .whereRef("a.shipment", "=", "o.shipment")
          .where("a.kind", "in", ADJUSTMENT_KINDS)
          .as("shipment_adjustments"),
      // How far the query side has got with the account (ledger_watermarks.ts), in the same
      // snapshot as the notes summed above: key reads, not a scan of the account's entries.
      heldWatermark(sql.ref("o.tenant"), sql.ref("o.client_id")).as("seen_seq"),
    ])
    .where("o.tenant", "=", tenant)
    .where("o.client_id", "=", clientId)
    .where("o.reference", "=", target.reference);
  if (target.kind !== undefined) query = query.where("o.kind", "=", target.kind);
  const rows = await query.orderBy("o.kind").execute();
  return rows.map((row) => ({
    reference: row.reference,
    kind: row.kind,
    amount_minor: Number(row.amount_minor),
    currency: row.currency,
    status: row.status,
    recoverable: row.recoverable,
    shipment: row.shipment,
    notes_minor: Number(row.notes ?? 0),
    shipment_adjustments: Number(row.shipment_adjustments ?? 0),
    seen_seq: Number(row.seen_seq ?? 0),
  }));
}
