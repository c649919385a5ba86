/**
 * The sandbox twin's shared rules (Business API 4.4, 5.7, 8): which base an endpoint lives on, and
 * the codes the sandbox never sends. Pure constants and small functions.
 */
import { refuse } from "../../runtime/actor.ts";

/** spec: business 5.7: sandbox one-time, customer and driver codes are always this. */
export const SANDBOX_CODE = "123456";

/** spec: business 8: a sandbox sign-up code is valid 15 minutes... */
export const SANDBOX_SIGNUP_CODE_VALID_MS = 15 * 60_000;
/** ...for 5 tries; then the sign-up is spent and a new POST /sandbox/signup starts again. */
export const SANDBOX_SIGNUP_TRIES = 5;

/**
 * spec: business 4.4: the sandbox-only endpoints answer 404 on live, saying where they are, so an
 * integrator who sent a live key to the wrong base learns which base to call.
 */
export function requireSandboxBase(name: "live" | "sandbox", endpoint: string): void {
  if (name !== "sandbox") {
    refuse("not_found", `${endpoint} is on the sandbox base, not on live`);
  }
}
