/**
 * Drivers' positions to the live views (Business API 1.2; the dispatch board): each pump publishes
 * one signal per driver that reported, the newest observed position, and nothing an actor pattern
 * (projections) hears.
 */
import assert from "node:assert/strict";
import type { Kysely } from "kysely";
import { type ActorChange, signalPattern, subjectPattern } from "../../../src/bus/bus.ts";
import { MemoryBus } from "../../../src/bus/memory_bus.ts";
import type { Database } from "../../../src/db/schema.ts";
import { LivePositions } from "../../../src/business/reactors/live_positions.ts";
import {
  DRIVER_POSITION,
  PositionSignals,
} from "../../../src/business/reactors/position_signals.ts";

const at = (lat: number, seconds: number) => ({
  lat,
  lng: 25.9,
  accuracy: null,
  heading: null,
  at: seconds * 1000,
});

Deno.test("position signals: one per driver per pump, the newest observed; projections hear none", async () => {
  const bus = new MemoryBus();
  // Reports never touch the database; only the batch at the pump does (not called here).
  const positions = new LivePositions(null as unknown as Kysely<Database>);
  const signals = new PositionSignals(positions, { bus, env: "live" });
  const heard: ActorChange[] = [];
  const actors: unknown[] = [];
  bus.subscribe(signalPattern("live", "platform", DRIVER_POSITION), (m) => {
    heard.push(m.payload as ActorChange);
  });
  bus.subscribe(subjectPattern("live", "*", "*"), (m) => void actors.push(m.payload));
  try {
    positions.report("pdr_a", [at(-24.61, 1)]);
    // Late positions after lost signal: the newest observed one wins, whatever the order.
    positions.report("pdr_a", [at(-24.63, 3), at(-24.62, 2)]);
    positions.report("pdr_b", [at(-24.7, 1)]);
    await signals.publish();
    await bus.flush();
    assert.deepEqual(
      heard.map((c) => [c.tenant, c.type, c.id, c.version, (c.snapshot as { lat: number }).lat]),
      [["platform", DRIVER_POSITION, "pdr_a", 3000, -24.63], [
        "platform",
        DRIVER_POSITION,
        "pdr_b",
        1000,
        -24.7,
      ]],
    );
    await signals.publish();
    await bus.flush();
    assert.equal(heard.length, 2, "nothing new reported: nothing published");
    assert.deepEqual(actors, []);
  } finally {
    await signals.close();
    await bus.drain();
  }
});
