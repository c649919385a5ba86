/** The later charges a scan causes (courier 2.6 rule 3). */
import type { ChargeKind } from "../ledger.ts";
import type { ScanEvent } from "./vocabulary.ts";

/** A later charge a scan causes (courier 2.6 rule 3), as the client's ledger books it. */
export interface ScanCharge {
  readonly kind: ChargeKind;
  readonly reference: string;
  readonly reason: string;
  readonly evidence_path: string;
  /** The fact that caused it; it books once however often it is sent (2.6 rule 2). */
  readonly source_event: string;
}

/**
 * The later charge a scan on a shipment causes (courier 2.6 rule 3), or null: going out again
 * after a failed delivery attempt is a redelivery (one per failed attempt, however many scans
 * follow it), arriving back with the sender is a return (once). `s` is the shipment after the
 * scan: `attempts` counts the failed attempts so far.
 */
export function scanCharge(
  s: { readonly waybill: string; readonly attempts: number },
  event: ScanEvent,
): ScanCharge | null {
  if ((event === "out_for_delivery" || event === "delivered") && s.attempts > 0) {
    return {
      kind: "redelivery",
      reference: `RDL-${s.waybill}-${s.attempts}`,
      reason: `delivery attempt ${s.attempts + 1} after a failed attempt`,
      evidence_path: `shipment:${s.waybill}/attempt:${s.attempts}`,
      source_event: `shipment.redelivery:${s.waybill}:${s.attempts}`,
    };
  }
  if (event === "returned") {
    return {
      kind: "return",
      reference: `RET-${s.waybill}`,
      reason: `returned to the sender`,
      evidence_path: `shipment:${s.waybill}/returned`,
      source_event: `shipment.return:${s.waybill}`,
    };
  }
  return null;
}
