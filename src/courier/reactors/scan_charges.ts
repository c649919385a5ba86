/**
 * Books the later charges scans cause (courier 2.6 rule 3: redeliveries, returns) from the
 * shipment's own committed `charge_due` events, so that none is lost to a request that dies, or
 * whose booking fails, after its scan was committed. The request books the charge too, before it
 * answers; the same source event books once however often it is sent (2.6 rule 2).
 *
 * Nothing is lost on the way: the charge is due in the shipment's state from the scan's own
 * commit; the runtime publishes that commit at least once (recovery markers); a booking that
 * fails here is logged and stays due, and the shipment's durable `charge` timer makes it due again
 * (SCAN_CHARGE_RETRY_MS) until this handler confirms it booked.
 */
import { type ChargeDue, shipmentActor } from "../../../actors/courier/shipment/mod.ts";
import type { ShipmentSnapshot } from "../queries/operations_row.ts";
import { confirmed, DueCharges, type DueChargesOptions } from "./due_charges.ts";
import { bookScanCharge } from "../flows/later_charges.ts";

export interface ScanChargesOptions extends DueChargesOptions {
  /** Books one charge, throwing when it was not booked; `bookScanCharge` unless a test breaks it. */
  readonly book?: typeof bookScanCharge;
}

/** The charges scans cause, booked from the shipment's own changes (due_charges.ts). */
export class ScanCharges extends DueCharges<ChargeDue, ShipmentSnapshot> {
  constructor(options: ScanChargesOptions) {
    const { runtime } = options;
    const book = options.book ?? bookScanCharge;
    super(options, {
      type: shipmentActor.type,
      worker: "scan_charges",
      subjectOf: (change) => (change.snapshot as ShipmentSnapshot | undefined) ?? null,
      // spec: courier 2.6 rule 3: priced as the shipment stood after the scan that caused it.
      book: (_tenant, s, charge) =>
        book(runtime, { ...s, attempts: charge.attempts }, charge.scan, charge.by),
      confirm: async (tenant, id, sourceEvents) =>
        confirmed(
          await runtime.ask(shipmentActor, tenant, id, {
            kind: "confirm_charges",
            source_events: sourceEvents,
          }),
        ),
    });
  }
}
