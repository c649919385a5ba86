/**
 * A signed-in person (CONTRACT "Sign-in and people"): a portal user of a business or a user of a
 * courier's client, keyed by the hash of the session token. It closes at its expiry by a durable
 * timer, on sign-out, or when the person's password changes (the account's session epoch moves).
 */
import { accept, type ActorDefinition, reject, unreachable } from "../../src/runtime/actor.ts";

export interface Session {
  /** Whose person: a business's portal user, or a courier client's user. */
  readonly owner: "staff" | "client_user";
  readonly business_id: string;
  /** The business id for staff, the client id for client users. */
  readonly account_id: string;
  readonly user_id: string;
  readonly session_epoch: number;
  readonly expires_at: number;
  readonly closed: boolean;
}

export type SessionState = Session | null;

/** Sessions are found by token hash alone, so they all live under one tenant key. */
export const SESSION_TENANT = "platform";

export type SessionCommand =
  | { kind: "open"; session: Omit<Session, "closed"> }
  | { kind: "check" }
  | { kind: "close" };

export type SessionEvent =
  | { kind: "opened"; session: Session }
  | { kind: "closed" };

const EXPIRED = reject("unauthenticated", "session expired or signed out");

export const sessionActor: ActorDefinition<
  SessionState,
  SessionCommand,
  SessionEvent,
  Session | undefined
> = {
  type: "session",
  version: 1,
  initial: null,
  decide(state, command, ctx) {
    switch (command.kind) {
      case "open":
        if (state !== null) return reject("already_exists", "session exists");
        return accept(
          [{ kind: "opened", session: { ...command.session, closed: false } }],
          undefined,
          [{ op: "set", name: "expiry", at: command.session.expires_at }],
        );
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
