/**
 * The follow-ups of each change to the run itself (follow_ups.ts), from the run as the change left
 * it: what the run records with the change, and what the request that made it does before it
 * answers, alike. A transfer's are in transfer_follow_ups.ts, a stop action's in
 * stop_follow_ups.ts.
 */
import type { RunChange } from "./commands.ts";
import {
  boarding,
  carriedPieces,
  custody,
  departureEvent,
  type FollowUp,
  holderOf,
} from "./follow_ups.ts";
import { isUnassigned, type NetworkRun } from "./run.ts";

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
