/**
 * Drivers' positions to the live views (Business API 1.2: "a position updates memory and the live
 * views at once"; the dispatch board): each driver's newest position is published on the bus as a
 * signal (`signalSubject`, never an actor change, so no projection writes it), at most once per
 * pump (every TIMER_POLL_MS): the reports a driver makes between two pumps are coalesced into the
 * newest one, so the bus carries at most one message per driver per pump, whatever the pings.
 *
 * Every instance absorbs the signals into its own LivePositions (the newest observed wins), so a
 * dispatcher or a tracking read on one instance sees a position posted through another within one
 * pump. Only this instance's reports are published: an absorbed position is never sent again.
 */
import { PLATFORM_TENANT } from "../../../actors/platform/platform_settings.ts";
import {
  type ActorChange,
  type Bus,
  EVERY_INSTANCE,
  signalPattern,
  signalSubject,
  type Subscription,
} from "../../bus/bus.ts";
import type { Reactor } from "../../environment.ts";
import type { LivePositions, Position } from "./live_positions.ts";

/** The signal's topic: `<env>.platform.driver_position.<driver>.signal`. */
export const DRIVER_POSITION = "driver_position";

/** Drivers published per pump; the rest wait for the next one (the newest still wins). */
export const POSITION_SIGNALS_PER_PUMP_MAX = 20_000;

export interface PositionSignalsOptions {
  readonly bus: Bus;
  /** The runtime's bus prefix. */
  readonly env: string;
}

export class PositionSignals implements Reactor {
  readonly #o: PositionSignalsOptions;
  /** Newest unpublished position per driver, in the order they were first reported. */
  #waiting = new Map<string, Position>();
  readonly #absorbing: Subscription;

  constructor(positions: LivePositions, options: PositionSignalsOptions) {
    this.#o = options;
    positions.watch((driverId, newest) => this.#waiting.set(driverId, newest), {
      reportedHere: true,
    });
    // Every instance's signals, this one's too (the bus cannot leave them out): its own come
    // back no newer than what it holds, and are ignored.
    this.#absorbing = options.bus.subscribe(
      signalPattern(options.env, PLATFORM_TENANT, DRIVER_POSITION),
      (m) => {
        const c = m.payload as ActorChange;
        if (isPosition(c.snapshot)) positions.absorb(c.id, c.snapshot);
      },
      // Every instance keeps every driver's newest position (dispatch, tracking).
      { handledBy: EVERY_INSTANCE },
    );
  }

  /** Publishes what was reported since the last pump, one message per driver. */
  async publish(): Promise<void> {
    if (this.#waiting.size === 0) return;
    const batch: [string, Position][] = [];
    for (const entry of this.#waiting) {
      if (batch.length >= POSITION_SIGNALS_PER_PUMP_MAX) break;
      batch.push(entry);
    }
    for (const [id] of batch) this.#waiting.delete(id);
    await Promise.all(batch.map(([id, p]) => {
      const change: ActorChange = {
        env: this.#o.env,
        tenant: PLATFORM_TENANT,
        type: DRIVER_POSITION,
        id,
        // A newer observation is a higher version: a page ignores one older than it shows.
        version: p.at,
        events: [],
        snapshot: p,
      };
      return this.#o.bus.publish(
        signalSubject(this.#o.env, PLATFORM_TENANT, DRIVER_POSITION, id),
        change,
      );
    }));
  }

  close(): Promise<void> {
    // Live views only: nothing to keep when the bus is closing.
    this.#absorbing.unsubscribe();
    this.#waiting.clear();
    return Promise.resolve();
  }
}

/** A signal's position as another instance published it (JSON over NATS: checked, not trusted). */
function isPosition(x: unknown): x is Position {
  if (typeof x !== "object" || x === null) return false;
  const p = x as Record<string, unknown>;
  const orNull = (v: unknown) => v === null || Number.isFinite(v);
  return Number.isFinite(p.lat) && Number.isFinite(p.lng) && Number.isFinite(p.at) &&
    orNull(p.accuracy) && orNull(p.heading);
}
