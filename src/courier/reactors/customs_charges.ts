/**
 * Books the customs-administration charges clearances cause (courier 2.6 rule 3: one per crossing
 * cleared), and the duties the client pays, from the crossing's own committed `charge_due`
 * events, so that none is lost to a request that dies, or whose booking fails, after the move was
 * committed, whether or not the move is ever sent again. The request books the charge too, before it answers; the same
 * source event books once however often it is sent (2.6 rule 2). As scan_charges.ts does for the
 * charges scans cause.
 *
 * Nothing is lost on the way: the charge is due in the crossing's state from the clearance's own
 * commit; the runtime publishes that commit at least once (recovery markers); a booking that fails
 * here is logged and stays due, and the crossing's durable `charge` timer makes it due again
 * (SCAN_CHARGE_RETRY_MS) until this handler confirms it booked.
 */
import {
  type Crossing,
  type CrossingChargeDue,
  customsCrossingActor,
} from "../../../actors/courier/customs_crossing/mod.ts";
import { bookCrossingCharge } from "../flows/customs_charges.ts";
import { confirmed, DueCharges, type DueChargesOptions } from "./due_charges.ts";

export interface CustomsChargesOptions extends DueChargesOptions {
  /** Books one charge, throwing when it was not booked; `bookCrossingCharge` unless a test breaks it. */
  readonly book?: typeof bookCrossingCharge;
}

/** The charges clearances cause, booked from the crossing's own changes (due_charges.ts). */
export class CustomsCharges extends DueCharges<CrossingChargeDue, Crossing> {
  constructor(options: CustomsChargesOptions) {
    const { runtime } = options;
    const book = options.book ?? bookCrossingCharge;
    super(options, {
      type: customsCrossingActor.type,
      worker: "customs_charges",
      subjectOf: async (change) => {
        const got = await runtime.read(customsCrossingActor, change.tenant, change.id, {
          kind: "get",
        });
        if (!got.ok) throw new Error(`${got.code}: ${got.message}`);
        if (got.reply.kind !== "crossing") throw new Error(`get answered ${got.reply.kind}`);
        return got.reply.crossing;
      },
      book: (tenant, crossing, charge) => book(runtime, tenant, crossing, charge),
      confirm: async (tenant, id, sourceEvents) =>
        confirmed(
          await runtime.ask(customsCrossingActor, tenant, id, {
            kind: "confirm_charges",
            source_events: sourceEvents,
          }),
        ),
    });
  }
}
