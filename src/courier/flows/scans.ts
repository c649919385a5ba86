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
import { customsCrossingActor } from "../../../actors/courier/customs_crossing/mod.ts";
import { orRefuse, refuse, Refused } from "../../runtime/actor.ts";
import { newId } from "../../runtime/ids.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { bookScanCharge } from "./later_charges.ts";
import { askRecord } from "./run_steps.ts";
import { shipmentCrossingIds } from "./runs/item_actions.ts";

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
  const gate = DELIVERY_SCANS.has(scan.event)
    ? await passCustoms(runtime, tenant, waybill, scan.event)
    : undefined;
  // spec: courier 3.4: a run's step under way is voided (or recorded) before a scan closes it.
  const asked = await askRecord(runtime, tenant, waybill, {
    kind: "record",
    scan,
    ordered: true,
    ...(gate === undefined ? {} : { customs_gate: gate }),
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

/**
 * spec: courier 3.4: a crossing customs holds it at (held, papers, refused) keeps it there: the
 * one opened at booking, or one opened at a border stop of a run it boarded. A read would miss a
 * hold landing before the scan is recorded, so the scan reserves each crossing under a token of
 * its own (refused while customs holds it), which the shipment checks when it records the scan:
 * a hold meeting the reservation has the shipment refuse the token first (customs_moves.ts).
 * The token is the scan's own, beside a run's delivery under way, which it never displaces.
 */
async function passCustoms(
  runtime: ActorRuntime,
  tenant: string,
  waybill: string,
  done: string,
): Promise<string> {
  const token = newId("scan");
  for (const id of await shipmentCrossingIds(runtime, tenant, waybill)) {
    const r = await runtime.ask(customsCrossingActor, tenant, id, { kind: "reserve_scan", token });
    if (r.ok || r.code === "not_found") continue;
    if (r.code === "held_by_customs") {
      refuse(
        "held_by_customs",
        `${waybill} is held by customs and cannot be ${done}: ${r.message}`,
      );
    }
    throw new Refused(r);
  }
  return token;
}
