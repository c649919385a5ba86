/** Health and the next obligation (courier 3.2): what operations sees of a shipment. */
import type { Headline, Health, OpenMilestone } from "./vocabulary.ts";
import { FINAL_HEADLINES } from "./steps.ts";

/** What health needs to know of a shipment. */
export interface HealthInput {
  readonly status: Headline;
  readonly exception: { readonly reason: string } | null;
  readonly milestones: readonly OpenMilestone[];
}

export interface HealthVerdict {
  readonly health: Health;
  readonly reason: string;
}

/** spec: courier 3.2: the first that applies, in order, with the reason shown. */
export function healthOf(s: HealthInput, now: number): HealthVerdict {
  if (s.status === "delivered") return { health: "delivered", reason: "delivered" };
  if (FINAL_HEADLINES.has(s.status)) return { health: "closed", reason: s.status };
  if (s.exception) return { health: "exception", reason: `exception: ${s.exception.reason}` };
  if (s.status === "lost_or_damaged") return { health: "exception", reason: "lost or damaged" };
  const late = s.milestones
    .filter((m) => m.owner === "courier" && m.due_at <= now && m.supplied_at === null)
    .sort((a, b) => a.due_at - b.due_at)[0];
  if (late) {
    return { health: "late", reason: `${late.name} overdue since ${iso(late.due_at)}` };
  }
  const papers = s.milestones.find((m) => m.name === "customs_documents" && m.supplied_at === null);
  if (papers) return { health: "waiting_courier", reason: "customs papers to supply" };
  // Held by customs before a border stop presented it (no customs_clearance open yet): waiting
  // on customs all the same.
  const atCustoms = s.status === "customs_hold" ||
    s.milestones.some((m) => m.name === "customs_clearance" || m.name === "customs_documents");
  if (atCustoms) {
    return { health: "waiting_customs", reason: "waiting on customs" };
  }
  if (s.milestones.some((m) => m.owner === "recipient")) {
    return { health: "waiting_customer", reason: "waiting on the recipient to rebook delivery" };
  }
  const risky = s.milestones
    .filter((m) => m.at_risk_at <= now)
    .sort((a, b) => a.due_at - b.due_at)[0];
  if (risky) {
    return { health: "at_risk", reason: `${risky.name} due ${iso(risky.due_at)}` };
  }
  // The way back is the courier's own: on schedule reads as the return under way.
  const reason = s.status === "returning" ? "returning to the sender" : "on schedule";
  return { health: "on_schedule", reason };
}

/**
 * The next obligation: the open milestone due first (the promise only when nothing else is), save
 * one that waits on another, whatever their deadlines. spec: courier 3.2: while customs holds for
 * papers, clearance waits on the courier's customs_documents; papers supplied, the documents wait
 * on customs' clearance.
 */
export function nextObligation(milestones: readonly OpenMilestone[]): OpenMilestone | null {
  const papersOwed = milestones.some((m) =>
    m.name === "customs_documents" && m.supplied_at === null
  );
  const clearanceOpen = milestones.some((m) => m.name === "customs_clearance");
  const waits = (m: OpenMilestone) =>
    (m.name === "customs_clearance" && papersOwed) ||
    (m.name === "customs_documents" && !papersOwed && clearanceOpen);
  const rank = (m: OpenMilestone) => (waits(m) ? 1 : 0);
  const open = [...milestones].sort((a, b) => rank(a) - rank(b) || a.due_at - b.due_at);
  return open.find((m) => m.name !== "promise") ?? open[0] ?? null;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
