/**
 * Completion billing events (courier 6.1 `shipment.delivered`, `.returned`, `.cancelled`), which
 * no ledger entry stands for: one per completed shipment, made from the shipments' changes on the
 * shared reactor base (src/bus/reactor.ts). One whose making fails is made again within the
 * delivery, which keeps the change's recovery marker until it is made; one still failing is
 * deferred (src/platform/reactors/deferred.ts) and made on a durable schedule; the completion sweep
 * (BillingEvents.sweepCompletions) covers the rest.
 *
 * Nor is an adjustment left out of the completion that lists them (courier 2.7): they are read
 * from the query side, which the ledger projection fills after the account commits, so the event
 * is made only once the query side has got as far with the account (its watermark, held before
 * any parked change of it: ledger_watermarks.ts) as the account had when the completion was
 * first tried; until then it fails, and is made again as any failed completion is. The decision
 * side keeps no entries (bounded aggregates only), so the wait is what makes the listing whole.
 */
import { asPosting } from "../../../actors/courier/courier_client.ts";
import { SYSTEM_PRINCIPAL } from "../../../actors/courier/alert.ts";
import { shipmentActor } from "../../../actors/courier/shipment/mod.ts";
import {
  type BilledClient,
  COMPLETION_EVENTS,
  completionEventBody,
  eventIdOf,
} from "../rules/billing_events.ts";
import { formatMinor } from "../../domain/money.ts";
import type { ShipmentSnapshot } from "../queries/operations_row.ts";
import type { LedgerEntry } from "../rules/ledger.ts";
import type { ActorChange } from "../../bus/bus.ts";
import { type ReactorOptions, UnitReactor } from "../../bus/reactor.ts";
import { postLaterCharge } from "../flows/later_charges.ts";
import { scanCharge, type ScanEvent } from "../rules/lifecycle.ts";
import type { Database } from "../../db/schema.ts";
import type { Kysely } from "kysely";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { ledgerWatermark } from "../queries/ledger_watermarks.ts";
import { type Adjustment, shipmentAdjustments } from "../queries/adjustments.ts";
import { COMPLETION_ADJUSTMENTS_MAX, COMPLETIONS_AWAITING_LEDGER_MAX } from "../../limits.ts";
import { billedAccountOf, createBillingEvent, type OutboxOptions } from "./billing_outbox.ts";

export interface CompletionEventsOptions extends ReactorOptions, OutboxOptions {
  readonly runtime: ActorRuntime;
  /** The query side, for a completed shipment's adjustments. */
  readonly db: Kysely<Database>;
  /** Where what the event goes out without (a refused charge, a listing cut) is reported. */
  readonly report: (error: unknown, where: string) => void;
}

/**
 * A completion's billing event waits for the query side: the client's account had booked entries
 * up to `needed` when the completion was first tried, and the ledger projection has written them
 * up to `projected` only. Thrown, so that the event is made again, within the delivery, then
 * deferred (src/platform/reactors/deferred.ts), then by the sweep, never made without them.
 */
export class LedgerCatchingUp extends Error {
  override readonly name = "LedgerCatchingUp";
  constructor(waybill: string, clientId: string, needed: number, projected: number) {
    super(
      `the completion of ${waybill} waits for the ledger of client ${clientId} to reach the ` +
        `query side up to entry ${needed}: projected up to ${projected}`,
    );
  }
}

/** Makes the completion events of the shipments' changes (`<env>.*.shipment.*`). */
export class CompletionEvents {
  readonly #o: CompletionEventsOptions;
  /** By completion event id: the entry seq its adjustments wait for (see #awaitedSeq). */
  readonly #awaited = new Map<string, number>();
  // Shipments side by side, one shipment's changes in order: a completion being retried holds
  // up only its own shipment.
  readonly #changes: UnitReactor<number | undefined>;

  constructor(options: CompletionEventsOptions) {
    this.#o = options;
    this.#changes = new UnitReactor(options, {
      worker: "billing_completions",
      actorType: shipmentActor.type,
      unitsOf: completionsOf,
      work: (at, change) => {
        const s = change.snapshot as ShipmentSnapshot;
        return this.emit(change.tenant, s, at ?? s.closed_at ?? 0, change.request_id);
      },
      describe: (_at, change) => `completion event of ${change.id}`,
    });
  }

  async close(): Promise<void> {
    await this.#changes.close();
  }

  /** Courier 6.1: one event per completed shipment (delivered with POD, returned, cancelled). */
  async emit(tenant: string, s: ShipmentSnapshot, at: number, requestId?: string): Promise<void> {
    const eventType = COMPLETION_EVENTS[s.status as keyof typeof COMPLETION_EVENTS];
    if (!eventType) return;
    const account = await billedAccountOf(this.#o.runtime, tenant, s.client_id);
    // Every shipment has its client: none found is a failure to report, never a silent skip.
    if (!account) throw new Error(`client ${s.client_id} of ${s.waybill} not found`);
    const eventId = await eventIdOf("billing.completion", tenant, s.waybill, eventType);
    // Read from the account after the completion was committed (its change brought us here):
    // every adjustment booked before the completion has an entry seq up to this one.
    const booked = this.#awaitedSeq(eventId, account.seq);
    const own = await this.#ownCharge(s);
    const adjustments = await this.#adjustments(tenant, s, booked, own, eventType);
    await createBillingEvent(this.#o, {
      tenant,
      clientId: s.client_id,
      entry: null,
      eventId,
      eventType,
      rawBody: completionBody({ eventId, eventType, at, client: account.client, s, adjustments }),
      requestId,
    });
    this.#awaited.delete(eventId);
  }

  /**
   * The charge the completing scan itself causes (a return, the last redelivery), booked by that
   * scan's request and by the shipment's `charge_due` (scan_charges.ts) a moment before or after
   * this: booked here too (once, by its source event), so the completion lists it whether or not
   * its row has reached the query side. A refused charge is reported and the completion still
   * goes out with what was booked.
   */
  async #ownCharge(s: ShipmentSnapshot): Promise<LedgerEntry | null> {
    const own = scanCharge(s, s.status as ScanEvent);
    if (!own) return null;
    const posted = await postLaterCharge(this.#o.runtime, s, { ...own, by: SYSTEM_PRINCIPAL });
    if (posted && !posted.ok) {
      this.#o.report(new Error(`${own.reference}: ${posted.message}`), `charge of ${s.waybill}`);
    }
    return posted?.ok ? asPosting(posted.reply).entry : null;
  }

  /**
   * spec: courier 2.7, 6.1: the completion is sent once, with its adjustments as they stand: made
   * from a query side behind the account, it would leave out for good a charge or note booked
   * just before. The scan's own charge need not be there: its reply is listed.
   */
  async #adjustments(
    tenant: string,
    s: ShipmentSnapshot,
    booked: number,
    own: LedgerEntry | null,
    eventType: string,
  ): Promise<Adjustment[]> {
    const needed = own?.seq === booked ? booked - 1 : booked;
    const projected = await ledgerWatermark(this.#o.db, tenant, s.client_id);
    if (projected < needed) throw new LedgerCatchingUp(s.waybill, s.client_id, needed, projected);
    // The later charges booked on it so far (they are also sent one by one as they happen).
    const later = await shipmentAdjustments(
      this.#o.db,
      tenant,
      s.client_id,
      s.waybill,
      COMPLETION_ADJUSTMENTS_MAX + 1,
    );
    // Notes stop well short of the bound (NOTE_ADJUSTMENTS_MAX); a shipment whose work alone
    // booked past it is listed to the bound and reported, never cut short unseen (each charge
    // also went out as its own event).
    if (later.length > COMPLETION_ADJUSTMENTS_MAX) {
      later.length = COMPLETION_ADJUSTMENTS_MAX;
      this.#o.report(
        new Error(
          `${s.waybill} has more than ${COMPLETION_ADJUSTMENTS_MAX} adjustments; its ` +
            `${eventType} lists the first ${COMPLETION_ADJUSTMENTS_MAX}`,
        ),
        `completion event of ${s.waybill}`,
      );
    }
    if (own && !later.some((e) => sameEntry(e, own))) later.push(own);
    return later;
  }

  /**
   * The entry seq a completion's adjustments wait for: the account's at its first try here, kept
   * for its later tries (retries, deferred tries, the sweep), so that the wait has an end on an
   * account booking all the while (one read afresh each try would stay ahead of the query side).
   */
  #awaitedSeq(eventId: string, seq: number): number {
    const kept = this.#awaited.get(eventId);
    if (kept !== undefined) return kept;
    if (this.#awaited.size >= COMPLETIONS_AWAITING_LEDGER_MAX) {
      this.#awaited.delete(this.#awaited.keys().next().value!);
    }
    this.#awaited.set(eventId, seq);
    return seq;
  }
}

/** The body of a completion event (courier 2.7): the shipment as completed and its adjustments. */
function completionBody(o: {
  eventId: string;
  eventType: string;
  at: number;
  client: BilledClient;
  s: ShipmentSnapshot;
  adjustments: readonly Adjustment[];
}): string {
  const s = o.s;
  return completionEventBody({
    eventId: o.eventId,
    eventType: o.eventType,
    occurredAt: o.at,
    client: o.client,
    shipment: {
      waybill: s.waybill,
      external_customer_code: s.references.external_customer_code,
      external_billing_reference: s.references.external_billing_reference,
      booked_at: s.booked_at,
      service: s.pricing.service.code,
      total_minor: s.pricing.total_minor,
      tax_minor: s.pricing.tax_minor,
      currency: s.pricing.currency,
      lines: s.pricing.lines,
      status: s.status,
      delivered_at: s.delivered_at,
      // spec: courier 6.1 "with POD": a delivery proves itself only by naming who received it
      // (the one proof a delivery scan records); a bare scan or a note is no proof.
      pod: (s.pod?.received_by ?? null) !== null,
    },
    adjustments: o.adjustments.map((r) => ({
      reference: r.reference,
      kind: r.kind,
      amount: formatMinor(r.amount_minor, r.currency),
      currency: r.currency,
      reason: r.reason,
      recoverable: r.recoverable,
      correction: r.corrects,
      // spec: courier 2.6 rule 4: a charge awaiting its rate is listed, marked as not owed yet.
      status: r.status,
    })),
  });
}

/** One entry of a client: its reference is unique within its kind (courier 2.6). */
function sameEntry(
  a: { readonly reference: string; readonly kind: string },
  b: { readonly reference: string; readonly kind: string },
): boolean {
  return a.reference === b.reference && a.kind === b.kind;
}

/**
 * The completions a shipment's change reports (courier 6.1), by when each was reached (absent
 * on older events); none without the snapshot their events are made from.
 */
function completionsOf(change: ActorChange): (number | undefined)[] {
  if (change.type !== shipmentActor.type || !change.snapshot) return [];
  return change.events.flatMap(({ event }) => {
    const e = event as { kind?: string; stage?: string; at?: number };
    return e.kind === "stage_reached" && e.stage && e.stage in COMPLETION_EVENTS ? [e.at] : [];
  });
}
