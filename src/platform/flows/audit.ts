/**
 * The account's audit trail (Business API 5.6: "recorded"): every change to the business is an
 * event naming who made it, so the trail is the business's event log, shown without a hash or a
 * secret (auditDetail).
 */
import {
  auditDetail,
  businessActor,
  type BusinessEvent,
} from "../../../actors/platform/business/mod.ts";
import type { Deps } from "../../environment.ts";

/** Entries in one page of the trail. */
export const AUDIT_PAGE_MAX = 200;

export interface AuditEntry {
  /** Its place in the trail (the business's event seq). */
  readonly seq: number;
  readonly at: number;
  readonly action: BusinessEvent["kind"];
  /** `operator`, `api_key`, `staff:<user id>` or `partner_key:<key id>`. */
  readonly by: string;
  readonly detail: Record<string, unknown>;
}

/** The entries after `after` (a seq), oldest first, at most AUDIT_PAGE_MAX. */
export async function auditTrail(
  deps: Pick<Deps, "runtime">,
  businessId: string,
  after: number,
): Promise<AuditEntry[]> {
  const entries: AuditEntry[] = [];
  for await (const e of deps.runtime.events(businessActor, businessId, after + 1)) {
    const event = e.event as BusinessEvent;
    const { by, detail } = auditDetail(event);
    entries.push({ seq: e.seq, at: e.at, action: event.kind, by, detail });
    if (entries.length >= AUDIT_PAGE_MAX) break;
  }
  return entries;
}
