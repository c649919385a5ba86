/**
 * A platform driver of the Business API's dispatch pool (CONTRACT "Operator API": POST
 * /operator/drivers): who they are, the vehicle and zone they work in, and whether they are on
 * shift. Known by the hash of the bearer token the operator issued, under the platform tenant:
 * pool drivers take trips of every business, and a trip names its driver (TripDriver).
 */
import { accept, type ActorDefinition, reject, unreachable } from "../../src/runtime/actor.ts";
import { constantTimeEqual } from "../../src/domain/secrets.ts";
import type { KeyRecord } from "../../src/domain/credentials.ts";

export interface PoolDriver {
  readonly id: string;
  readonly name: string;
  readonly phone: string;
  readonly vehicle_type_id: number;
  readonly zone_id: string;
  /** Shown on tracking (spec: business 2.4 driver_plate, driver_color); null when not given. */
  readonly plate: string | null;
  readonly color: string | null;
  readonly token: KeyRecord;
  /** On shift: online drivers are offered trips (spec: business 1.2). */
  readonly online: boolean;
  readonly shift_changed_at: number | null;
}

export type PoolDriverState = PoolDriver | null;

export type NewPoolDriver = Omit<PoolDriver, "online" | "shift_changed_at">;

export type PoolDriverCommand =
  | { kind: "create"; driver: NewPoolDriver }
  | { kind: "authenticate"; hash: string }
  | { kind: "set_shift"; online: boolean }
  | { kind: "get" };

export type PoolDriverEvent =
  | { kind: "pool_driver_created"; driver: NewPoolDriver }
  | { kind: "shift_changed"; online: boolean; at: number };

const NOT_FOUND = reject("not_found", "driver not found");

export const poolDriverActor: ActorDefinition<
  PoolDriverState,
  PoolDriverCommand,
  PoolDriverEvent,
  PoolDriver
> = {
  type: "pool_driver",
  version: 1,
  initial: null,
  decide(state, command, ctx) {
    switch (command.kind) {
      case "create":
        if (state !== null) return reject("already_exists", `driver exists: ${command.driver.id}`);
        return accept(
          [{ kind: "pool_driver_created", driver: command.driver }],
          (s) => s as PoolDriver,
        );
      case "authenticate":
        if (state === null || !constantTimeEqual(state.token.hash, command.hash)) {
          return reject("unauthenticated", "unknown driver token");
        }
        return accept([], () => state);
      case "set_shift":
        if (state === null) return NOT_FOUND;
        // Going online twice changes nothing (a retry after lost signal).
        if (state.online === command.online) return accept([], () => state);
        return accept(
          [{ kind: "shift_changed", online: command.online, at: ctx.now }],
          (s) => s as PoolDriver,
        );
      case "get":
        return state === null ? NOT_FOUND : accept([], () => state);
      case "timer":
        return accept([]);
      default:
        return unreachable(command);
    }
  },
  evolve(state, event) {
    switch (event.kind) {
      case "pool_driver_created":
        return { ...event.driver, online: false, shift_changed_at: null };
      case "shift_changed":
        if (state === null) throw new Error("shift_changed before pool_driver_created");
        return { ...state, online: event.online, shift_changed_at: event.at };
      default:
        return unreachable(event);
    }
  },
  indexes: (s) => s === null ? [] : [{ index: "credential", key: s.token.hash }],
  project: (s) => s === null ? null : { ...s, token: undefined },
};
