/**
 * Scans and custody moves recorded by operations (courier 3.2, 4.4; runs and drivers record
 * theirs through 4.5): the shipment's actor records the scan, and a redelivery or a return books
 * its later charge (courier 2.6 rule 3).
 */
import {
  asShipment,
  DELIVERY_SCANS,
  type ScanInput,
  type Shipment,
} from "../../../actors/courier/shipment/mod.ts";
import { CUSTOMS_HOLDS } from "../../../actors/courier/customs_crossing/mod.ts";
import { orRefuse } from "../../runtime/actor.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { bookScanCharge } from "./later_charges.ts";
import { askRecord } from "./run_steps.ts";
import { crossingHolding, refuseHeld, shipmentCrossingIds } from "./runs/item_actions.ts";

/**
 * Records one scan on the tenant's shipment and books the later charge it causes before
 * answering. The scan is recorded with its charge due (reactors/scan_charges.ts books it again
 * until the ledger confirms), so a failed booking here is not the caller's to retry: a scan has
 * no idempotency key, and sending it again would record it twice. Refused as the shipment
 * refuses (closed, not cancellable, an unknown piece, a missing reason). `requestId`: the
 * request it is recorded for (AskOptions.requestId).
 */
export async function recordScan(
  runtime: ActorRuntime,
  tenant: string,
  waybill: string,
  scan: ScanInput,
  requestId?: string,
): Promise<Shipment> {
  if (DELIVERY_SCANS.has(scan.event)) {
    // spec: courier 3.4: a crossing customs holds it at (held, papers, refused) keeps it there:
    // the one opened at booking, or one opened at a border stop of a run it boarded.
    const ids = await shipmentCrossingIds(runtime, tenant, waybill);
    const held = await crossingHolding(runtime, tenant, ids, CUSTOMS_HOLDS);
    refuseHeld(held, waybill, scan.event);
  }
  // spec: courier 3.4: a run's step under way is voided (or recorded) before a scan closes it.
  const asked = await askRecord(runtime, tenant, waybill, {
    kind: "record",
    scan,
    ordered: true,
  }, {
    requestId,
  });
  const s = asShipment(orRefuse(asked));
  try {
    await bookScanCharge(runtime, s, scan.event, scan.by);
  } catch (e) {
    console.error(`scan charge of ${waybill} left to its retry:`, e);
  }
  return s;
}
