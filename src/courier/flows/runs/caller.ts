/**
 * Who acts on a run, and the refusals every run flow shares: operations of the courier (a
 * business credential with its scopes) or the run's driver (courier 4.5: a driver reaches only
 * the runs assigned to them, and another driver's run is not found).
 */
import { refuse } from "../../../runtime/actor.ts";
import type { Deps } from "../../../environment.ts";

/** What the run flows need of the environment. */
export type RunDeps = Pick<Deps, "runtime" | "clock" | "requestId">;

/** The caller as the route's credential states it. */
export interface RunCaller {
  /** The courier's business id: the run's tenant. */
  readonly tenant: string;
  /** How the audit trail names the caller (a run's history, custody moves, charges). */
  readonly by: string;
  readonly scopes: readonly string[];
  /** The signed-in driver; null for operations. */
  readonly driver_id: string | null;
}

/** Refuses `scope_denied` unless the caller holds `scope` (courier 5). */
export function needScope(caller: RunCaller, scope: string): void {
  if (!caller.scopes.includes(scope)) refuse("scope_denied", `missing scope: ${scope}`, { scope });
}

/** A field of a request the flow found wrong, as a validation refusal names it. */
export interface FieldError {
  readonly path: string;
  readonly message: string;
}

/** Refuses `validation_failed` naming each field, as a request that fails its schema is. */
export function invalid(errors: readonly FieldError[]): never {
  const summary = errors.map((e) => `${e.path || "body"}: ${e.message}`).join("; ");
  return refuse("validation_failed", `invalid request: ${summary}`, { errors });
}
