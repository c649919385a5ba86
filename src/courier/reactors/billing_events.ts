/**
 * Billing events to the courier's system (courier 2.7, 3.1, 6.1): one event per charge, ordered
 * in the outbox of the client account's commit that books it (billing_charges.ts), and one per
 * completed shipment, from the shipments' changes (billing_completions.ts), each handed to the
 * delivery engine as an `outbound_event` actor (billing_outbox.ts). Every id is derived from
 * what the event reports, so an item handed over twice, a second instance or a sweep creating
 * the same event again changes nothing ("each is sent once").
 *
 * Nothing is lost between the ledger commit and the event: the outbox item is in that commit, and
 * besides, the ledger projector writes each entry's event id beside it in Postgres (and, once a
 * conversion is resolved, its `charge.resolved` event's), and `sweep` re-creates the events of
 * entries whose event never reached the query side. Nor between a shipment's completion and its
 * event: `sweepCompletions` makes those missing from the query side.
 */
import { type ExpressionBuilder, type Kysely, sql } from "kysely";
import { outboundEventActor } from "../../../actors/platform/outbound_event/mod.ts";
import { courierClientActor } from "../../../actors/courier/courier_client.ts";
import { shipmentActor } from "../../../actors/courier/shipment/mod.ts";
import { holdsActor } from "../../runtime/held.ts";
import { type BilledClient, COMPLETION_EVENTS, eventIdOf } from "../rules/billing_events.ts";
import type { ShipmentSnapshot } from "../queries/operations_row.ts";
import { entryOfRow } from "../queries/ledger_rows.ts";
import type { Bus } from "../../bus/bus.ts";
import type { Deferral } from "../../bus/keyed.ts";
import { reporter } from "../../bus/reactor.ts";
import type { RetryPolicy } from "../../bus/retry.ts";
import type { Database } from "../../db/schema.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { SweepRounds, sweepRows, type SweepWindow, type SweptPage } from "../../db/sweep_rounds.ts";
import {
  CHARGE_SWEEP_LOOKBACK_MS,
  CHARGE_SWEEP_PAGE_MAX,
  CHARGE_SWEEP_PAGES,
  COMPLETION_SWEEP_LOOKBACK_MS,
  COMPLETION_SWEEP_PAGE_MAX,
  COMPLETION_SWEEP_PAGES,
  SWEEP_DEEP_EVERY_MS,
} from "../../limits.ts";
import { billedAccountOf, type OutboxOptions } from "./billing_outbox.ts";
import { ChargeEvents } from "./billing_charges.ts";
import { CompletionEvents } from "./billing_completions.ts";

export { chargeEventIdOf, resolvedEventIdOf } from "./billing_charges.ts";
export { LedgerCatchingUp } from "./billing_completions.ts";
import { type ClosedShipment, closedShipments, shipmentSnapshots } from "../queries/shipments.ts";
import { snapshotsHeld } from "../../db/snapshot_join.ts";
import { waitingRows } from "./waiting_rows.ts";

/** An entry whose event is not projected this long after it was made is re-emitted. */
export const SWEEP_AFTER_MS = 60_000;

export interface BillingEventsOptions extends OutboxOptions {
  readonly runtime: ActorRuntime;
  readonly bus: Bus;
  /**
   * The query side, for a completed shipment's later charges (its adjustments), once it holds
   * every entry its client's account had booked.
   */
  readonly db: Kysely<Database>;
  /** Where an event that still fails after its retries is reported; `console.error` by default. */
  readonly onError?: (error: unknown, where: string) => void;
  readonly retry?: RetryPolicy;
  /** Where a completion event still failing after its retries is kept to be made later. */
  readonly deferral?: Deferral;
}

/** Creates billing events from ledger and shipment changes, and sweeps for those missing. */
export class BillingEvents {
  readonly #o: BillingEventsOptions;
  readonly #charges: ChargeEvents;
  readonly #completions: CompletionEvents;
  readonly #error: (error: unknown, where: string) => void;
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
    this.#error = reporter(options, "billing events");
    const waiting = waitingRows(options.runtime, options.db);
    this.#charges = new ChargeEvents({ ...options, waiting });
    this.#completions = new CompletionEvents({ ...options, report: this.#error });
  }

  /** Stops taking changes and waits for the events being made (retries included). */
  async close(): Promise<void> {
    await Promise.all([this.#charges.close(), this.#completions.close()]);
  }

  /** Whether a swept row's actor is held here: another's is its holder's (issue 43 item 3). */
  #mine(type: string, id: string): boolean {
    return holdsActor(this.#o.runtime.placement, { type, id });
  }

  /** The client billed, or null when there is none; a refused read (a busy actor) throws. */
  async #clientOf(tenant: string, clientId: string): Promise<BilledClient | null> {
    return (await billedAccountOf(this.#o.runtime, tenant, clientId))?.client ?? null;
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
        // Its row: projected from its actor, or the delivery log of one no actor holds.
        eb.selectFrom("outbound_events as o")
          .select(sql`1`.as("one"))
          .whereRef("o.id", "=", column)
          .whereRef("o.tenant", "=", "le.tenant"),
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
        if (!this.#mine(courierClientActor.type, row.client_id)) return false;
        const key = `${row.tenant}/${row.client_id}`;
        if (!clients.has(key)) clients.set(key, await this.#clientOf(row.tenant, row.client_id));
        const client = clients.get(key);
        if (!client) return false;
        const entry = entryOfRow(row);
        if (row.event_missing) {
          await this.#charges.emitCharge(row.tenant, client, entry, undefined, {
            storedId: row.event_id!,
          });
        }
        if (row.resolved_missing) {
          await this.#charges.emitResolved(row.tenant, client, entry, {
            storedId: row.resolved_event_id!,
          });
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
      const page = await closedShipments(db, window, COMPLETION_SWEEP_PAGE_MAX);
      const swept = await sweepRows(
        await missingCompletions(db, page),
        (row) => ({ at: row.data.closed_at ?? 0, key: row.id }),
        async (row) => {
          if (!this.#mine(shipmentActor.type, row.id)) return false;
          await this.#completions.emit(row.tenant, row.data, row.data.closed_at ?? 0);
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
  const found = await snapshotsHeld(db, outboundEventActor.type, wanted.map((w) => w.eventId));
  const missing = wanted.filter((w) => !found.has(w.eventId));
  if (missing.length === 0) return [];
  return await shipmentSnapshots(db, missing.map((m) => m.id));
}
