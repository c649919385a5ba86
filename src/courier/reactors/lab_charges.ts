/**
 * Books the cold-chain charge of a laboratory sample (courier 2.6 rules 2, 3; 2.10) from the
 * sample's own committed `charge_due` events, so that none is lost to a request that dies, or
 * whose booking fails, after a cold-chain profile was committed. The profile's request books the
 * charge too, before it answers; the same source event books once however often it is sent (2.6
 * rule 2). As scan_charges.ts does for the charges scans cause.
 *
 * Nothing is lost on the way: the charge is due in the sample's state from the profile's own
 * commit; a booking that fails here is logged and stays due, and the sample's durable `charge`
 * timer makes it due again (SCAN_CHARGE_RETRY_MS) until this handler confirms it booked.
 */
import { type LabChargeDue, labSampleActor } from "../../../actors/courier/lab_sample/mod.ts";
import type { Shipment } from "../../../actors/courier/shipment/mod.ts";
import { bookColdChain, readShipment } from "../flows/lab.ts";
import { confirmed, DueCharges, type DueChargesOptions } from "./due_charges.ts";

export interface LabChargesOptions extends DueChargesOptions {
  /** Books the charge, throwing when it was not booked; `bookColdChain` unless a test breaks it. */
  readonly book?: typeof bookColdChain;
}

/** The cold-chain charges profiles cause, booked from the sample's own changes (due_charges.ts). */
export class LabCharges extends DueCharges<LabChargeDue, Shipment> {
  constructor(options: LabChargesOptions) {
    const { runtime } = options;
    const book = options.book ?? bookColdChain;
    super(options, {
      type: labSampleActor.type,
      worker: "lab_charges",
      // The sample's id is the waybill of its shipment, of the same courier.
      subjectOf: (change) => readShipment(runtime, change.tenant, change.id),
      book: (_tenant, shipment, charge) => book(runtime, shipment, charge.by),
      confirm: async (tenant, id, sourceEvents) =>
        confirmed(
          await runtime.ask(labSampleActor, tenant, id, {
            kind: "confirm_charges",
            source_events: sourceEvents,
          }),
        ),
    });
  }
}
