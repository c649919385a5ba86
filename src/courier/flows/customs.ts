/**
 * Customs crossings (courier 2.6 rule 3, 2.9, 2.10, 3.4, 4.5): opened at booking or at a border
 * stop, presented, crossed (exit, entry), left behind by the vehicle, and supplied with papers.
 * The crossing actor decides each step; what follows on the shipment is keyed by the step, so a
 * retry after a lost answer or a crash between two steps applies each exactly once:
 * presented -> `presented_to_customs`; papers customs asked for -> `documents_supplied`.
 * Customs' own moves are customs_moves.ts, the charges they book customs_charges.ts.
 *
 * Refusals are thrown as domain refusals (Refused: the route renders them; other callers read
 * `rejection.code`).
 */
import { foundOrNull, Refused } from "../../runtime/actor.ts";
import {
  type Crossing,
  type CrossingCommand,
  type CrossingReply,
  CUSTOMS_HOLDS,
  customsCrossingActor,
  type CustomsMove,
  type DocumentInput,
  type MoveInput,
  type Supply,
} from "../../../actors/courier/customs_crossing/mod.ts";
import type { ScanInput, Shipment } from "../../../actors/courier/shipment/mod.ts";
import { derivedId } from "../../domain/secrets.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { askRecord } from "./run_steps.ts";
import { recordOnce, shipmentIn } from "./shipments.ts";

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
 * crossing id. Throws Refused `not_found` for another tenant's (or no) shipment. `requestId`: the
 * request it is done for, if any.
 */
export async function openCrossing(
  runtime: ActorRuntime,
  tenant: string,
  input: OpenCrossingInput,
  requestId?: string,
): Promise<string> {
  const crossing = await presentedCrossing(runtime, tenant, input, requestId);
  await recordPresented(runtime, tenant, { crossing, input }, requestId);
  await settledBeforePresentation(runtime, tenant, crossing.id, input, requestId);
  return crossing.id;
}

/**
 * Records `presented_to_customs` on the shipment once per key (presentationKey), naming the run's
 * border stop it was presented at, which a withdrawal of it names (withdrawShipmentPresentation).
 * A shipment closed meanwhile keeps its final state.
 */
async function recordPresented(
  runtime: ActorRuntime,
  tenant: string,
  at: { crossing: Crossing; input: OpenCrossingInput },
  requestId: string | undefined,
): Promise<void> {
  const { crossing, input } = at;
  const { id } = crossing;
  const s = await shipmentIn(runtime, tenant, input.waybill);
  const key = presentationKey(crossing, input, s);
  const scan: ScanInput = {
    event: "presented_to_customs",
    facility_id: input.border_post,
    holder: input.holder ?? null,
    note: `presented to customs at ${input.border_post}: crossing ${id}`,
    by: input.by,
  };
  const { run_id, stop_id } = input;
  const presentation = run_id !== null && stop_id !== null
    ? { presentation: { crossing_id: id, run_id, stop_id } }
    : {};
  const command = { kind: "record", scan, step: key, ...presentation } as const;
  const options = { idempotencyKey: key, permanent: true, requestId };
  const r = await askRecord(runtime, tenant, input.waybill, command, options);
  if (!r.ok && r.code !== "shipment_closed") throw new Refused(r);
}

/**
 * What keys the shipment's record of presenting crossing `c`: the crossing, the stop, how many
 * of the shipment's presentations were withdrawn, and how many times a border stop presented the
 * crossing. spec: courier 3.4: a presentation withdrawn (the shipment left that run before the
 * stop was recorded) is not the one the run carrying it now makes, which is recorded with its
 * own holder and time, at another stop or at the same stop once the shipment is back on board
 * (whether or not the shipment had taken the withdrawal yet); the same stop again, nothing
 * withdrawn since, is a replay.
 */
function presentationKey(
  c: Pick<Crossing, "id" | "presentations">,
  at: Pick<OpenCrossingInput, "run_id" | "stop_id">,
  s: Pick<Shipment, "presentations_withdrawn">,
): string {
  if (at.run_id === null || at.stop_id === null) return `customs:${c.id}:presented`;
  // The keys of a first presentation stay those recorded before the counts were kept.
  const withdrawn = s.presentations_withdrawn ?? 0;
  const presentations = c.presentations ?? 0;
  const again = (withdrawn === 0 ? "" : `:${withdrawn}`) +
    (presentations <= 1 ? "" : `:p${presentations}`);
  return `customs:${c.id}:presented:${at.run_id}:${at.stop_id}${again}`;
}

/** The booking crossing's refusals of a presentation that leave the stop one of its own. */
const OWN_CROSSING_WHEN: ReadonlySet<string> = new Set(["presented_elsewhere", "not_found"]);

/** The crossing presented: the booking's, presented at this stop, else this stop's, opened. */
async function presentedCrossing(
  runtime: ActorRuntime,
  tenant: string,
  input: OpenCrossingInput,
  requestId: string | undefined,
): Promise<Crossing> {
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
    }, { requestId })
    : null;
  if (presented?.ok) {
    return presented.reply.crossing;
  }
  // Only a booking crossing presented at another stop, or none opened at booking, leaves this
  // stop a crossing of its own; a refusal "not now" (a busy crossing) is thrown, never taken
  // for one (a second crossing, a second clearance for one border: CONTRACT one at booking).
  if (presented && !OWN_CROSSING_WHEN.has(presented.code)) throw new Refused(presented);
  const id = crossingIdOf(tenant, input.waybill, input.run_id, input.stop_id);
  const opened = await askCrossing(runtime, tenant, id, {
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
  }, requestId);
  return opened.crossing;
}

/**
 * spec: courier 3.2: customs_clearance closes when cleared or released. Presenting opens it; a
 * crossing customs cleared, released or refused before it reached the border (pre-arrival) has
 * nothing left to close it, so its outcome closes it again here, once (a refusal also closes it:
 * no clearance will come, 2.9); one customs holds is held again (presenting set the headline to
 * customs_processing). Both read as they stand after the presentation was recorded: a move
 * recorded later records its own scan after it, and a shipment that has moved on since (a
 * presentation sent again late) is left alone.
 */
async function settledBeforePresentation(
  runtime: ActorRuntime,
  tenant: string,
  id: string,
  input: OpenCrossingInput,
  requestId: string | undefined,
): Promise<void> {
  const now = await shipmentIn(runtime, tenant, input.waybill);
  if (!now.milestones.some((m) => m.name === "customs_clearance")) return;
  const crossing = await getCrossing(runtime, tenant, id);
  const outcome = outcomeBefore(crossing);
  if (outcome === null) return;
  const key = `${presentationKey(crossing, input, now)}:settled`;
  const scan = { ...outcome, facility_id: input.border_post, by: input.by };
  await recordOnce(runtime, tenant, input.waybill, key, scan, requestId, crossing.id);
}

/** The scan of where customs has the crossing, if it decided or holds it: none while it waits. */
function outcomeBefore(c: Crossing): Pick<ScanInput, "event" | "note" | "reason"> | null {
  if (c.cleared_at !== null) {
    return {
      event: "cleared",
      note: `cleared before presentation: customs reference ${c.customs_reference}`,
    };
  }
  if (c.released_at !== null) return { event: "released", note: "released before presentation" };
  const refusal = c.history.find((m) => m.action === "refuse");
  if (c.refused_at !== null && refusal) {
    return { event: "customs_refused", reason: `customs refused: ${refusal.reason}` };
  }
  // Held (for papers too): presented, the shipment is still held, not processing (its papers
  // owed stay open with the courier).
  const hold = c.history.findLast((m) => m.action === "hold" || m.action === "request_documents");
  if (!CUSTOMS_HOLDS.has(c.status) || !hold) return null;
  return { event: "customs_hold", reason: hold.reason, note: "held before presentation" };
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
 * A shipment's crossings as they stand (single resources read the actor): those the query side
 * lists, in the order they opened, and the one opened at booking, read by its id, not left to
 * the projection, so it is listed as soon as the booking answered (CONTRACT: one crossing at
 * booking).
 */
export async function crossingsOfShipment(
  runtime: ActorRuntime,
  tenant: string,
  shipment: Pick<Shipment, "waybill" | "from_country" | "to_country">,
  listed: readonly string[],
): Promise<Crossing[]> {
  const crossings: Crossing[] = [];
  for (const id of listed) crossings.push(await getCrossing(runtime, tenant, id));
  const booked = bookingCrossingIdOf(tenant, shipment.waybill);
  if (shipment.from_country !== shipment.to_country && !listed.includes(booked)) {
    // A refused read (a full mailbox) is thrown (503), never shown as no booking crossing.
    const got = foundOrNull(
      await runtime.read(customsCrossingActor, tenant, booked, { kind: "get" }),
    );
    if (got) crossings.unshift(got.crossing);
  }
  return crossings;
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
 * Appends the documents (customs:submit-documents). Papers customs asked for move the crossing
 * back to `presented` and the shipment to `documents_supplied` (waiting on customs again); a
 * plain hold stands until customs moves. `requestId`: the request it is done for.
 */
export async function supplyDocuments(
  runtime: ActorRuntime,
  tenant: string,
  crossingId: string,
  input: SupplyInput,
  requestId?: string,
): Promise<SupplyOutcome> {
  const r = await askCrossing(runtime, tenant, crossingId, {
    kind: "supply",
    documents: input.documents,
    note: input.note ?? null,
    by: input.by,
  }, requestId);
  if (r.kind !== "supplied") throw new Error(`crossing ${crossingId}: supply answered ${r.kind}`);
  const { crossing, supply } = r;
  // Only papers customs asked for put it back with customs; a plain hold stands (supply.ts).
  if (supply.from_status === "documents_requested") {
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
      requestId,
    );
  }
  return { crossing, supply, replayed: r.replayed };
}

/**
 * The crossing actor's answer to `command`, asked for request `requestId` if any; its refusal
 * thrown as Refused.
 */
export async function askCrossing(
  runtime: ActorRuntime,
  tenant: string,
  crossingId: string,
  command: CrossingCommand,
  requestId?: string,
): Promise<CrossingReply> {
  const r = await runtime.ask(customsCrossingActor, tenant, crossingId, command, { requestId });
  if (!r.ok) throw new Refused(r);
  return r.reply;
}
