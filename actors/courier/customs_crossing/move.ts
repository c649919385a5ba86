/**
 * A move customs made (courier 2.10, 7): a hold, refusal or request for documents with its
 * reason, a clearance with its customs reference, a release with evidence, duties with amount,
 * currency, payer and evidence. A move repeating one recorded is a replay; what may follow a
 * status is transitions.ts'. A clearance's fee and client-paid duties are due from this commit.
 */
import {
  accept,
  reject,
  type Rejection,
  type TimerOp,
  unreachable,
} from "../../../src/runtime/actor.ts";
import { chargeRetry } from "../../../src/courier/rules/charges_due.ts";
import { isCurrencyCode } from "../../../src/domain/iso_codes.ts";
import { toMinor } from "../../../src/domain/money.ts";
import { checked } from "./accepted.ts";
import { deliveryGate } from "./delivery.ts";
import { chargesDueOf, clearanceSourceEvent, dutySourceEvent } from "./charges.ts";
import {
  CROSSING_DUTIES_MAX,
  CROSSING_MOVES_MAX,
  CUSTOMS_NAME_CHARS_MAX,
  CUSTOMS_TEXT_CHARS_MAX,
  text,
} from "./limits.ts";
import { allowedAfter, replayOf, sameFacts, TARGET } from "./transitions.ts";
import type { Crossing, CrossingEvent, CustomsMove, Decided, Duty, MoveInput } from "./types.ts";
import { crossingOf } from "./views.ts";

/** The field each action cannot go without (courier 2.10, 7), in the order they are checked. */
function missingField(m: MoveInput): Rejection | null {
  switch (m.action) {
    case "hold":
    case "refuse":
    case "request_documents":
      return text(m.reason, CUSTOMS_TEXT_CHARS_MAX) === null
        ? reject("reason_required", `${m.action} needs a reason`)
        : null;
    case "clear":
      return text(m.customs_reference, CUSTOMS_NAME_CHARS_MAX) === null
        ? reject("customs_reference_required", "a clearance needs the customs reference")
        : null;
    case "release":
      return text(m.evidence, CUSTOMS_TEXT_CHARS_MAX) === null
        ? reject("evidence_required", "a release needs evidence")
        : null;
    case "duties": {
      const missing = [
        ["amount", m.amount === null || m.amount === undefined || String(m.amount).trim() === ""],
        ["currency", text(m.currency, CUSTOMS_NAME_CHARS_MAX) === null],
        ["payer", text(m.payer, CUSTOMS_NAME_CHARS_MAX) === null],
        ["evidence", text(m.evidence, CUSTOMS_TEXT_CHARS_MAX) === null],
      ].filter(([, absent]) => absent).map(([name]) => name);
      return missing.length > 0
        ? reject(
          "duties_fields_required",
          `duties need amount, currency, payer and evidence: missing ${missing.join(", ")}`,
          { missing },
        )
        : null;
    }
    default:
      return unreachable(m.action);
  }
}

/** Duties' amount in minor units and their currency; for other moves, none. */
interface Amount {
  readonly amount_minor: number | null;
  readonly currency: string | null;
}

export function move(state: Crossing, m: MoveInput, now: number): Decided {
  const missing = missingField(m);
  if (missing) return missing;
  const amount = amountOf(m);
  if ("ok" in amount) return amount;
  const candidate = candidateOf(state, m, amount, now);
  const replay = replayOf(state, candidate);
  if (replay) {
    return accept([], (next) => ({ kind: "moved", crossing: next!, move: replay, replayed: true }));
  }
  const allowed = allowedAfter(state);
  if (allowed && !allowed.has(m.action)) {
    const rest = allowed.size === 0 ? "nothing more" : `only ${[...allowed].join(" or ")}`;
    return reject(
      "crossing_closed",
      `crossing ${state.id} is ${state.status}: ${rest} may follow, not ${m.action}`,
    );
  }
  if (state.history.length >= CROSSING_MOVES_MAX) {
    return reject("customs_moves_limit", `a crossing keeps at most ${CROSSING_MOVES_MAX} moves`);
  }
  const duty = dutyOf(state, candidate);
  if (duty !== null && "ok" in duty) return duty;
  const gate = deliveryGate(state, m);
  if ("ok" in gate) return gate;
  const { events, timers } = moveEvents(state, candidate, duty, now);
  return checked(state, [...gate.voided, ...events], (next) => ({
    kind: "moved",
    crossing: next!,
    move: candidate,
    replayed: false,
  }), timers);
}

/** Duties' amount and currency as stated (a currency code, an amount above zero). */
function amountOf(m: MoveInput): Amount | Rejection {
  if (m.action !== "duties") return { amount_minor: null, currency: null };
  const currency = text(m.currency, CUSTOMS_NAME_CHARS_MAX)!.toUpperCase();
  if (!isCurrencyCode(currency)) {
    return reject("invalid_currency", `not a currency code: ${m.currency}`);
  }
  const parsed = toMinor(m.amount!, currency);
  if (!parsed.ok) return reject("invalid_amount", parsed.message);
  if (parsed.minor <= 0) {
    return reject("invalid_amount", `duties must be above zero: ${m.amount}`);
  }
  return { amount_minor: parsed.minor, currency };
}

/** The move as it would be recorded, numbered after the last one kept. */
function candidateOf(state: Crossing, m: MoveInput, amount: Amount, now: number): CustomsMove {
  return {
    // After the last one kept: a duty the account refused is taken back (withdrawDuty).
    n: (state.history.at(-1)?.n ?? 0) + 1,
    action: m.action,
    reason: text(m.reason, CUSTOMS_TEXT_CHARS_MAX),
    customs_reference: m.action === "clear"
      ? text(m.customs_reference, CUSTOMS_NAME_CHARS_MAX)
      : null,
    evidence: text(m.evidence, CUSTOMS_TEXT_CHARS_MAX),
    amount_minor: amount.amount_minor,
    currency: amount.currency,
    payer: m.action === "duties" ? text(m.payer, CUSTOMS_NAME_CHARS_MAX)!.toLowerCase() : null,
    by: m.by,
    at: now,
  };
}

/** The duty a duties move records (within the crossing's bound); none for other moves. */
function dutyOf(state: Crossing, candidate: CustomsMove): Duty | Rejection | null {
  if (candidate.action !== "duties") return null;
  if (state.duties.length >= CROSSING_DUTIES_MAX) {
    return reject(
      "customs_moves_limit",
      `a crossing keeps at most ${CROSSING_DUTIES_MAX} duties`,
    );
  }
  return {
    n: (state.duties.at(-1)?.n ?? 0) + 1,
    move: candidate.n,
    amount_minor: candidate.amount_minor!,
    currency: candidate.currency!,
    payer: candidate.payer!,
    evidence: candidate.evidence!,
    by: candidate.by,
    at: candidate.at,
  };
}

/** The move recorded, and the charge it makes due with the retry it arms. */
function moveEvents(state: Crossing, candidate: CustomsMove, duty: Duty | null, now: number) {
  const status = TARGET[candidate.action] ?? state.status;
  const events: CrossingEvent[] = [{ kind: "moved", move: candidate, status, duty }];
  const timers: TimerOp[] = [];
  // spec: courier 2.6 rules 2, 3: the clearance's fee, and duties the client pays, are due from
  // this commit on, so a request that dies before the ledger books them loses neither.
  const source = candidate.action === "clear"
    ? clearanceSourceEvent(state.id)
    : duty?.payer === "client"
    ? dutySourceEvent(state.id, duty.n)
    : null;
  if (source !== null) {
    events.push({ kind: "charge_due", charge: { source_event: source, move: candidate.n } });
    // The first charge due arms the retry; one already due has armed it.
    if (chargesDueOf(state).length === 0) timers.push(chargeRetry(now));
  }
  return { events, timers };
}

/**
 * Product rule (a refusal changes nothing), courier 2.6: duties the client's account refused to
 * book (too many conversions awaiting a rate, an amount past what is stated exactly) are taken
 * back, so that the crossing never claims duties the client was not charged; sent again once the
 * account takes them, they are recorded and booked anew. Only the very move recorded is taken
 * back (its number, time and facts); one taken back already, or never recorded, changes nothing.
 */
export function withdrawDuty(state: Crossing, m: CustomsMove, now: number): Decided {
  const recorded = state.history.find((h) => h.n === m.n);
  if (
    !recorded || recorded.action !== "duties" || recorded.at !== m.at || recorded.by !== m.by ||
    !sameFacts(recorded, m)
  ) {
    return accept([], (next) => crossingOf(next!));
  }
  return accept([{ kind: "duty_withdrawn", move: m.n, at: now }], (next) => crossingOf(next!));
}
