/** A driver of a business, known by the hash of the bearer token the operator issued. */
import { accept, type ActorDefinition, reject, unreachable } from "../../src/runtime/actor.ts";
import { constantTimeEqual } from "../../src/domain/secrets.ts";
import { keyMention } from "../../src/domain/credentials.ts";
import type { KeyRecord } from "./business/mod.ts";

export interface Driver {
  readonly id: string;
  readonly business_id: string;
  readonly name: string;
  readonly phone: string;
  readonly vehicle_type_id: number;
  readonly token: KeyRecord;
}

export type DriverState = Driver | null;

export type DriverCommand =
  | { kind: "create"; driver: Driver }
  | { kind: "authenticate"; hash: string }
  /**
   * The operator replaces the token (a phone lost, a token leaked): the old one stops at once.
   * `replaces`: the hash of the token replaced; another held by then refuses it.
   */
  | { kind: "rotate_token"; token: KeyRecord; replaces: string }
  | { kind: "get" };

export type DriverEvent =
  | { kind: "driver_created"; driver: Driver }
  | { kind: "token_rotated"; token: KeyRecord };

const TOKEN_ROTATED = reject(
  "key_already_rotated",
  "the token was replaced meanwhile: the other replacement's token is the one that works",
);

export const driverActor: ActorDefinition<DriverState, DriverCommand, DriverEvent, Driver> = {
  type: "driver",
  version: 1,
  initial: null,
  decide(state, command) {
    switch (command.kind) {
      case "create":
        if (state !== null) return reject("already_exists", `driver exists: ${command.driver.id}`);
        return accept([{ kind: "driver_created", driver: command.driver }], (s) => s as Driver);
      case "authenticate":
        if (state === null || !constantTimeEqual(state.token.hash, command.hash)) {
          return reject("unauthenticated", "unknown driver token");
        }
        return accept([], () => state);
      case "rotate_token":
        // Another business's driver is missing here too (the runtime asks as if missing).
        if (state === null) return reject("not_found", "driver not found");
        // Two replacements at once are one: the later one's token would be shown and never work.
        if (!constantTimeEqual(state.token.hash, command.replaces)) return TOKEN_ROTATED;
        return accept([{ kind: "token_rotated", token: command.token }], (s) => s as Driver);
      case "get":
        if (state === null) return reject("not_found", "driver not found");
        return accept([], () => state);
      case "timer":
        return accept([]);
      default:
        return unreachable(command);
    }
  },
  evolve(state, event) {
    if (event.kind === "driver_created") return event.driver;
    if (state === null) throw new Error("token_rotated before driver_created");
    return { ...state, token: event.token };
  },
  indexes: (s) => s === null ? [] : [{ index: "credential", key: s.token.hash }],
  project: (s) => s === null ? null : { ...s, token: undefined },
  // The token's hash stays in the state (signing in checks it), off the log and the bus; events
  // logged whole before still evolve the same.
  logged: (e) =>
    e.kind === "driver_created"
      ? { ...e, driver: { ...e.driver, token: keyMention(e.driver.token) } }
      : { ...e, token: keyMention(e.token) },
};
