/**
 * The follow-ups of a stop action (follow_ups.ts), from the stop as the change left it: a
 * waiting charge, a border crossing, a delivery, a collection and its errand, a failure.
 */
import type { RunChange } from "./commands.ts";
import { carriedPieces, custody, type FollowUp, holderOf, type RunCharge } from "./follow_ups.ts";
import type { NetworkRun, Stop } from "./run.ts";
import { stepOf } from "./shipment_gate.ts";

type Change<K extends RunChange["kind"]> = Extract<RunChange, { kind: K }>;

/** spec: courier 4.5, 6.1 `run.waiting:{stop}`: a wait at a stop books a waiting charge. */
export function waitingFollowUps(runId: string, c: Change<"stop_waiting">): FollowUp[] {
  const note = c.note ? `: ${c.note}` : "";
  return [{
    kind: "charge",
    waybill: c.waybill,
    charge: {
      kind: "waiting",
      reference: `WAIT-${c.stop_id}`,
      reason: `waited ${c.minutes} minutes at stop ${c.stop_id}${note}`,
      evidence_path: `run:${runId}/stop:${c.stop_id}`,
      source_event: `run.waiting:${c.stop_id}`,
    },
    by: c.by,
  }];
}

/** A later charge of a run's stop (courier 2.6 rule 3). */
function stopCharge(
  runId: string,
  stopId: string,
  charge: Omit<RunCharge, "evidence_path">,
): RunCharge {
  return { ...charge, evidence_path: `run:${runId}/stop:${stopId}` };
}

/** Each shipment's crossing records the side the vehicle crossed (exit before entry). */
export function crossFollowUps(stop: Stop, c: Change<"stop_cross">): FollowUp[] {
  return stop.crossings.map((x) => ({ kind: "crossing", crossing_id: x, side: c.side, by: c.by }));
}

/**
 * A stop is delivered once, so its custody move is keyed by the stop, whatever idempotency_key
 * the caller sends; the laboratory is told of the handover (the first one recorded stands).
 */
export function deliverFollowUps(
  runId: string,
  stop: Stop,
  c: Change<"stop_deliver">,
  at: number,
): FollowUp[] {
  if (!stop.waybill) return [];
  return [
    custody(stop.waybill, stepOf(runId, stop.id, "deliver", stop.waybill), {
      event: "delivered",
      received_by: c.received_by ?? (c.lab_handover ? "laboratory" : null),
      note: c.note ?? null,
      by: c.by,
    }),
    { kind: "lab_handover", waybill: stop.waybill, at },
  ];
}

/**
 * Labels naming some of the shipment's pieces collect those pieces only (the shipment raises
 * pieces_separated, courier 2.9); the stop collects a waybill once, so its custody moves once
 * whatever idempotency_key is sent. spec: courier 2.6 rules 2, 3, 6.1 `run.collected:{stop}`:
 * the stop's errand is one charge, booked with the collection the stop charged it with (its
 * first, `errand_waybill`) on that shipment's client, and only with that one, so a later
 * collection, or one replayed, never books a second.
 */
export function collectFollowUps(
  run: Pick<NetworkRun, "id" | "driver_id" | "vehicle">,
  stop: Stop,
  c: Change<"stop_collect">,
): FollowUp[] {
  const moved = custody(c.waybill, stepOf(run.id, stop.id, "collect", c.waybill), {
    event: "collected",
    holder: holderOf(run),
    pieces: carriedPieces([stop], c.waybill),
    by: c.by,
  });
  if (stop.errand_waybill !== c.waybill) return [moved];
  return [moved, {
    kind: "charge",
    waybill: c.waybill,
    charge: stopCharge(run.id, stop.id, {
      kind: "errand",
      reference: `COL-${stop.id}`,
      reason: `collected at stop ${stop.id}`,
      source_event: `run.collected:${stop.id}`,
    }),
    by: c.by,
  }];
}

/**
 * A failed delivery is an attempt on the shipment (keyed by the stop: it fails once). spec:
 * courier 2.6 rule 3: a failed collection is its own entry, on the shipment named (its frozen
 * card) or, as a failed collection mostly picks up nothing, on the client the work order names.
 */
export function failFollowUps(
  runId: string,
  stop: Stop,
  c: Change<"stop_fail">,
  at: number,
): FollowUp[] {
  if (stop.kind === "deliver" && stop.waybill) {
    return [custody(stop.waybill, stepOf(runId, stop.id, "fail", stop.waybill), {
      event: "delivery_attempted",
      note: c.reason,
      by: c.by,
    })];
  }
  // spec: courier 3.4: customs refused the border stop: what it presented is turned back.
  if (stop.kind === "checkpoint") {
    return stop.crossings.map((x) => ({
      kind: "refused_at_border" as const,
      crossing_id: x,
      reason: c.reason,
      by: c.by,
    }));
  }
  if (stop.kind !== "collect" || !stop.work_order) return [];
  const charge = stopCharge(runId, stop.id, {
    kind: "failed_collection",
    reference: `FCOL-${stop.id}`,
    reason: `collection failed: ${c.reason}`,
    source_event: `run.collection_failed:${stop.id}`,
  });
  return [
    c.waybill ? { kind: "charge", waybill: c.waybill, charge, by: c.by } : {
      kind: "client_charge",
      client_id: stop.work_order.courier_client_id,
      charge,
      ...(c.fee !== undefined ? { fee: c.fee } : {}),
      at,
      by: c.by,
    },
  ];
}
