/**
 * What must follow a change to a run, beyond the run (courier 2.6 rule 3, 2.9, 3.2, 3.4): custody
 * moves on its shipments, later charges, the crossings of a border stop, a laboratory handover,
 * an alert. Pure: the run records them with the change (`follow_up_due`), and the request that
 * made the change does them before it answers; each has a key of its condition, so however
 * often, and by whichever of the two, it is done once (src/courier/flows/runs/follow_ups.ts).
 */
import type { ScanInput } from "../shipment/mod.ts";
import type { AlertKind } from "../alert.ts";
import type { ChargeKind } from "../../../src/courier/rules/ledger.ts";
import type { ScanEvent } from "../../../src/courier/rules/lifecycle.ts";
import type { ClientFee, TransferTarget } from "./commands.ts";
import type { NetworkRun, Stop } from "./run.ts";

/** A later charge a run's work causes (courier 2.6 rule 3); its source event books it once. */
export interface RunCharge {
  readonly kind: ChargeKind;
  readonly reference: string;
  readonly reason: string;
  readonly evidence_path: string | null;
  readonly source_event: string;
}

/** An alert a run raises (courier 2.9); its condition key raises it once. */
export interface RunAlert {
  readonly kind: AlertKind;
  readonly condition_key: string;
  readonly owner: string;
  readonly subject: { readonly type: string; readonly id: string };
  readonly waybill?: string;
  readonly message: string;
  readonly detail: Readonly<Record<string, unknown>>;
}

export type FollowUp =
  /**
   * A custody move recorded on the shipment under `key`, once. `run_id`: the run whose item it
   * moves, which ends the item as the shipment ended when operations closed it (perform.ts);
   * absent: the move changes nothing on a closed shipment.
   */
  | {
    readonly kind: "custody";
    readonly waybill: string;
    readonly key: string;
    scan: ScanInput;
    readonly run_id?: string;
  }
  /** A charge on the shipment's client, priced on the shipment's frozen rate card. */
  | { readonly kind: "charge"; readonly waybill: string; readonly charge: RunCharge; by: string }
  /**
   * A charge no shipment carries, on the work order's client: `fee` is its card's fee in force
   * when the fact happened (null: none, nothing booked). Absent (recorded before it was carried):
   * priced on the client's card of the moment at `at`.
   */
  | {
    readonly kind: "client_charge";
    readonly client_id: string;
    readonly charge: RunCharge;
    readonly fee?: ClientFee | null;
    readonly at: number;
    readonly by: string;
  }
  /** Each shipment's crossing records the side the vehicle crossed. */
  | {
    readonly kind: "crossing";
    readonly crossing_id: string;
    readonly side: "exit" | "entry";
    readonly by: string;
  }
  /**
   * Customs refused the border stop the crossing's shipment was presented at (courier 3.4): the
   * crossing is refused with the stop's reason, as customs' own refusal would be.
   */
  | {
    readonly kind: "refused_at_border";
    readonly crossing_id: string;
    readonly reason: string;
    readonly by: string;
  }
  /** The vehicle left a border with the crossing's shipment presented there. */
  | { readonly kind: "vehicle_left"; readonly crossing_id: string; readonly by: string }
  /** The laboratory sample was handed over at `at`. */
  | { readonly kind: "lab_handover"; readonly waybill: string; readonly at: number }
  | { readonly kind: "alert"; readonly alert: RunAlert }
  /**
   * The run a transfer came from marks the items transferred to this one (courier 3.4), then
   * does its own follow-ups; recorded by the run that took them, so a crash between the two
   * runs' commits leaves no item on both. The one sending them refusing (an item ended there
   * meanwhile), this run gives back what it took.
   */
  | {
    readonly kind: "transfer_out";
    readonly from_run: string;
    readonly to_run: string;
    readonly waybills: readonly string[];
    readonly to: TransferTarget;
    /** The gates the transfer is recorded under there (customs_gate.ts); absent: none. */
    readonly gates?: Readonly<Record<string, string>> | null;
    readonly by: string;
  };

/** The holder named on custody moves made by a run: its driver, else its vehicle. */
export function holderOf(run: Pick<NetworkRun, "id" | "driver_id" | "vehicle">): string {
  return run.driver_id ? `driver:${run.driver_id}` : `vehicle:${run.vehicle ?? run.id}`;
}

/** The pieces a run carries of a shipment: those its collect labels name, else all (null). */
export function carriedPieces(stops: readonly Stop[], waybill: string): string[] | null {
  for (const stop of stops) {
    const got = stop.collected.find((x) => x.waybill === waybill);
    if (!got) continue;
    const named = got.labels.filter((l) => l.startsWith(`${waybill}-`));
    return named.length > 0 ? named : null;
  }
  return null;
}

/**
 * A shipment's boarding of the run: its waybill and how many times it came on board (an item
 * each time). A custody move keyed by it happens once per boarding, whatever request asks it
 * again, and again if the shipment went away and came back.
 */
export function boarding(run: Pick<NetworkRun, "items">, waybill: string): string {
  return `${waybill}*${run.items.filter((i) => i.waybill === waybill).length}`;
}

/**
 * What leaving with a run is for one of its shipments (spec: courier 3.2 milestones): out for
 * delivery when the run delivers it (its deliver stop, still to be worked, with no border stop
 * still to be presented before it), which opens delivery_attempt; else a trunk leg (linehaul),
 * toward a crossing when a border stop is still to be presented (border_presentation too).
 */
export function departureEvent(run: Pick<NetworkRun, "stops">, waybill: string): ScanEvent {
  if (deliversNext(run, waybill)) return "out_for_delivery";
  const border = (s: Stop) => s.kind === "checkpoint" && s.status === "pending";
  return run.stops.some(border) ? "departed_to_border" : "departed";
}

/** The run delivers the shipment (its deliver stop is pending) with no border to pass before. */
export function deliversNext(run: Pick<NetworkRun, "stops">, waybill: string): boolean {
  const delivers = run.stops.findIndex((s) =>
    s.kind === "deliver" && s.waybill === waybill && s.status === "pending"
  );
  const toPass = (s: Stop) =>
    s.kind === "checkpoint" && (s.status === "pending" || s.status === "presented");
  return delivers >= 0 && !run.stops.slice(0, delivers).some(toPass);
}

/** A custody move of `waybill` once under the action's `key` (src/courier/flows/runs). */
export function custody(
  waybill: string,
  key: string,
  scan: ScanInput,
  runId?: string,
): Extract<FollowUp, { kind: "custody" }> {
  const move = { kind: "custody", waybill, key: custodyKey(key, waybill), scan } as const;
  return runId === undefined ? move : { ...move, run_id: runId };
}

/** The key a custody move on the shipment is recorded under, once (recordOnce). */
export function custodyKey(key: string, waybill: string): string {
  return `custody:${key}:${waybill}`;
}
