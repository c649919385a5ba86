/**
 * The follow-ups of each change (follow_ups.ts), from the run as the change left it: what the
 * run records with the change, and what the request that made it does before it answers, alike.
 */
import { sha256Hex } from "../../../src/domain/secrets.ts";
import type { RunChange, TransferTarget } from "./commands.ts";
import {
  boarding,
  carriedPieces,
  custody,
  custodyKey,
  departureEvent,
  type FollowUp,
  holderOf,
  type RunCharge,
} from "./follow_ups.ts";
import { isUnassigned, type NetworkRun, type Stop } from "./run.ts";
import { stepOf } from "./shipment_gate.ts";

type Change<K extends RunChange["kind"]> = Extract<RunChange, { kind: K }>;

/**
 * What leaves with the departure: the shipments on board that left with it (one that came on
 * board after it was moved by its own boarding), keyed by the departure the run recorded, so a
 * departure sent again moves none twice; a run kept before it recorded its departure keys them
 * by `fallbackKey`. And the crossings of the border stops it leaves presented.
 */
export function departureFollowUps(run: NetworkRun, by: string, fallbackKey: string): FollowUp[] {
  const onBoard = run.items.filter((i) =>
    i.state === "on_board" && (run.departed_at === undefined || i.departed_at === run.departed_at)
  ).map((i) => i.waybill);
  // The run keeps its departure for good; one kept before it did is found in its history.
  const departure = run.departed_at ?? run.history.findLast((h) => h.action === "depart")?.at;
  const key = departure === undefined ? fallbackKey : `${run.id}:departure:${departure}`;
  const holder = holderOf(run);
  // spec: courier 3.2: a shipment the run delivers goes out for delivery; others depart on a
  // trunk leg (departureEvent).
  const byEvent = Map.groupBy(onBoard, (w) => departureEvent(run, w));
  const moves = [...byEvent].flatMap(([event, waybills]) =>
    waybills.map((w) =>
      custody(w, key, { holder, event, pieces: carriedPieces(run.stops, w), by }, run.id)
    )
  );
  return [...moves, ...leftBorderFollowUps(run, by)];
}

/**
 * spec: courier 2.9 released_awaiting_collection: a run that leaves a border stop it presented
 * with no entry recorded (it departs, arrives, closes, or is presented at another border: `here`) left
 * behind what customs held there, so a release afterwards awaits collection. The crossing records
 * it once, however often it is told.
 */
export function leftBorderFollowUps(run: NetworkRun, by: string, here?: string): FollowUp[] {
  return run.stops
    .filter((s) => s.kind === "checkpoint" && s.status === "presented" && s.id !== here)
    .flatMap((s) =>
      s.crossings.map((x) => ({ kind: "vehicle_left" as const, crossing_id: x, by }))
    );
}

/**
 * spec: courier 3.2: linehaul closes on arrival for what the run carried on a trunk leg (what it
 * delivers stays out for delivery), keyed by the boarding. The unload, deliveries and reports
 * follow the arrival: leg_trip_ended waits for the grace (tripEndedFollowUps). A border stop
 * still presented is left behind (leftBorderFollowUps).
 */
export function arrivalFollowUps(run: NetworkRun, by: string): FollowUp[] {
  const moves = run.items
    .filter((i) => i.state === "on_board" && departureEvent(run, i.waybill) !== "out_for_delivery")
    .map(({ waybill: w }) =>
      custody(w, `${run.id}:arrival:${boarding(run, w)}`, {
        event: "arrived",
        holder: holderOf(run),
        pieces: carriedPieces(run.stops, w),
        by,
      })
    );
  return [...moves, ...leftBorderFollowUps(run, by)];
}

/**
 * spec: courier 2.9 leg_trip_ended: the run arrived and, the grace after it, these shipments are
 * still on board: nothing (an unload, delivery, report or transfer) told them where they are.
 * One condition per shipment on the run (it arrives once), so however often it is looked for,
 * each is raised once.
 */
export function tripEndedFollowUps(run: NetworkRun): FollowUp[] {
  const onBoard = run.items.filter((i) => i.state === "on_board").map((i) => i.waybill);
  return [...new Set(onBoard)].map((w): FollowUp => ({
    kind: "alert",
    alert: {
      kind: "leg_trip_ended",
      condition_key: `${run.id}:${w}:trip_ended`,
      owner: "courier",
      subject: { type: "shipment", id: w },
      waybill: w,
      message: `run ${run.id} arrived with ${w} still on board: no unload, delivery, report ` +
        `or transfer has told it where it is`,
      detail: { run_id: run.id },
    },
  }));
}

/**
 * Every item unloaded so far is received, so a retry after a crash completes an unload; each once
 * per time it came on board, whichever unload named it.
 */
export function unloadFollowUps(run: NetworkRun, facilityId: string | null, by: string) {
  return run.items.filter((i) => i.state === "unloaded").map((i) =>
    custody(i.waybill, `${run.id}:unload:${boarding(run, i.waybill)}`, {
      event: "received_at_destination",
      facility_id: facilityId ?? run.facility_id,
      pieces: carriedPieces(run.stops, i.waybill),
      by,
    }, run.id)
  );
}

/**
 * An item is reported once each time it came on board (then it has its end state): keyed by that,
 * so the same report sent again without its key moves the shipment once.
 */
export function reportFollowUps(run: NetworkRun, c: Change<"report">): FollowUp[] {
  const key = `${run.id}:report:${boarding(run, c.waybill)}`;
  if (c.condition === "missing" || c.condition === "damaged") {
    return [custody(c.waybill, key, {
      event: c.condition === "missing" ? "lost_or_damaged" : "exception",
      reason: `${c.condition}: ${c.note}`,
      by: c.by,
    })];
  }
  if (c.condition === "returned") {
    return [custody(c.waybill, key, { event: "returned", note: c.note, by: c.by })];
  }
  return [];
}

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

/**
 * A shipment boarding a run already under way has departed with it, as those on board at its
 * departure did (courier 3.2: out for delivery on the run that delivers it); and a run left
 * without a driver raises leg_unassigned.
 */
export function stopAddedFollowUps(run: NetworkRun, stopId: string, by: string): FollowUp[] {
  const boarded = run.items.find((i) => i.stop_id === stopId && i.state === "on_board");
  const moves = boarded && run.status === "departed"
    ? [custody(boarded.waybill, `${run.id}:${stopId}:boarded`, {
      event: departureEvent(run, boarded.waybill),
      holder: holderOf(run),
      by,
    })]
    : [];
  return [...moves, ...unassignedFollowUps(run)];
}

/**
 * spec: courier 2.9 leg_unassigned: a run with stops and no driver waits for one. Each time it is
 * left without one is its own condition, raised once (a retry raises the same one, or the one a
 * crash kept from being raised); a run kept before it counted them has the one key it had.
 */
export function unassignedFollowUps(run: NetworkRun): FollowUp[] {
  if (!isUnassigned(run)) return [];
  const times = run.unassigned_times;
  return [{
    kind: "alert",
    alert: {
      kind: "leg_unassigned",
      condition_key: times === undefined ? `${run.id}:unassigned` : `${run.id}:unassigned:${times}`,
      owner: "courier",
      subject: { type: "network_run", id: run.id },
      message: `run ${run.id} has stops and no driver assigned`,
      detail: { run_id: run.id, stops: run.stops.length },
    },
  }];
}

/**
 * The key of a transfer's custody moves: what moves where, whatever key the request sends, so the
 * same transfer sent again moves nothing again; each waybill counts the times it came onto the
 * run (`run` before the transfer), so a shipment that went away and came back moves again.
 */
export function transferKey(run: NetworkRun, waybills: readonly string[], toRun: string): string {
  const moving = [...new Set(waybills)].sort().map((w) => boarding(run, w)).join(",");
  return `transfer:${toRun}:${sha256Hex(moving)}`;
}

/**
 * The key of a transfer's step on one shipment: the key its custody move is recorded under
 * (transferFollowUps), which the transfer's request reserves the shipment with (shipment_gate.ts).
 */
export function transferStepKey(
  run: NetworkRun,
  waybills: readonly string[],
  toRun: string,
  waybill: string,
): string {
  return custodyKey(`${run.id}:${transferKey(run, waybills, toRun)}`, waybill);
}

/**
 * What the target of a transfer tells of it: its holder as the transfer found it, and the items it
 * took while under way (courier 3.2: onto a run already under way, the shipment departs with it,
 * depot_dwell closes, linehaul opens, as a stop added to it does; one taken before the run left
 * departs with it), each moved once per boarding of the target.
 */
export function transferTarget(
  target: NetworkRun,
  taken: NetworkRun,
  waybills: readonly string[],
): TransferTarget {
  const underWay = taken.status === "departed"
    ? taken.items.filter((i) =>
      waybills.includes(i.waybill) && i.state === "on_board" && i.departed_at === undefined
    )
    : [];
  return {
    holder: holderOf(target),
    boarded: underWay.map((i) => ({
      waybill: i.waybill,
      key: `${taken.id}:boarded:${boarding(taken, i.waybill)}`,
      event: departureEvent(taken, i.waybill),
      holder: holderOf(taken),
    })),
  };
}

/**
 * The items move to the target's holder; those the target took under way depart with it
 * (courier 3.2), once per boarding of the target. `before` is the run as the transfer found it.
 */
export function transferFollowUps(
  before: NetworkRun,
  after: NetworkRun,
  c: { waybills: readonly string[]; to_run: string; to: TransferTarget; by: string },
): FollowUp[] {
  const key = `${before.id}:${transferKey(before, c.waybills, c.to_run)}`;
  const holder = c.to.holder;
  const pieces = (w: string) => carriedPieces(after.stops, w);
  return [
    ...c.waybills.map((w) =>
      custody(w, key, {
        holder,
        note: `transferred to run ${c.to_run}`,
        event: "scan",
        pieces: pieces(w),
        by: c.by,
      })
    ),
    ...c.to.boarded.map((b) =>
      custody(b.waybill, b.key, {
        event: b.event,
        holder: b.holder,
        pieces: pieces(b.waybill),
        by: c.by,
      })
    ),
  ];
}

/**
 * What follows the target taking a transfer's items: the run they came from marks them
 * transferred here, told what the target took (`before` and `after` it took them).
 */
export function transferInFollowUps(
  before: NetworkRun,
  after: NetworkRun,
  c: Change<"transfer_in">,
): FollowUp[] {
  const waybills = c.items.map((i) => i.waybill);
  return [{
    kind: "transfer_out",
    from_run: c.from_run,
    to_run: after.id,
    waybills,
    to: transferTarget(before, after, waybills),
    ...(c.gates ? { gates: c.gates } : {}),
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
