/**
 * Which move a crossing takes in which status, the status each move leaves, and which move an
 * incoming one repeats (courier 2.10, 2.6 rule 2): the crossing's rules, shared by its decisions
 * and by what follows a move (`standsAt`).
 */
import type { Crossing, CrossingStatus, CustomsAction, CustomsMove } from "./types.ts";

/** The status each move leaves the crossing in; null: it stays where it was. */
export const TARGET: Readonly<Record<CustomsAction, CrossingStatus | null>> = {
  hold: "held",
  refuse: "refused",
  request_documents: "documents_requested",
  clear: "cleared",
  release: "released",
  duties: null,
};

/** What may follow each status; null: anything. */
const ALLOWED_AFTER: Partial<Record<CrossingStatus, ReadonlySet<CustomsAction>>> = {
  refused: new Set(),
  // Cleared, customs may still release the goods (say, to be collected after the vehicle left);
  // released, it may still clear them. Once both happened, only duties follow.
  cleared: new Set(["release", "duties"]),
  released: new Set(["clear", "duties"]),
};
const DUTIES_ONLY: ReadonlySet<CustomsAction> = new Set(["duties"]);
/** The moves a crossing takes at most once (ALLOWED_AFTER never lets them follow themselves). */
const ONCE: ReadonlySet<CustomsAction> = new Set(["clear", "release", "refuse"]);

/**
 * The statuses papers supplied move back to presented: customs asked for them (courier 3.2:
 * customs_documents opens when customs holds for papers). A plain hold (an inspection) is
 * customs' own: papers are kept, and it stands until customs moves.
 */
export const AWAITING_PAPERS: ReadonlySet<CrossingStatus> = new Set(["documents_requested"]);

/** What AWAITING_PAPERS was when supplies did not record the status they left (evolve.ts). */
export const AWAITING_PAPERS_BEFORE: ReadonlySet<CrossingStatus> = new Set([
  "held",
  "documents_requested",
]);

export function allowedAfter(state: Crossing): ReadonlySet<CustomsAction> | undefined {
  if (state.cleared_at !== null && state.released_at !== null) return DUTIES_ONLY;
  return ALLOWED_AFTER[state.status];
}

export function sameFacts(a: CustomsMove, b: CustomsMove): boolean {
  return a.action === b.action && a.reason === b.reason &&
    a.customs_reference === b.customs_reference && a.evidence === b.evidence &&
    a.amount_minor === b.amount_minor && a.currency === b.currency && a.payer === b.payer;
}

/**
 * The move already recorded that this one repeats: one with the same facts (a duty: the same
 * amount, currency, payer and evidence; a hold: the same reason), whatever followed it.
 */
export function replayOf(state: Crossing, candidate: CustomsMove): CustomsMove | null {
  // spec: courier 2.6 rule 2: duties are the amount, currency, payer and evidence (the receipt);
  // the same duties retyped with other words for their optional reason are the ones recorded.
  if (candidate.action === "duties") {
    return state.history.find((h) =>
      h.action === "duties" && sameFacts(h, { ...candidate, reason: h.reason })
    ) ?? null;
  }
  const same = state.history.filter((h) => sameFacts(h, candidate));
  // spec: courier 2.6 rules 2, 3: a crossing is cleared, released or refused once, so that move
  // sent again is a replay whatever followed it (a release after the clearance): its retry
  // completes what a crash kept from following it (the scan, the fee, the alert).
  if (ONCE.has(candidate.action)) {
    const first = state.history.find((h) => h.action === candidate.action);
    return first && sameFacts(first, candidate) ? first : null;
  }
  // spec: courier 2.6 rule 2 (the same event sent twice counts once), product rule (a retry
  // changes nothing the first did): a hold or a request for documents sent again late, after
  // papers were supplied or the crossing was cleared or released, is the one recorded, answered
  // again; it holds nothing again. A new hold states a reason of its own.
  return same.at(-1) ?? null;
}

/**
 * Whether the crossing still stands where move `m` put it (the last hold while held, the last
 * request while documents are requested): only then does a hold or request answered again
 * complete what follows it on the shipment; one customs has moved on from is past.
 */
export function standsAt(c: Crossing, m: CustomsMove): boolean {
  const target = TARGET[m.action];
  if (target === null || ONCE.has(m.action)) return true;
  return c.status === target && c.history.findLast((h) => h.action === m.action)?.n === m.n;
}
