/**
 * A sandbox sign-up (Business API 4.4, 5.7, 8), keyed by the e-mail in lower case under the
 * platform tenant. The actor is the sign-up's lock: its commands run one at a time, so of many
 * verifies sent at once one takes the code and the rest find no sign-up pending, and one e-mail
 * never makes two businesses. It keeps the business it made, so signing up again rotates that
 * business's credentials.
 */
import {
  accept,
  type ActorDefinition,
  type Decision,
  reject,
  unreachable,
} from "../../src/runtime/actor.ts";
import {
  SANDBOX_CODE,
  SANDBOX_SIGNUP_CODE_VALID_MS,
  SANDBOX_SIGNUP_TRIES,
} from "../../src/business/rules/sandbox.ts";

export const SANDBOX_SIGNUP_TENANT = "platform";

export interface SignupDetails {
  readonly first_names: string;
  readonly surname: string;
  readonly company: string;
}

export interface PendingSignup extends SignupDetails {
  readonly expires_at: number;
  readonly tries_left: number;
}

export interface SandboxSignupState {
  readonly pending: PendingSignup | null;
  /** The business this e-mail's first verified sign-up made (its sandbox twin). */
  readonly business_id: string | null;
}

export type SandboxSignupCommand =
  | ({ kind: "request" } & SignupDetails)
  | { kind: "verify"; code: string };

export type SandboxSignupEvent =
  | ({ kind: "signup_requested"; expires_at: number } & SignupDetails)
  | { kind: "signup_code_refused"; tries_left: number }
  | ({ kind: "signup_verified"; business_id: string } & SignupDetails);

export type SandboxSignupReply =
  | { readonly outcome: "requested"; readonly expires_at: number }
  | { readonly outcome: "code_refused"; readonly tries_left: number }
  | ({ readonly outcome: "verified"; readonly business_id: string } & SignupDetails);

type Decided = Decision<SandboxSignupState, SandboxSignupEvent, SandboxSignupReply>;

export const sandboxSignupActor: ActorDefinition<
  SandboxSignupState,
  SandboxSignupCommand,
  SandboxSignupEvent,
  SandboxSignupReply
> = {
  type: "sandbox_signup",
  noun: "sandbox sign-up",
  version: 1,
  initial: { pending: null, business_id: null },
  decide(state, command, ctx) {
    switch (command.kind) {
      case "request": {
        // spec: business 8: a new sign-up starts again: a fresh 15 minutes and 5 tries.
        const { first_names, surname, company } = command;
        const expires_at = ctx.now + SANDBOX_SIGNUP_CODE_VALID_MS;
        return accept(
          [{ kind: "signup_requested", first_names, surname, company, expires_at }],
          () => ({ outcome: "requested", expires_at }),
        );
      }
      case "verify":
        return verify(state, command.code, ctx.now, () => ctx.newId("biz"));
      case "timer":
        return accept([]);
      default:
        return unreachable(command);
    }
  },
  evolve(state, event) {
    switch (event.kind) {
      case "signup_requested": {
        const { kind: _, ...pending } = event;
        return { ...state, pending: { ...pending, tries_left: SANDBOX_SIGNUP_TRIES } };
      }
      case "signup_code_refused":
        return {
          ...state,
          // The last try spends the sign-up.
          pending: state.pending && event.tries_left > 0
            ? { ...state.pending, tries_left: event.tries_left }
            : null,
        };
      case "signup_verified":
        return { pending: null, business_id: event.business_id };
    }
  },
  // Nobody downstream reads sign-ups: no snapshot, no events on the bus.
  publishEvents: false,
};

/** spec: business 4.4, 8: the code, within 15 minutes, in at most 5 tries. */
function verify(
  state: SandboxSignupState,
  code: string,
  now: number,
  newBusinessId: () => string,
): Decided {
  const p = state.pending;
  if (!p) {
    return reject(
      "no_signup_pending",
      "no sandbox sign-up is pending for this e-mail (never started, already verified or " +
        "spent): POST /sandbox/signup first",
    );
  }
  if (now >= p.expires_at) {
    return reject(
      "signup_code_expired",
      "the sign-up code has expired (valid 15 minutes): POST /sandbox/signup again",
    );
  }
  if (code !== SANDBOX_CODE) {
    const tries_left = p.tries_left - 1;
    return accept(
      [{ kind: "signup_code_refused", tries_left }],
      () => ({ outcome: "code_refused", tries_left }),
    );
  }
  const business_id = state.business_id ?? newBusinessId();
  const { first_names, surname, company } = p;
  return accept(
    [{ kind: "signup_verified", business_id, first_names, surname, company }],
    () => ({ outcome: "verified", business_id, first_names, surname, company }),
  );
}
