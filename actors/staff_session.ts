/**
 * A portal sign-in (CONTRACT "Sign-in and people"): keyed by the hash of its token. It closes at
 * its expiry by a durable timer, on sign-out, or when the person's password changes (epoch).
 */
import { accept, type ActorDefinition, reject, unreachable } from "../src/runtime/actor.ts";

export interface StaffSession {
  readonly business_id: string;
  readonly staff_id: string;
  readonly session_epoch: number;
  readonly expires_at: number;
  readonly closed: boolean;
}

export type StaffSessionState = StaffSession | null;

export type StaffSessionCommand =
  | {
    kind: "open";
    business_id: string;
    staff_id: string;
    session_epoch: number;
    expires_at: number;
  }
  | { kind: "check" }
  | { kind: "close" };

export type StaffSessionEvent =
  | { kind: "opened"; session: StaffSession }
  | { kind: "closed" };

const EXPIRED = reject("unauthenticated", "session expired or signed out");

export const staffSessionActor: ActorDefinition<
  StaffSessionState,
  StaffSessionCommand,
  StaffSessionEvent,
  StaffSession | undefined
> = {
  type: "staff_session",
  version: 1,
  initial: null,
  decide(state, command, ctx) {
    switch (command.kind) {
      case "open": {
        if (state !== null) return reject("already_exists", "session exists");
        const { kind: _, ...session } = command;
        return accept([{ kind: "opened", session: { ...session, closed: false } }], undefined, [
          { op: "set", name: "expiry", at: command.expires_at },
        ]);
      }
      case "check":
        if (state === null || state.closed || state.expires_at <= ctx.now) return EXPIRED;
        return accept([], (s) => s ?? undefined);
      case "close":
      case "timer":
        if (state === null || state.closed) return accept([]);
        return accept([{ kind: "closed" }], undefined, [{ op: "cancel", name: "expiry" }]);
      default:
        return unreachable(command);
    }
  },
  evolve(state, event) {
    switch (event.kind) {
      case "opened":
        return event.session;
      case "closed":
        return state === null ? null : { ...state, closed: true };
      default:
        return unreachable(event);
    }
  },
};
