/**
 * Billing events to the courier's system (courier 2.7, 3.1, 6.1): one event per charge, created
 * from the client accounts' ledger changes on the bus and handed to the delivery engine as an
 * `outbound_event` actor. Every id is derived from the entry, so a replayed change, a second
 * instance or the sweeper creating the same event again changes nothing ("each is sent once").
 *
 * Nothing is lost between the ledger commit and the event: the ledger projector writes each
 * entry's event id beside it in Postgres (and, once a conversion is resolved, its
 * `charge.resolved` event's), and `sweep` re-creates the events of entries whose event never
 * reached the query side (a process that died between the two steps).
 *
 * Nor between a shipment's completion and its event (courier 6.1 `shipment.delivered`,
 * `.returned`, `.cancelled`), which no ledger entry stands for: an event whose making fails is
 * made again within the delivery (src/bus/retry.ts), which covers a transient failure and keeps
 * the change's recovery marker until it is made; one still failing is deferred
 * (src/bus/deferred.ts) and made on a durable schedule; `sweepCompletions` covers the rest (a
 * process that died after the change counted handled), from the completed shipments on the
 * query side.
 *
 * Nor is an adjustment left out of the completion that lists them (courier 2.7): they are read
 * from the query side, which the ledger projection fills after the account commits, so the event
 * is made only once the query side has got as far with the account (its watermark, held before
 * any parked change of it: src/db/ledger_watermarks.ts) as the account had when the completion
 * was first tried; until then it fails, and is made
 * again as any failed completion is. The decision side keeps no entries (bounded aggregates
 * only), so the wait is what makes the listing whole.
 */
import { type ExpressionBuilder, type Kysely, sql } from "kysely";
import {
  asPosting,
  courierClientActor,
  type CourierClientEvent,
} from "../../../actors/courier/courier_client.ts";
import { SYSTEM_PRINCIPAL } from "../../../actors/courier/alert.ts";
import { outboundEventActor, type Recipient } from "../../../actors/platform/outbound_event/mod.ts";
import { shipmentActor } from "../../../actors/courier/shipment/mod.ts";
import {
  ADJUSTMENT_KINDS,
  type BilledClient,
  CHARGE_RESOLVED,
  chargeEventBody,
  chargeEventType,
  type ChargeShipment,
  COMPLETION_EVENTS,
  completionEventBody,
  eventIdOf,
} from "../rules/billing_events.ts";
import { formatMinor } from "../../domain/money.ts";
import type { ShipmentSnapshot } from "../queries/operations_row.ts";
import { entryOf, type LedgerEntry } from "../rules/ledger.ts";
import type { ActorChange, Bus } from "../../bus/bus.ts";
import { subjectPattern } from "../../bus/bus.ts";
import { type KeyedSubscription, subscribeKeyed, subscribeUnits } from "../../bus/keyed.ts";
import { HANDLER_RETRY, retried, type RetryPolicy } from "../../bus/retry.ts";
import type { Deferral } from "../../bus/keyed.ts";
import { postLaterCharge } from "../flows/later_charges.ts";
import { scanCharge, type ScanEvent } from "../rules/lifecycle.ts";
import type { Database, LedgerEntryRow } from "../../db/schema.ts";
import { ledgerWatermark } from "../queries/ledger_watermarks.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { SweepRounds, sweepRows, type SweepWindow, type SweptPage } from "../../db/sweep_rounds.ts";
import {
  CHARGE_SWEEP_LOOKBACK_MS,
  CHARGE_SWEEP_PAGE_MAX,
  CHARGE_SWEEP_PAGES,
  COMPLETION_ADJUSTMENTS_MAX,
  COMPLETION_SWEEP_LOOKBACK_MS,
  COMPLETION_SWEEP_PAGE_MAX,
  COMPLETION_SWEEP_PAGES,
  COMPLETIONS_AWAITING_LEDGER_MAX,
  SWEEP_DEEP_EVERY_MS,
} from "../../limits.ts";
import type { DeliveryTarget } from "../../platform/reactors/deliver.ts";

/** An entry whose event is not projected this long after it was made is re-emitted. */
export const SWEEP_AFTER_MS = 60_000;

/**
 * The id of the billing event reporting `entry`, or null when the entry is no charge. A note's
 * reference is the caller's own and may repeat another entry's (courier 2.6: a reference is
 * unique within its kind): its kind keeps its event apart. Other kinds keep the id they had.
 */
export async function chargeEventIdOf(
  tenant: string,
  clientId: string,
  entry: LedgerEntry,
): Promise<string | null> {
  if (chargeEventType(entry) === null) return null;
  if (entry.kind === "debit_note" || entry.kind === "credit_note") {
    return await eventIdOf("billing", tenant, clientId, entry.reference, entry.kind);
  }
  return await eventIdOf("billing", tenant, clientId, entry.reference);
}

/** The id of the `charge.resolved` event of an entry's conversion (courier 6.1). */
export function resolvedEventIdOf(tenant: string, clientId: string, reference: string): string {
  return eventIdOf("billing.resolved", tenant, clientId, reference);
}

export interface BillingEventsOptions {
  readonly runtime: ActorRuntime;
  readonly bus: Bus;
  /**
   * The query side, for a completed shipment's later charges (its adjustments), once it holds
   * every entry its client's account had booked.
   */
  readonly db: Kysely<Database>;
  /**
   * Where the courier's events go (targets.ts): an event made while there is none is made with
   * its first attempt already noted as finding none. Without it, the delivery engine finds out.
   */
  readonly targets?: (tenant: string, recipient: Recipient) => Promise<DeliveryTarget | null>;
  /** Where an event that still fails after its retries is reported; `console.error` by default. */
  readonly onError?: (error: unknown, where: string) => void;
  readonly retry?: RetryPolicy;
  /** Where a completion event still failing after its retries is kept to be made later. */
  readonly deferral?: Deferral;
}

/** Creates billing events from ledger changes (subscribed to `<env>.*.courier_client.*`). */
export class BillingEvents {
  readonly #o: BillingEventsOptions;
  readonly #charges: KeyedSubscription;
  readonly #completions: KeyedSubscription;
  /** By completion event id: the entry seq its adjustments wait for (see #awaitedSeq). */
  readonly #awaited = new Map<string, number>();
  /** Entries by creation time, after their billing event id. */
  readonly #chargeRounds = new SweepRounds<string>({
    lookbackMs: CHARGE_SWEEP_LOOKBACK_MS,
    settleMs: SWEEP_AFTER_MS,
    deepEveryMs: SWEEP_DEEP_EVERY_MS,
    pageSize: CHARGE_SWEEP_PAGE_MAX,
    pagesPerPass: CHARGE_SWEEP_PAGES,
  });
  /** Shipments by closing time, after their waybill. */
  readonly #completionRounds = new SweepRounds<string>({
    lookbackMs: COMPLETION_SWEEP_LOOKBACK_MS,
    settleMs: SWEEP_AFTER_MS,
    deepEveryMs: SWEEP_DEEP_EVERY_MS,
    pageSize: COMPLETION_SWEEP_PAGE_MAX,
    pagesPerPass: COMPLETION_SWEEP_PAGES,
  });

  constructor(options: BillingEventsOptions) {
    this.#o = options;
    const env = options.runtime.busPrefix;
    // The events of many accounts are made side by side, one account's in order; taken one
    // change at a time, accounts booking apart fell further behind with each booking.
    this.#charges = subscribeKeyed(
      options.bus,
      subjectPattern(env, "*", courierClientActor.type),
      (m) => this.#onChange(m.payload),
    );
    // Shipments side by side, one shipment's changes in order: a completion being retried holds
    // up only its own shipment.
    this.#completions = subscribeUnits({
      bus: options.bus,
      pattern: subjectPattern(env, "*", shipmentActor.type),
      worker: "billing_completions",
      unitsOf: completionsOf,
      work: (at, change) => {
        const s = change.snapshot as ShipmentSnapshot;
        return this.emitCompletion(change.tenant, s, at ?? s.closed_at ?? 0);
      },
      report: (error, _at, change) => this.#error(error, `completion event of ${change.id}`),
      retry: options.retry,
      deferral: options.deferral,
    });
  }

  /** Stops taking changes and waits for the events being made (retries included). */
  async close(): Promise<void> {
    await Promise.all([this.#charges.close(), this.#completions.close()]);
  }

  /** Courier 6.1: one event per completed shipment (delivered with POD, returned, cancelled). */
  async emitCompletion(tenant: string, s: ShipmentSnapshot, at: number): Promise<void> {
    const eventType = COMPLETION_EVENTS[s.status as keyof typeof COMPLETION_EVENTS];
    if (!eventType) return;
    const account = await this.#accountOf(tenant, s.client_id);
    // Every shipment has its client: none found is a failure to report, never a silent skip.
    if (!account) throw new Error(`client ${s.client_id} of ${s.waybill} not found`);
    const { client } = account;
    const eventId = await eventIdOf("billing.completion", tenant, s.waybill, eventType);
    // Read from the account after the completion was committed (its change brought us here):
    // every adjustment booked before the completion has an entry seq up to this one.
    const booked = this.#awaitedSeq(eventId, account.seq);
    // The charge the completing scan itself causes (a return, the last redelivery) is booked by
    // that scan's request and by the shipment's `charge_due` (scan_charges.ts) a moment before or
    // after this: booked here too (once, by its source event), so the completion lists it
    // whether or not its row has reached the query side.
    const own = scanCharge(s, s.status as ScanEvent);
    const posted = own
      ? await postLaterCharge(this.#o.runtime, s, { ...own, by: SYSTEM_PRINCIPAL })
      : null;
    // A refused charge is reported and the completion still goes out with what was booked.
    if (posted && !posted.ok) {
      this.#error(new Error(`${own!.reference}: ${posted.message}`), `charge of ${s.waybill}`);
    }
    const ownEntry = posted?.ok ? asPosting(posted.reply).entry : null;
    // spec: courier 2.7, 6.1: the completion is sent once, with its adjustments as they stand:
    // made from a query side behind the account, it would leave out for good a charge or note
    // booked just before. The scan's own charge need not be there: its reply is listed.
    const needed = ownEntry?.seq === booked ? booked - 1 : booked;
    const projected = await ledgerWatermark(this.#o.db, tenant, s.client_id);
    if (projected < needed) throw new LedgerCatchingUp(s.waybill, s.client_id, needed, projected);
    // The later charges booked on it so far (they are also sent one by one as they happen).
    const rows = await this.#o.db.selectFrom("ledger_entries")
      .selectAll()
      .where("tenant", "=", tenant)
      .where("client_id", "=", s.client_id)
      .where("shipment", "=", s.waybill)
      // spec: courier 2.7: later charges and notes; a remitted COD is no adjustment.
      .where("kind", "in", ADJUSTMENT_KINDS)
      .orderBy("seq")
      .limit(COMPLETION_ADJUSTMENTS_MAX + 1)
      .execute();
    // Notes stop well short of the bound (NOTE_ADJUSTMENTS_MAX); a shipment whose work alone
    // booked past it is listed to the bound and reported, never cut short unseen (each charge
    // also went out as its own event).
    if (rows.length > COMPLETION_ADJUSTMENTS_MAX) {
      rows.length = COMPLETION_ADJUSTMENTS_MAX;
      this.#error(
        new Error(
          `${s.waybill} has more than ${COMPLETION_ADJUSTMENTS_MAX} adjustments; its ` +
            `${eventType} lists the first ${COMPLETION_ADJUSTMENTS_MAX}`,
        ),
        `completion event of ${s.waybill}`,
      );
    }
    const later = rows.map((r) => ({
      reference: r.reference,
      kind: r.kind,
      amount_minor: Number(r.amount_minor),
      currency: r.currency,
      reason: r.reason,
      recoverable: r.recoverable,
      corrects: r.corrects,
      status: r.status,
    }));
    if (ownEntry && !later.some((e) => sameEntry(e, ownEntry))) later.push(ownEntry);
    const body = completionEventBody({
      eventId,
      eventType,
      occurredAt: at,
      client,
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
      adjustments: later.map((r) => ({
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
    await this.#create(tenant, s.client_id, null, eventId, eventType, body);
    this.#awaited.delete(eventId);
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

  /**
   * Creates (or finds) the billing event of one charge entry; `storedId`: the id its projected
   * row names (the sweeper's), which stands even if the derivation changed since.
   */
  async emitCharge(
    tenant: string,
    client: BilledClient,
    entry: LedgerEntry,
    shipment?: ChargeShipment | null,
    storedId?: string,
  ): Promise<void> {
    const eventType = chargeEventType(entry);
    if (eventType === null) return;
    const eventId = storedId ?? (await chargeEventIdOf(tenant, client.id, entry))!;
    await this.#emitEntry(tenant, client, entry, eventId, eventType, shipment);
  }

  /**
   * Creates (or finds) the `charge.resolved` event of a conversion that got its rate (courier 6.1:
   * the converted amount, once the rate is known); `resolved` is the entry as resolved, and
   * `storedId` the id its projected row names (the sweeper's).
   */
  async emitResolved(
    tenant: string,
    client: BilledClient,
    resolved: LedgerEntry,
    storedId?: string,
  ): Promise<void> {
    const entry = entryOf({
      ...resolved,
      reason: `conversion resolved at ${resolved.fx_rate} (${resolved.fx_source})`,
      source_event: `${CHARGE_RESOLVED}:${resolved.reference}`,
    });
    const eventId = storedId ?? resolvedEventIdOf(tenant, client.id, resolved.reference);
    // Occurs at the resolution's moment (the entry's created_at), when the charge is booked;
    // `charged_at` says when it arose.
    await this.#emitEntry(tenant, client, entry, eventId, CHARGE_RESOLVED);
  }

  /** Creates (or finds) the event `eventId` telling of `entry`, occurring when it was booked. */
  async #emitEntry(
    tenant: string,
    client: BilledClient,
    entry: LedgerEntry,
    eventId: string,
    eventType: string,
    shipment?: ChargeShipment | null,
  ): Promise<void> {
    await this.#create(
      tenant,
      client.id,
      { reference: entry.reference, kind: entry.kind },
      eventId,
      eventType,
      chargeEventBody({
        eventId,
        eventType,
        occurredAt: entry.created_at,
        client,
        entry,
        shipment: shipment === undefined ? await this.#shipmentOf(tenant, entry) : shipment,
      }),
    );
  }

  /**
   * Re-creates the events of entries whose event never reached the query side (made at least
   * SWEEP_AFTER_MS ago), their own or their resolution's (spec: courier 6.1 `charge.resolved`,
   * each sent once), in rounds (src/db/sweep_rounds.ts): each reads the entries made since the
   * last round on their index (migration 0010), not the whole ledger. Answers how many it re-sent.
   */
  sweep(db: Kysely<Database>, now: number): Promise<number> {
    return this.#chargeRounds.pass(now, (window) => this.#sweepCharges(db, window));
  }

  async #sweepCharges(db: Kysely<Database>, w: SweepWindow<string>): Promise<SweptPage<string>> {
    let query = db.selectFrom("ledger_entries as le")
      .selectAll("le")
      .where("le.event_id", "is not", null)
      .where("le.created_at", ">=", new Date(w.after?.at ?? w.from))
      .where("le.created_at", "<", new Date(w.until));
    if (w.after) {
      query = query.where(
        sql<boolean>`(le.created_at, le.event_id) > (${new Date(w.after.at)}, ${w.after.key})`,
      );
    }
    // An entry's own event, or, once it was resolved, its charge.resolved event (courier 6.1):
    // either one a crash kept from being made.
    const missing = (
      eb: ExpressionBuilder<Database & { le: Database["ledger_entries"] }, "le">,
      column: "le.event_id" | "le.resolved_event_id",
    ) =>
      eb.not(eb.exists(
        eb.selectFrom("snapshots as s")
          .select(sql`1`.as("one"))
          .where("s.type", "=", outboundEventActor.type)
          .whereRef("s.id", "=", column),
      ));
    const resolutionMissing = (eb: Parameters<typeof missing>[0]) =>
      eb.and([eb("le.resolved_event_id", "is not", null), missing(eb, "le.resolved_event_id")]);
    const rows = await query
      .select((eb) => [
        missing(eb, "le.event_id").as("event_missing"),
        resolutionMissing(eb).as("resolved_missing"),
      ])
      .where((eb) => eb.or([missing(eb, "le.event_id"), resolutionMissing(eb)]))
      .orderBy("le.created_at")
      .orderBy("le.event_id")
      .limit(CHARGE_SWEEP_PAGE_MAX)
      .execute();
    const clients = new Map<string, BilledClient | null>();
    // One entry that fails (its client unreadable for now) is tried again next round.
    return await sweepRows(
      rows,
      (row) => ({ at: row.created_at.getTime(), key: row.event_id! }),
      async (row) => {
        const key = `${row.tenant}/${row.client_id}`;
        if (!clients.has(key)) clients.set(key, await this.#clientOf(row.tenant, row.client_id));
        const client = clients.get(key);
        if (!client) return false;
        const entry = entryOfRow(row);
        if (row.event_missing) {
          await this.emitCharge(row.tenant, client, entry, undefined, row.event_id!);
        }
        if (row.resolved_missing) {
          await this.emitResolved(row.tenant, client, entry, row.resolved_event_id!);
        }
        return true;
      },
      (error, row) => this.#error(error, `billing event of ${row.reference} (sweep)`),
    );
  }

  /**
   * spec: courier 6.1: one event per completed shipment, each sent once. Makes the completion
   * events missing from the query side of shipments that closed at least SWEEP_AFTER_MS ago: a
   * failure that outlasted the handler's retries, or a process that died after the change
   * counted handled. In rounds (src/db/sweep_rounds.ts): each reads the shipments closed since
   * the last round, in closing order, and one round an hour goes a week back (a snapshot
   * projected late). Making an event that exists changes nothing (its id is derived). Answers
   * how many it made (or found made meanwhile, not yet on the query side).
   */
  sweepCompletions(db: Kysely<Database>, now: number): Promise<number> {
    return this.#completionRounds.pass(now, async (window) => {
      const page = await completedShipments(db, window);
      const swept = await sweepRows(
        await missingCompletions(db, page),
        (row) => ({ at: row.data.closed_at ?? 0, key: row.id }),
        async (row) => {
          await this.emitCompletion(row.tenant, row.data, row.data.closed_at ?? 0);
          return true;
        },
        (error, row) => this.#error(error, `completion event of ${row.id} (sweep)`),
      );
      // The round goes on after the page it read, not after the few it made events for.
      const last = page.at(-1);
      return {
        ...swept,
        read: page.length,
        last: last ? { at: last.closed_at, key: last.id } : null,
      };
    });
  }

  async #onChange(payload: unknown): Promise<void> {
    const change = payload as ActorChange;
    if (change.type !== courierClientActor.type || !change.snapshot) return;
    const client = billedClientOf(change.snapshot);
    if (!client) return;
    // The events of one change (a busy account's whole batch) are made together, so that their
    // commits share group commits instead of taking one each, in turn.
    await Promise.all(change.events.map(async ({ event }) => {
      try {
        await retried(
          () => this.#onEvent(change.tenant, client, event as CourierClientEvent),
          this.#o.retry ?? HANDLER_RETRY,
        );
      } catch (e) {
        this.#error(e, `billing event of ${change.tenant}/${change.id}`);
      }
    }));
  }

  async #onEvent(tenant: string, client: BilledClient, event: CourierClientEvent): Promise<void> {
    switch (event.kind) {
      case "booking_charged":
        if (!event.entry) return;
        return await this.emitCharge(
          tenant,
          client,
          event.entry,
          event.references ? { waybill: event.waybill, ...event.references } : undefined,
        );
      case "entry_posted":
      case "cod_remitted":
        return await this.emitCharge(tenant, client, event.entry);
      case "fx_resolved":
        return await this.emitResolved(tenant, client, entryOf(event.resolution));
      default:
        return;
    }
  }

  async #create(
    tenant: string,
    clientId: string,
    entry: { readonly reference: string; readonly kind: string } | null,
    eventId: string,
    eventType: string,
    rawBody: string,
  ): Promise<void> {
    const recipient: Recipient = { kind: "courier" };
    // A failed lookup leaves the first attempt to the delivery engine, which looks again.
    const target = await this.#o.targets?.(tenant, recipient).catch(() => undefined);
    const created = await this.#o.runtime.ask(outboundEventActor, tenant, eventId, {
      kind: "create",
      event: {
        event_id: eventId,
        stream: "billing",
        event_type: eventType,
        raw_body: rawBody,
        recipient,
        entry: entry === null ? null : { client_id: clientId, ...entry },
        // spec: courier 4.3: a completion is its shipment's client's too, for the outbox by client.
        client_id: clientId,
      },
      endpoint_missing: target === null,
      // Derived from a change heard now: new unless the change is heard again, when the
      // commit's check finds the stored event (AskOptions.fresh).
    }, { fresh: true });
    // The same event made twice with other bytes (a client renamed between two emissions) is
    // the event already made: it stands.
    if (!created.ok && created.code !== "exists_with_different_body") {
      throw new Error(`billing event ${eventId}: ${created.code}: ${created.message}`);
    }
  }

  async #shipmentOf(tenant: string, entry: LedgerEntry): Promise<ChargeShipment | null> {
    if (entry.shipment === null) return null;
    const got = await this.#o.runtime.read(shipmentActor, tenant, entry.shipment, { kind: "get" });
    const refs = got.ok && "references" in got.reply ? got.reply.references : null;
    return {
      waybill: entry.shipment,
      external_customer_code: refs?.external_customer_code ?? null,
      external_billing_reference: refs?.external_billing_reference ?? null,
      client_order_reference: refs?.client_order_reference ?? null,
    };
  }

  /** The client, or null when there is none; a refused read (a busy actor) throws. */
  async #clientOf(tenant: string, clientId: string): Promise<BilledClient | null> {
    return (await this.#accountOf(tenant, clientId))?.client ?? null;
  }

  /**
   * The client and the last entry seq its account handed out, or null when there is none; a
   * refused read (a busy actor) throws.
   */
  async #accountOf(
    tenant: string,
    clientId: string,
  ): Promise<{ client: BilledClient; seq: number } | null> {
    const got = await this.#o.runtime.read(courierClientActor, tenant, clientId, { kind: "get" });
    if (!got.ok && got.code !== "not_found") {
      throw new Error(`client ${clientId}: ${got.code}: ${got.message}`);
    }
    if (!got.ok || !got.reply || !("ledger" in got.reply)) return null;
    const c = got.reply;
    return { client: { id: c.id, code: c.code, name: c.name }, seq: c.ledger.seq };
  }

  #error(error: unknown, where: string): void {
    if (this.#o.onError) this.#o.onError(error, where);
    else console.error(`billing events: ${where}:`, error);
  }
}

/**
 * A completion's billing event waits for the query side: the client's account had booked entries
 * up to `needed` when the completion was first tried, and the ledger projection has written them
 * up to `projected` only. Thrown, so that the event is made again, within the delivery, then
 * deferred (src/bus/deferred.ts), then by the sweep, never made without them.
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

/** A closed shipment as the completion sweep first reads it: without its snapshot. */
interface ClosedShipment {
  readonly id: string;
  readonly tenant: string;
  readonly status: string;
  readonly closed_at: number;
}

/**
 * The snapshots of the shipments of `page` whose completion event the query side does not hold:
 * their ids derived, looked for at once, and only the missing ones read whole (the body is made
 * from them).
 */
async function missingCompletions(
  db: Kysely<Database>,
  page: readonly ClosedShipment[],
): Promise<{ id: string; tenant: string; data: ShipmentSnapshot }[]> {
  const wanted = page.flatMap((r) => {
    const eventType = COMPLETION_EVENTS[r.status as keyof typeof COMPLETION_EVENTS];
    if (!eventType) return [];
    return [{ ...r, eventId: eventIdOf("billing.completion", r.tenant, r.id, eventType) }];
  });
  if (wanted.length === 0) return [];
  const found = new Set(
    (await db.selectFrom("snapshots").select("id")
      .where("type", "=", outboundEventActor.type)
      .where("id", "in", wanted.map((w) => w.eventId))
      .execute()).map((r) => r.id),
  );
  const missing = wanted.filter((w) => !found.has(w.eventId));
  if (missing.length === 0) return [];
  const rows = await db.selectFrom("snapshots").select(["id", "tenant", "data"])
    .where("type", "=", shipmentActor.type)
    .where("id", "in", missing.map((m) => m.id))
    .execute();
  return rows.map((r) => ({ id: r.id, tenant: r.tenant, data: r.data as ShipmentSnapshot }));
}

/**
 * One page of the shipments closed within the window, in closing order, after its cursor
 * (migration 0009 indexes exactly this).
 */
async function completedShipments(
  db: Kysely<Database>,
  w: SweepWindow<string>,
): Promise<ClosedShipment[]> {
  const closedAt = sql<string>`(data->>'closed_at')::bigint`;
  let query = db.selectFrom("snapshots")
    .select(["id", "tenant", sql<string>`data->>'status'`.as("status"), closedAt.as("closed_at")])
    .where("type", "=", shipmentActor.type)
    .where(sql<boolean>`data->>'closed_at' is not null`)
    .where(closedAt, ">=", String(w.from))
    .where(closedAt, "<", String(w.until));
  if (w.after !== null) {
    query = query.where(
      sql<boolean>`(${closedAt}, id) > (${String(w.after.at)}::bigint, ${w.after.key})`,
    );
  }
  const rows = await query.orderBy(closedAt).orderBy("id")
    .limit(COMPLETION_SWEEP_PAGE_MAX)
    .execute();
  return rows.map((r) => ({ ...r, closed_at: Number(r.closed_at) }));
}

function billedClientOf(snapshot: unknown): BilledClient | null {
  const s = snapshot as Partial<Record<"id" | "code" | "name", unknown>>;
  if (typeof s.id !== "string" || typeof s.code !== "string" || typeof s.name !== "string") {
    return null;
  }
  return { id: s.id, code: s.code, name: s.name };
}

/** A projected row back as the ledger entry it was made from. */
export function entryOfRow(row: LedgerEntryRow): LedgerEntry {
  return entryOf({
    reference: row.reference,
    seq: row.seq,
    period: row.period,
    kind: row.kind as LedgerEntry["kind"],
    amount_minor: Number(row.amount_minor),
    currency: row.currency,
    status: row.status as LedgerEntry["status"],
    recoverable: row.recoverable,
    reason: row.reason,
    evidence_path: row.evidence_path,
    source_event: row.source_event,
    original_amount_minor: row.original_amount_minor === null
      ? null
      : Number(row.original_amount_minor),
    original_currency: row.original_currency,
    fx_rate: row.fx_rate,
    fx_source: row.fx_source,
    corrects: row.corrects,
    ...(row.corrects_kind === null
      ? {}
      : { corrects_kind: row.corrects_kind as LedgerEntry["kind"] }),
    shipment: row.shipment,
    created_at: row.created_at.getTime(),
    ...(row.charged_at === null ? {} : { charged_at: row.charged_at.getTime() }),
  });
}
