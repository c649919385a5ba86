/**
 * The stalled-booking sweep (courier 4.1: nothing is ever lost): bookings charged at least
 * STALLED_BOOKING_MS ago whose shipment was never made (the process stopped between the two
 * commits) and whose client never sent the request again, found on the query side and each
 * completed by the booking flow's own tail (completeStalledBooking), as the retry would have
 * done. Run periodically beside the billing sweep (src/courier/mod.ts).
 */
import { sql } from "kysely";
import { shipmentActor } from "../../../actors/courier/shipment/mod.ts";
import { SweepRounds, sweepRows, type SweepWindow } from "../../db/sweep_rounds.ts";
import type { Deps } from "../../environment.ts";
import {
  STALLED_BOOKING_LOOKBACK_MS,
  STALLED_BOOKING_MS,
  STALLED_BOOKINGS_PER_SWEEP,
  SWEEP_DEEP_EVERY_MS,
} from "../../limits.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { holdsActor } from "../../runtime/held.ts";
import { completeStalledBooking } from "../flows/booking/mod.ts";

/** Each environment's rounds of the stalled booking sweep: charges by time, after the waybill. */
const stalledSweeps = new WeakMap<ActorRuntime, SweepRounds<string>>();

/**
 * Completes the stalled bookings found this round; answers how many it completed.
 *
 * In rounds (src/db/sweep_rounds.ts): the first after a start, and one an hour, looks a month
 * back (a crash may have stopped bookings before any downtime); each other round only at what
 * became stalled since the last, so a sweep reads minutes of charges, not a month of them. Within
 * a round each sweep goes on after the last charge the previous one looked at: a charge it cannot
 * complete (kept before its request was) never keeps the charges after it waiting behind it,
 * and one that failed is looked at again by the next round.
 */
export function completeStalledBookings(
  deps: Pick<Deps, "runtime" | "db">,
  now: number,
): Promise<number> {
  const runtime = deps.runtime;
  let rounds = stalledSweeps.get(runtime);
  if (!rounds) {
    stalledSweeps.set(
      runtime,
      rounds = new SweepRounds({
        lookbackMs: STALLED_BOOKING_LOOKBACK_MS,
        settleMs: STALLED_BOOKING_MS,
        deepEveryMs: SWEEP_DEEP_EVERY_MS,
        pageSize: STALLED_BOOKINGS_PER_SWEEP,
        pagesPerPass: 1,
      }),
    );
  }
  return rounds.pass(now, async (w) => {
    const rows = await unshippedCharges(deps, w);
    return await sweepRows(
      rows,
      (row) => ({ at: row.created_at.getTime(), key: row.shipment! }),
      (row) =>
        // Another instance's shipment is completed by its holder's sweep (issue 43 item 3).
        holdsActor(runtime.placement, { type: shipmentActor.type, id: row.shipment! })
          ? completeStalledBooking(runtime, {
            courierId: row.tenant,
            clientId: row.client_id,
            waybill: row.shipment!,
          })
          : Promise.resolve(false),
      (e, row) => console.error(`completing the stalled booking ${row.shipment}:`, e),
    );
  });
}

/** Booking charges of the window whose shipment the query side does not hold, oldest first. */
async function unshippedCharges(deps: Pick<Deps, "db">, w: SweepWindow<string>) {
  let q = deps.db.selectFrom("ledger_entries as le")
    .select(["le.tenant", "le.client_id", "le.shipment", "le.created_at"])
    .where("le.kind", "=", "shipment")
    .where("le.shipment", "is not", null)
    .where("le.created_at", "<", new Date(w.until))
    // The bound on created_at alone keeps the scan on the partial index (migration 0008).
    .where("le.created_at", ">=", new Date(w.after?.at ?? w.from));
  if (w.after) {
    q = q.where(
      sql<boolean>`(le.created_at, le.shipment) > (${new Date(w.after.at)}, ${w.after.key})`,
    );
  }
  return await q
    .where(({ not, exists, selectFrom }) =>
      not(exists(
        selectFrom("snapshots as s")
          .select(sql`1`.as("one"))
          .where("s.type", "=", shipmentActor.type)
          .whereRef("s.id", "=", "le.shipment"),
      ))
    )
    .orderBy("le.created_at")
    .orderBy("le.shipment")
    .limit(STALLED_BOOKINGS_PER_SWEEP)
    .execute();
}
