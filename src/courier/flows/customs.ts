/**
 * Customs crossings (courier 2.6 rule 3, 2.9, 2.10, 3.4, 4.5): the crossing actor decides each
 * move; what follows it is a chain of idempotent steps, each keyed by the move's number, so a
 * retry after a lost answer or a crash between two steps applies each exactly once:
 *
 * - the shipment moves with its crossing: presented -> `presented_to_customs`; hold ->
 *   `customs_hold` (still waiting on customs); request for documents -> `documents_requested`
 *   (also headline customs_hold, but the shipment opens its customs_documents milestone for the
 *   courier and raises documents_missing, courier 3.2, 2.9); papers supplied while held ->
 *   `documents_supplied`; clear -> `cleared`; release -> `released`; refuse -> `exception`
 *   ("customs refused: <reason>");
 * - each clearance books one customs-administration charge (`CUS-<crossing>`, source event
 *   `customs.cleared:<crossing>`) at the fee of the shipment's frozen rate card; it is due on the
 *   crossing from the clearance's commit until booked (customs_charges.ts), so a request that
 *   dies before booking it loses nothing;
 * - duties the client pays book a recoverable entry kept apart from revenue (`DUT-<crossing>-<n>`,
 *   source event `customs.duties:<crossing>`, `:<n>` from the second duty on); duties the account
 *   refuses to book are taken back off the crossing before the refusal is answered. Duties another
 *   payer settles (the recipient, the courier) are recorded on the crossing only: the client is
 *   not charged for them;
 * - a release after the vehicle left raises `released_awaiting_collection` for the courier.
 *
 * Refusals are thrown as domain refusals (Refused: the route renders them; other callers read
 * `rejection.code`).
 */
import { Refused } from "../../runtime/actor.ts";
import {
  clearanceSourceEvent,
  type Crossing,
  type CrossingChargeDue,
  type CrossingCommand,
  type CrossingReply,
  customsCrossingActor,
  type CustomsMove,
  type DocumentInput,
  dutySourceEvent,
  type MoveInput,
  standsAt,
  type Supply,
} from "../../../actors/courier/customs_crossing.ts";
import type { ScanInput, Shipment } from "../../../actors/courier/shipment.ts";
import { derivedId } from "../../domain/secrets.ts";
import { iso } from "../../domain/iso.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { raiseAlert } from "./alerts.ts";
import { recordOnce, shipmentIn } from "./shipments.ts";
import { postLaterCharge } from "./later_charges.ts";

export type { Crossing, CustomsMove, DocumentInput, MoveInput, Supply };

/**
 * `xing_` + the first 24 hex digits of SHA-256 of `<tenant>|<waybill>|<run>|<stop>`: the same
 * shipment presented at the same stop is always the same crossing (opening is idempotent).
 */
export function crossingIdOf(
  tenant: string,
  waybill: string,
  runId: string | null,
  stopId: string | null,
): string {
  return derivedId("xing", [tenant, waybill, runId ?? "", stopId ?? ""].join("|"));
}

/** The crossing a cross-border shipment gets at booking (CONTRACT: one crossing at booking). */
export function bookingCrossingIdOf(tenant: string, waybill: string): string {
  return crossingIdOf(tenant, waybill, null, null);
}

/**
 * Opens the crossing a shipment whose from_country and to_country differ gets at booking (once;
 * nothing for a domestic one), so customs can be worked before any run presents it. Its post is
 * the border between the two countries until a border stop names one (`openCrossing`). Answers
 * the crossing id, or null.
 */
export async function openBookingCrossing(
  runtime: ActorRuntime,
  s: Pick<Shipment, "courier_id" | "client_id" | "waybill" | "from_country" | "to_country">,
  by: string,
): Promise<string | null> {
  if (s.from_country === s.to_country) return null;
  const id = bookingCrossingIdOf(s.courier_id, s.waybill);
  await askCrossing(runtime, s.courier_id, id, {
    kind: "open",
    crossing: {
      id,
      waybill: s.waybill,
      client_id: s.client_id,
      country: s.from_country,
      to_country: s.to_country,
      border_post: `${s.from_country}-${s.to_country}`,
      run_id: null,
      stop_id: null,
    },
    by,
  });
  return id;
}

export interface OpenCrossingInput {
  readonly waybill: string;
  readonly country: string;
  readonly to_country: string;
  readonly border_post: string;
  readonly run_id: string | null;
  readonly stop_id: string | null;
  /** Who holds the pieces when presented (the run's driver); absent: unchanged. */
  readonly holder?: string | null;
  readonly by: string;
}

/**
 * Presents the shipment at a border stop and records `presented_to_customs` on it: the crossing
 * it got at booking, the first time it reaches a border stop; else (another border, or booked
 * before crossings were opened at booking) a crossing of this stop's, opened once. Answers the
 * crossing id. Throws Refused `not_found` for another tenant's (or no) shipment.
 */
export async function openCrossing(
  runtime: ActorRuntime,
  tenant: string,
  input: OpenCrossingInput,
): Promise<string> {
  const shipment = await shipmentIn(runtime, tenant, input.waybill);
  const booked = bookingCrossingIdOf(tenant, input.waybill);
  const presented = input.run_id !== null && input.stop_id !== null
    ? await runtime.ask(customsCrossingActor, tenant, booked, {
      kind: "present",
      at_stop: {
        run_id: input.run_id,
        stop_id: input.stop_id,
        border_post: input.border_post,
        country: input.country,
        to_country: input.to_country,
        by: input.by,
      },
    })
    : null;
  const id = presented?.ok
    ? booked
    : await crossingIdOf(tenant, input.waybill, input.run_id, input.stop_id);
  if (!presented?.ok) {
    await askCrossing(runtime, tenant, id, {
      kind: "open",
      crossing: {
        id,
        waybill: shipment.waybill,
        client_id: shipment.client_id,
        country: input.country,
        to_country: input.to_country,
        border_post: input.border_post,
        run_id: input.run_id,
        stop_id: input.stop_id,
      },
      by: input.by,
    });
  }
  await recordOnce(runtime, tenant, input.waybill, `customs:${id}:presented`, {
    event: "presented_to_customs",
    facility_id: input.border_post,
    holder: input.holder ?? null,
    note: `presented to customs at ${input.border_post}: crossing ${id}`,
    by: input.by,
  });
  // spec: courier 3.2: customs_clearance closes when cleared or released. Presenting opens it; a
  // crossing customs cleared or released before it reached the border (pre-arrival) has nothing
  // left to close it, so its outcome closes it again here, once. Both read as they stand after
  // the presentation was recorded: a clearance recorded later records its own scan after it, and
  // a shipment that has moved on since (a presentation sent again late) is left alone.
  const now = await shipmentIn(runtime, tenant, input.waybill);
  if (!now.milestones.some((m) => m.name === "customs_clearance")) return id;
  const crossing = await getCrossing(runtime, tenant, id);
  if (crossing.cleared_at !== null || crossing.released_at !== null) {
    const cleared = crossing.cleared_at !== null;
    await recordOnce(runtime, tenant, input.waybill, `customs:${id}:presented:settled`, {
      event: cleared ? "cleared" : "released",
      facility_id: input.border_post,
      note: cleared
        ? `cleared before presentation: customs reference ${crossing.customs_reference}`
        : "released before presentation",
      by: input.by,
    });
  }
  return id;
}

/** The crossing as it stands; Refused `not_found` for another tenant's (or no) crossing. */
export async function getCrossing(
  runtime: ActorRuntime,
  tenant: string,
  crossingId: string,
): Promise<Crossing> {
  return (await askCrossing(runtime, tenant, crossingId, { kind: "get" })).crossing;
}

/**
 * The vehicle went on without the shipment (recorded once). A release after this raises
 * `released_awaiting_collection` (see moveCrossing).
 */
export async function vehicleLeft(
  runtime: ActorRuntime,
  tenant: string,
  crossingId: string,
  by: string,
): Promise<Crossing> {
  return (await askCrossing(runtime, tenant, crossingId, { kind: "vehicle_left", by })).crossing;
}

/**
 * The shipment exited `country` or entered `to_country` at the border stop (each once). Refused
 * `entry_before_exit` when the entry comes first.
 */
export async function recordCrossing(
  runtime: ActorRuntime,
  tenant: string,
  crossingId: string,
  side: "exit" | "entry",
  by: string,
): Promise<Crossing> {
  return (await askCrossing(runtime, tenant, crossingId, { kind: "record_crossing", side, by }))
    .crossing;
}

export interface SupplyInput {
  readonly documents: readonly DocumentInput[];
  readonly note?: string | null;
  readonly by: string;
}

export interface SupplyOutcome {
  readonly crossing: Crossing;
  readonly supply: Supply;
  /** The same papers again, changing nothing: the supply already recorded answers. */
  readonly replayed: boolean;
}

/**
 * Appends the documents (customs:submit-documents). Papers supplied while customs holds the
 * shipment or asked for them move the crossing back to `presented` and the shipment to
 * `documents_supplied` (waiting on customs again).
 */
export async function supplyDocuments(
  runtime: ActorRuntime,
  tenant: string,
  crossingId: string,
  input: SupplyInput,
): Promise<SupplyOutcome> {
  const r = await askCrossing(runtime, tenant, crossingId, {
    kind: "supply",
    documents: input.documents,
    note: input.note ?? null,
    by: input.by,
  });
  if (r.kind !== "supplied") throw new Error(`crossing ${crossingId}: supply answered ${r.kind}`);
  const { crossing, supply } = r;
  if (supply.from_status === "held" || supply.from_status === "documents_requested") {
    const names = crossing.documents.filter((d) => d.supply === supply.n).map((d) => d.name);
    await recordOnce(
      runtime,
      tenant,
      crossing.waybill,
      `customs:${crossing.id}:supply:${supply.n}`,
      {
        event: "documents_supplied",
        facility_id: crossing.border_post,
        note: `documents supplied: ${names.join(", ")}`,
        by: supply.by,
      },
    );
  }
  return { crossing, supply, replayed: r.replayed };
}

export interface MoveOutcome {
  readonly crossing: Crossing;
  readonly move: CustomsMove;
  /** The move repeated one already recorded: nothing changed, nothing was booked again. */
  readonly replayed: boolean;
  /** The charge's ledger reference when the move books one (also on a replay); else null. */
  readonly charge_reference: string | null;
}

/**
 * One customs move (hold, refuse, request_documents, clear, release, duties) and what follows it
 * on the shipment, the client's account and the alerts. Scopes are the caller's to check.
 */
export async function moveCrossing(
  runtime: ActorRuntime,
  tenant: string,
  crossingId: string,
  input: MoveInput,
): Promise<MoveOutcome> {
  const r = await askCrossing(runtime, tenant, crossingId, { kind: "move", move: input });
  if (r.kind !== "moved") throw new Error(`crossing ${crossingId}: move answered ${r.kind}`);
  const { crossing, move } = r;
  const key = `customs:${crossing.id}:move:${move.n}`;
  const on = (fields: Omit<ScanInput, "by" | "facility_id">) =>
    recordOnce(runtime, tenant, crossing.waybill, key, {
      ...fields,
      facility_id: crossing.border_post,
      by: move.by,
    });
  let chargeReference: string | null = null;
  // A hold or request answered again after customs moved on is past: its scan would put the
  // shipment back on hold.
  if (r.replayed && !standsAt(crossing, move)) {
    return { crossing, move, replayed: true, charge_reference: null };
  }
  switch (move.action) {
    case "hold":
      await on({ event: "customs_hold", reason: move.reason });
      break;
    case "request_documents":
      // spec: courier 3.2: only a hold for papers puts the courier on the hook (customs_documents).
      await on({ event: "documents_requested", reason: move.reason });
      break;
    case "refuse":
      await on({ event: "exception", reason: `customs refused: ${move.reason}` });
      break;
    case "clear":
      await on({ event: "cleared", note: `customs reference ${move.customs_reference}` });
      chargeReference = await bookClearance(runtime, tenant, crossing, move);
      break;
    case "release":
      await on({ event: "released", note: `released: ${move.evidence}` });
      if (crossing.released_after_departure) {
        await alertReleasedAfterDeparture(runtime, tenant, crossing);
      }
      break;
    case "duties":
      chargeReference = await bookDuty(runtime, tenant, crossing, move);
      break;
  }
  return { crossing, move, replayed: r.replayed, charge_reference: chargeReference };
}

/**
 * Books a charge the crossing keeps due (customs_charges.ts), throwing when it was not booked:
 * the same source event books once, however often it is due (courier 2.6 rule 2).
 */
export async function bookCrossingCharge(
  runtime: ActorRuntime,
  tenant: string,
  crossing: Crossing,
  due: CrossingChargeDue,
): Promise<void> {
  // Duties taken back since (the account refused them) are due no more: nothing to book.
  if (!(crossing.charges_due ?? []).some((c) => c.source_event === due.source_event)) return;
  const move = crossing.history.find((m) => m.n === due.move);
  if (move?.action === "clear" && due.source_event === clearanceSourceEvent(crossing.id)) {
    await bookClearance(runtime, tenant, crossing, move);
    return;
  }
  const duty = crossing.duties.find((d) => d.move === due.move);
  if (
    move?.action === "duties" && duty && due.source_event === dutySourceEvent(crossing.id, duty.n)
  ) {
    await bookDuty(runtime, tenant, crossing, move);
    return;
  }
  throw new Error(`crossing ${crossing.id}: no charge of move ${due.move} (${due.source_event})`);
}

/** Courier 2.6 rule 3: one customs-administration entry per crossing cleared. */
async function bookClearance(
  runtime: ActorRuntime,
  tenant: string,
  crossing: Crossing,
  move: CustomsMove,
): Promise<string | null> {
  const reference = `CUS-${crossing.id}`;
  const booked = await postLaterCharge(
    runtime,
    await shipmentIn(runtime, tenant, crossing.waybill),
    {
      kind: "customs_admin",
      reference,
      reason: `customs administration: cleared at ${crossing.border_post} ` +
        `(${crossing.country} to ${crossing.to_country})`,
      evidence_path: move.customs_reference,
      source_event: clearanceSourceEvent(crossing.id),
      by: move.by,
    },
  );
  if (booked && !booked.ok) throw new Refused(booked);
  // A fee of zero books nothing: the courier does not charge for clearances.
  return booked ? reference : null;
}

/**
 * Courier 2.6: duties paid on the client's behalf are recoverable, kept apart from revenue. Only
 * duties whose payer is the client are booked on its account.
 */
async function bookDuty(
  runtime: ActorRuntime,
  tenant: string,
  crossing: Crossing,
  move: CustomsMove,
): Promise<string | null> {
  const duty = crossing.duties.find((d) => d.move === move.n);
  if (!duty) throw new Error(`crossing ${crossing.id}: move ${move.n} recorded no duty`);
  if (duty.payer !== "client") return null;
  const reference = `DUT-${crossing.id}-${duty.n}`;
  const source = dutySourceEvent(crossing.id, duty.n);
  const booked = await postLaterCharge(
    runtime,
    await shipmentIn(runtime, tenant, crossing.waybill),
    {
      kind: "duties",
      reference,
      reason: `duties paid on the client's behalf at ${crossing.border_post}` +
        (move.reason ? `: ${move.reason}` : ""),
      evidence_path: duty.evidence,
      source_event: source,
      amount_minor: duty.amount_minor,
      currency: duty.currency,
      recoverable: true,
      by: move.by,
    },
  );
  if (booked && !booked.ok) {
    // Product rule: a refusal changes nothing: the crossing claims no duty the client was not
    // charged; the same duties sent again once the account takes them are recorded and booked.
    await askCrossing(runtime, tenant, crossing.id, { kind: "withdraw_duty", move });
    throw new Refused(booked);
  }
  return reference;
}

/** Courier 2.9: customs released the shipment after the vehicle left; the courier collects it. */
async function alertReleasedAfterDeparture(
  runtime: ActorRuntime,
  tenant: string,
  c: Crossing,
): Promise<void> {
  await raiseAlert(runtime, tenant, {
    kind: "released_awaiting_collection",
    condition_key: `${c.id}:released_after_departure`,
    owner: "courier",
    subject: { type: "shipment", id: c.waybill },
    waybill: c.waybill,
    message: `customs released ${c.waybill} at ${c.border_post} after the vehicle left: ` +
      `it awaits collection`,
    detail: { crossing: c.id, border_post: c.border_post, released_at: iso(c.released_at) },
  });
}

async function askCrossing(
  runtime: ActorRuntime,
  tenant: string,
  crossingId: string,
  command: CrossingCommand,
): Promise<CrossingReply> {
  const r = await runtime.ask(customsCrossingActor, tenant, crossingId, command);
  if (!r.ok) throw new Refused(r);
  return r.reply;
}
