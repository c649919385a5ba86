/** Fixtures shared by network_run_outcomes_test.ts and network_run_errand_test.ts: pure, no store. */
import assert from "node:assert/strict";
import {
  type FollowUp,
  type Load,
  networkRunActor,
  type NetworkRunState,
  type NewRun,
  type RunCommand,
  type RunEvent,
} from "../../../actors/courier/network_run/mod.ts";
import type { Acceptance, Ctx } from "../../../src/runtime/actor.ts";

export const NOW = Date.parse("2026-11-02T08:00:00Z");
export const LOAD: Load = { grams: 1000, cm3: 1000, pieces: 1, cold_slots: 0 };
let ids = 0;

/** The context of one decision at `now`, ids numbered as they are made. */
export const ctx = (now = NOW): Ctx => ({ now, newId: (p) => `${p}_${++ids}` });

/** The run actor's decision on `command`, which must be accepted. */
export function decided(
  state: NetworkRunState,
  command: RunCommand,
  now = NOW,
): Acceptance<NetworkRunState, RunEvent, unknown> {
  const d = networkRunActor.decide(state, command, ctx(now));
  assert.ok(d.ok, JSON.stringify(d));
  return d as Acceptance<NetworkRunState, RunEvent, unknown>;
}

/** The state after `events`, evolved in order. */
export function applied(state: NetworkRunState, events: readonly RunEvent[]): NetworkRunState {
  return events.reduce(networkRunActor.evolve, state);
}

/** Creating run_1 of courier biz_1 at GBE-HUB, of `kind`, driven by `driver`. */
export function creation(kind: NewRun["kind"], driver: string | null = "drv_1"): RunCommand {
  return {
    kind: "create",
    run: {
      id: "run_1",
      courier_id: "biz_1",
      facility_id: "GBE-HUB",
      kind,
      countries: ["BW"],
      capacity: { grams: 100_000, cm3: 1_000_000, pieces: 50, cold_slots: 0 },
      vehicle: "B 123 ABC",
      driver_id: driver,
    },
    by: "ops",
  };
}

/** Adding collect stop `id` for a work order of client cli_1 reserving `reserved`. */
export function collectStop(id: string, reserved: Load): RunCommand {
  return {
    kind: "add_stop",
    stop: {
      id,
      kind: "collect",
      waybill: null,
      work_order: { sender: "A", recipient: "B", courier_client_id: "cli_1", reserved },
      country: null,
      to_country: null,
      border_post: null,
      load: LOAD,
    },
    by: "ops",
  };
}

/** The errand charge collect stop c1 of run_1 books, with `waybill`, its first collection. */
export function c1Errand(waybill: string): FollowUp {
  return {
    kind: "charge",
    waybill,
    charge: {
      kind: "errand",
      reference: "COL-c1",
      reason: "collected at stop c1",
      source_event: "run.collected:c1",
      evidence_path: "run:run_1/stop:c1",
    },
    by: "driver:drv_1",
  };
}
