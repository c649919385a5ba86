/**
 * Going-live readiness (Business API appendix 3): which flows the business's own receiver has
 * handled in the sandbox, from the webhooks it answered 2xx (the readiness reactor's table), and
 * what is still missing. A report, so it reads the query side. Sandbox only.
 */
import type { Deps } from "../../environment.ts";
import { readinessEvidence } from "../queries/sandbox_readiness.ts";
import { type FlowReport, readinessReport } from "../rules/sandbox_readiness.ts";
import { requireSandbox } from "./sandbox_inbox.ts";

export async function sandboxReadiness(
  deps: Pick<Deps, "name" | "db">,
  business: string,
): Promise<{ readonly ready: boolean; readonly flows: readonly FlowReport[] }> {
  requireSandbox(deps, "GET /business/sandbox/readiness");
  const { evidence, ageRestricted } = await readinessEvidence(deps.db, business);
  return readinessReport(evidence, ageRestricted);
}
