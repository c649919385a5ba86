/**
 * A customs move (courier 2.9, 2.10, 3.4, 4.5: hold, refuse, request_documents, clear, release,
 * duties): the crossing actor decides it; what follows it is a chain of idempotent steps, each
 * keyed by the move's number, so a retry after a lost answer or a crash between two steps
 * applies each exactly once:
 *
 * - the shipment moves with its crossing: hold -> `customs_hold` (still waiting on customs);
 *   request for documents -> `documents_requested` (also headline customs_hold, but the shipment
 *   opens its customs_documents milestone for the courier and raises documents_missing, courier
 *   3.2, 2.9); clear -> `cleared`; release -> `released`; refuse -> `customs_refused`, an
 *   exception ("customs refused: <reason>") that closes what waited on customs;
 * - a clearance and the client's duties book their charges (customs_charges.ts);
 * - a release after the vehicle left raises `released_awaiting_collection` for the courier;
 * - a shipment customs let go after the vehicle entered with it goes out for delivery (once).
 *
 * Refusals are thrown as domain refusals (Refused).
 */
import {
  type Crossing,
  type CustomsMove,
  type DeliveryUnderWay,
  type MoveInput,
  standsAt,
} from "../../../actors/courier/customs_crossing/mod.ts";
import { Refused } from "../../runtime/actor.ts";
import { type ScanInput, shipmentActor } from "../../../actors/courier/shipment/mod.ts";
import { iso } from "../../domain/iso.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { raiseAlert } from "./alerts.ts";
import { askCrossing } from "./customs.ts";
import { bookClearance, bookDuty } from "./customs_charges.ts";
import { outForDeliveryPastBorder } from "./runs/past_border.ts";
import { recordOnce } from "./shipments.ts";
import { voidDelivery } from "./run_steps.ts";

export interface MoveOutcome {
  readonly crossing: Crossing;
  readonly move: CustomsMove;
  /** The move repeated one already recorded: nothing changed, nothing was booked again. */
  readonly replayed: boolean;
  /** The charge's ledger reference when the move books one (also on a replay); else null. */
  readonly charge_reference: string | null;
}

/**
 * One customs move and what follows it on the shipment, the client's account and the alerts.
 * Scopes are the caller's to check. `requestId`: the request it is done for, if any.
 */
export async function moveCrossing(
  runtime: ActorRuntime,
  tenant: string,
  crossingId: string,
  input: MoveInput,
  requestId?: string,
): Promise<MoveOutcome> {
  const r = await askMove(runtime, tenant, crossingId, input, requestId);
  if (r.kind !== "moved") throw new Error(`crossing ${crossingId}: move answered ${r.kind}`);
  const { crossing, move } = r;
  // A hold or request answered again after customs moved on is past: its scan would put the
  // shipment back on hold.
  const past = r.replayed && !standsAt(crossing, move);
  const chargeReference = past
    ? null
    : await followMove(runtime, tenant, crossing, move, requestId);
  if (move.action === "clear" || move.action === "release") {
    await outForDeliveryPastBorder(runtime, tenant, crossing, move.by, requestId);
  }
  return { crossing, move, replayed: r.replayed, charge_reference: chargeReference };
}

/** Tries before a move that keeps meeting new deliveries under way is refused. */
const MOVE_TRIES = 4;

/**
 * Asks the crossing for the move. spec: courier 3.4: a hold meeting a run's step under way on the
 * shipment (delivery, attempt, transfer) has that run void it first (one it recorded already
 * stands), then names it, so the step recorded after is refused
 * (actors/courier/customs_crossing/delivery.ts).
 */
async function askMove(
  runtime: ActorRuntime,
  tenant: string,
  crossingId: string,
  input: MoveInput,
  requestId: string | undefined,
) {
  let voiding: string | null = null;
  let scans: readonly string[] = [];
  for (let tries = 1;; tries++) {
    const move = { ...input, ...(voiding === null ? {} : { voiding }), voiding_scans: scans };
    try {
      return await askCrossing(runtime, tenant, crossingId, { kind: "move", move }, requestId);
    } catch (e) {
      const code = e instanceof Refused ? e.rejection.code : null;
      if (!MET.has(code ?? "") || tries >= MOVE_TRIES) throw e;
      const details = (e as Refused).rejection.details as Record<string, unknown>;
      if (code === "scan_under_way") {
        // spec: courier 3.4: operations' scans under way are refused by the shipment first.
        const met = details.scans as string[];
        await refuseScans(runtime, tenant, details.waybill as string, met);
        scans = [...scans, ...met];
        continue;
      }
      const under = details as unknown as DeliveryUnderWay;
      // A clearance or release voids a customs_hold report under way (delivery.ts).
      const voidCode = under.while_held ? "released_by_customs" : undefined;
      await voidDelivery(runtime, tenant, under, input.by, voidCode);
      voiding = under.token;
    }
  }
}

/** What a hold meets under way on the shipment: a run's delivery, operations' scans. */
const MET: ReadonlySet<string> = new Set(["delivery_under_way", "scan_under_way"]);

/** The shipment refuses operations' scans under way (actors/courier/shipment/scan_gates.ts). */
async function refuseScans(
  runtime: ActorRuntime,
  tenant: string,
  waybill: string,
  tokens: readonly string[],
): Promise<void> {
  const r = await runtime.ask(shipmentActor, tenant, waybill, { kind: "refuse_scans", tokens });
  if (!r.ok && r.code !== "not_found") throw new Refused(r);
}

/** What a move does to the shipment, the account and the alerts; answers the charge booked. */
async function followMove(
  runtime: ActorRuntime,
  tenant: string,
  crossing: Crossing,
  move: CustomsMove,
  requestId: string | undefined,
): Promise<string | null> {
  const key = `customs:${crossing.id}:move:${move.n}`;
  // spec: courier 3.2: a clearance or release settles this crossing's customs_clearance only.
  const on = (fields: Omit<ScanInput, "by" | "facility_id">) =>
    recordOnce(
      runtime,
      tenant,
      crossing.waybill,
      key,
      {
        ...fields,
        facility_id: crossing.border_post,
        by: move.by,
      },
      requestId,
      crossing.id,
    );
  switch (move.action) {
    case "hold":
      await on({ event: "customs_hold", reason: move.reason });
      return null;
    case "request_documents":
      // spec: courier 3.2: only a hold for papers puts the courier on the hook (customs_documents).
      await on({ event: "documents_requested", reason: move.reason });
      return null;
    case "refuse":
      // spec: courier 3.2, 2.9: an exception that also closes what waited on customs.
      await on({ event: "customs_refused", reason: `customs refused: ${move.reason}` });
      return null;
    case "clear":
      await on({ event: "cleared", note: `customs reference ${move.customs_reference}` });
      return await bookClearance(runtime, tenant, crossing, move);
    case "release":
      await on({ event: "released", note: `released: ${move.evidence}` });
      if (crossing.released_after_departure) {
        await alertReleasedAfterDeparture(runtime, tenant, crossing);
      }
      return null;
    case "duties":
      return await bookDuty(runtime, tenant, crossing, move);
  }
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
