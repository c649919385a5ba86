/**
 * The worker behind scan_charges.ts and customs_charges.ts. An actor keeps each later charge its
 * commits cause due in its own state (src/courier/rules/charges_due.ts) until it is told the
 * charge was booked (`confirm_charges`). This worker books each charge a committed change makes
 * due and confirms those it booked (courier 2.6 rule 3), so none is lost to a request that dies,
 * or whose booking fails, after the commit. The same source event books once however often it
 * is sent (rule 2).
 *
 * A reactor on the shared base (src/bus/reactor.ts), one unit per change: the charges it makes
 * due. Its failures are reported, never retried within the delivery nor deferred: the charge
 * stays due in the actor, whose own durable `charge` timer makes it due again until confirmed.
 */
import type { ActorChange } from "../../bus/bus.ts";
import { type ReactorOptions, reporter, UnitReactor } from "../../bus/reactor.ts";
import type { RetryPolicy } from "../../bus/retry.ts";
import type { DueCharge } from "../rules/charges_due.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";

export interface DueChargesOptions extends Pick<ReactorOptions, "bus" | "onError"> {
  readonly runtime: ActorRuntime;
}

/** What differs between the actors that keep charges due. */
export interface DueChargeSource<C extends DueCharge, S> {
  /** The actor type whose changes carry the `charge_due` events. */
  readonly type: string;
  /** The worker's name, also in the log (`scan_charges`: "scan charges"). */
  readonly worker: string;
  /** What booking needs beyond the charge (the actor as it stood); null: nothing to book. */
  subjectOf(change: ActorChange): Promise<S | null> | S | null;
  /** Books one charge, throwing when it was not booked. */
  book(tenant: string, subject: S, charge: C): Promise<unknown>;
  /** Tells the actor these charges were booked: they are no longer due. */
  confirm(tenant: string, id: string, sourceEvents: string[]): Promise<void>;
}

/** The actor's own timer is the retry: a failure is reported once and stays due. */
const NO_RETRY: RetryPolicy = { delaysMs: [] };

// Each booking is a round trip of its own: actors side by side, one actor's in order.
export class DueCharges<C extends DueCharge, S> extends UnitReactor<ReadonlyMap<string, C>> {
  constructor(options: DueChargesOptions, source: DueChargeSource<C, S>) {
    const report = reporter(options, source.worker.replaceAll("_", " "));
    super({ runtime: options.runtime, bus: options.bus, onError: report, retry: NO_RETRY }, {
      worker: source.worker,
      actorType: source.type,
      unitsOf: (change) => {
        const due = chargesDue<C>(change, source.type);
        return due.size === 0 ? [] : [due];
      },
      work: (due, change) => bookDue(source, report, due, change),
      describe: (_due, change) => `${change.type} ${change.id}`,
    });
  }
}

/** The charges a change makes due, by source event. */
function chargesDue<C extends DueCharge>(change: ActorChange, type: string): Map<string, C> {
  const due = new Map<string, C>();
  if (change.type !== type) return due;
  for (const { event } of change.events) {
    const e = event as { kind?: unknown; charge?: C };
    if (e.kind === "charge_due" && e.charge) due.set(e.charge.source_event, e.charge);
  }
  return due;
}

/** Books each charge due, then confirms those booked; every failure is reported and stays due. */
async function bookDue<C extends DueCharge, S>(
  source: DueChargeSource<C, S>,
  report: (error: unknown, where: string) => void,
  due: ReadonlyMap<string, C>,
  change: ActorChange,
): Promise<void> {
  let subject: S | null;
  try {
    subject = await source.subjectOf(change);
  } catch (error) {
    report(error, `${change.type} ${change.id}`); // due again at the actor's retry
    return;
  }
  if (subject === null) return;
  const booked: string[] = [];
  for (const charge of due.values()) {
    try {
      await source.book(change.tenant, subject, charge);
      booked.push(charge.source_event);
    } catch (error) {
      report(error, `charge ${charge.source_event}`); // due again at the actor's retry
    }
  }
  if (booked.length === 0) return;
  try {
    await source.confirm(change.tenant, change.id, booked);
  } catch (error) {
    // Booked but still due: booked again (a no-op) and confirmed at the actor's retry.
    report(error, `charges of ${change.id} booked, not confirmed`);
  }
}

/** A refusal of `confirm_charges` as an error (the charges stay due, and are confirmed later). */
export function confirmed(r: { ok: true } | { ok: false; code: string; message: string }): void {
  if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
}
