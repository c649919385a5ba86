/** A run's standing and a stop action's answer (courier 4.5). */
import { type ItemState, loadOf, type NetworkRun } from "./run.ts";

/** A run's standing without its stops and items: the list views and the projected snapshot. */
export function runSummary(run: NetworkRun) {
  const items: Partial<Record<ItemState, number>> = {};
  for (const i of run.items) items[i.state] = (items[i.state] ?? 0) + 1;
  return {
    id: run.id,
    courier_id: run.courier_id,
    facility_id: run.facility_id,
    kind: run.kind,
    countries: run.countries,
    vehicle: run.vehicle,
    driver_id: run.driver_id,
    status: run.status,
    capacity: run.capacity,
    load: loadOf(run),
    stops: run.stops.length,
    stops_open: run.stops.filter((s) => s.status === "pending" || s.status === "presented").length,
    items,
    created_at: run.created_at,
    closed_at: run.closed_at,
  };
}

export type RunSummary = ReturnType<typeof runSummary>;

/**
 * What a stop action answers (courier 4.5): the stop, the items it brought or took, the run's
 * standing and its recent history; not every stop of the run again (a run has up to STOPS_MAX).
 */
export function stopAnswer(run: NetworkRun, stopId: string) {
  return {
    run: runSummary(run),
    stop: run.stops.find((s) => s.id === stopId)!,
    items: run.items.filter((i) => i.stop_id === stopId),
    history: run.history,
  };
}

export type StopAnswer = ReturnType<typeof stopAnswer>;
