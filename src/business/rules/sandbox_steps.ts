/**
 * The sandbox's simulation steps and autopilot scenarios (Business API 4.4): the step names are
 * the driver app's actions (CONTRACT "Driver app") plus assign_driver, which accepts the trip.
 */

/** spec: business 4.4 "Simulation steps and webhooks": the nine steps, in the table's order. */
export const SANDBOX_STEPS = [
  "assign_driver",
  "arrive_pickup",
  "pick_up",
  "arrive_dropoff",
  "deliver",
  "fail_delivery",
  "id_refused",
  "complete_return",
  "cancel_by_driver",
] as const;

export type SandboxStep = typeof SANDBOX_STEPS[number];

/** spec: business 4.4: the recorded override of a simulated collection's bag scan. */
export const SIMULATED_SCAN_REASON = "sandbox simulated scan";

/** The reason a step that needs one is given when the body has none. */
export const SIMULATED_REASONS: Readonly<Record<string, string>> = {
  fail_delivery: "sandbox simulated failed delivery",
  id_refused: "sandbox simulated ID refusal",
  cancel_by_driver: "sandbox simulated driver cancellation",
};

/** spec: business 4.4 "Autopilot scenarios": `off` stops it. */
export const AUTOPILOT_SCENARIOS = [
  "delivered",
  "failed_delivery",
  "id_refused",
  "cancel_by_driver",
  "off",
] as const;

export type AutopilotScenario = typeof AUTOPILOT_SCENARIOS[number];

/** spec: business 4.4: the steps each scenario runs, in order. */
export const SCENARIO_STEPS: Readonly<
  Record<Exclude<AutopilotScenario, "off">, readonly SandboxStep[]>
> = {
  delivered: ["assign_driver", "arrive_pickup", "pick_up", "arrive_dropoff", "deliver"],
  failed_delivery: [
    "assign_driver",
    "arrive_pickup",
    "pick_up",
    "arrive_dropoff",
    "fail_delivery",
    "complete_return",
  ],
  id_refused: [
    "assign_driver",
    "arrive_pickup",
    "pick_up",
    "arrive_dropoff",
    "id_refused",
    "complete_return",
  ],
  cancel_by_driver: ["assign_driver", "arrive_pickup", "cancel_by_driver"],
};

/** spec: business 4.4, 8: step_seconds 1 to 60, default 5. */
export const STEP_SECONDS_MIN = 1;
export const STEP_SECONDS_MAX = 60;
export const STEP_SECONDS_DEFAULT = 5;

/** spec: business 4.4 "retried a few times": a refused step's tries before it is given up. */
export const AUTOPILOT_TRIES_MAX = 3;

export function isScenario(s: string): s is AutopilotScenario {
  return (AUTOPILOT_SCENARIOS as readonly string[]).includes(s);
}

/**
 * A sandbox trip's creation hands its autopilot's start to this outbox in the creation's commit,
 * so a booking completed by the stalled-booking sweep, or cut off by a crash before the booking
 * flow started it, runs its scenario too (a second start answers the first).
 */
export const AUTOPILOT_START_OUTBOX = "sandbox_autopilot_start";

/**
 * spec: business 4.4: the autopilot a sandbox booking runs, decided when it is booked (its own
 * `sandbox_scenario`, else the setting then in force): a late start never reads a later setting.
 */
export interface BookedAutopilot {
  readonly scenario: AutopilotScenario;
  readonly step_seconds: number;
  readonly source: "setting" | "booking";
}

export interface AutopilotStartItem {
  readonly business_id: string;
  readonly reference: string;
  /** The booking's own `sandbox_scenario`; null: the business's setting decides. */
  readonly scenario: AutopilotScenario | null;
  /** Decided at booking; absent on items of trips booked before it was carried. */
  readonly autopilot?: BookedAutopilot | undefined;
}

/**
 * A sandbox trip that ended (delivered, returned, cancelled) tells its autopilot through this
 * outbox, in the ending's commit: a trip with no moves left is no longer moved, nor left among
 * those given up for manual moves (spec: business 4.4).
 */
export const AUTOPILOT_END_OUTBOX = "sandbox_autopilot_end";

/**
 * A sandbox trip marked ready (POST /business/trip/{reference}/ready) tells its autopilot through
 * this outbox, in the readiness's commit: live dispatch offers a prep order at once once ready,
 * so the autopilot's first step waits no longer (spec: business 3.1, 4.4). Its item is an
 * AutopilotEndItem's shape: the trip.
 */
export const AUTOPILOT_READY_OUTBOX = "sandbox_autopilot_ready";

export interface AutopilotEndItem {
  readonly business_id: string;
  readonly reference: string;
}
