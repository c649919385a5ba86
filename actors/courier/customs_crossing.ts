/**
 * One customs crossing of one shipment (courier 2.10, 3.4, 4.5, 7): tenant = the courier's
 * business id, id = the crossing id (`xing_...`, deterministic per shipment and border stop, see
 * src/courier/customs.ts). It keeps what customs decided and why: the append-only documents
 * supplied, every move with its reason, customs reference or evidence, the duties paid, and when
 * the vehicle left and the shipment exited and entered.
 *
 * Status values (the spec leaves them open): `presented` when opened (or once papers asked for
 * are supplied), `held`, `documents_requested`, `cleared`, `released`, `refused`. Rules: holds,
 * refusals and requests for documents need a reason; a clearance needs the customs reference; a
 * release needs evidence; duties need amount, currency, payer and evidence. Nothing moves a
 * refused crossing; a cleared one takes only its release and duties; a released one only its
 * clearance and duties; one both cleared and released only duties. Repeating a move recorded,
 * with the same facts, is a replay, whatever followed it: it changes nothing and answers the move
 * recorded, so whatever follows a move (the shipment's scan, the charge) is keyed by the move's
 * number and happens once. A hold or a request for documents answered again after the crossing
 * moved on completes nothing on the shipment (`standsAt`): it is past.
 *
 * A clearance's customs-administration fee, and duties the client pays, are due from the move's
 * own commit until the ledger confirms them booked (`charges_due`, src/courier/customs_charges.ts),
 * and due again at the crossing's `charge` timer, so a request that dies between the move and its
 * charge loses nothing, whether or not the move is ever sent again. Duties are the same duties
 * when their amount, currency, payer and evidence are (their optional reason aside).
 */
import {
  accept,
  type ActorDefinition,
  type Ctx,
  type Decision,
  reject,
  type Rejection,
  type TimerFired,
  type TimerOp,
  unreachable,
} from "../../src/runtime/actor.ts";
import {
  CHARGE_TIMER,
  chargeRetry,
  confirmation,
  dueAgain,
  type DueCharge,
  withDue,
  withoutConfirmed,
} from "../../src/courier/rules/charges_due.ts";
import { isCurrencyCode } from "../../src/domain/iso_codes.ts";
import { toMinor } from "../../src/domain/money.ts";

export const CROSSING_STATUSES = [
  "presented",
  "held",
  "documents_requested",
  "cleared",
  "released",
  "refused",
] as const;
export type CrossingStatus = typeof CROSSING_STATUSES[number];

export const CUSTOMS_ACTIONS = [
  "hold",
  "refuse",
  "request_documents",
  "clear",
  "release",
  "duties",
] as const;
export type CustomsAction = typeof CUSTOMS_ACTIONS[number];

// ---- Limits (STYLE 5): the whole crossing stays far below STATE_BYTES_MAX (60 000).
/** Moves kept per crossing: a crossing sees a handful; past this something is wrong. */
export const CROSSING_MOVES_MAX = 24;
/** Documents supplied over the crossing's life (append-only). */
export const CROSSING_DOCUMENTS_MAX = 40;
/** Documents in one supply. */
export const SUPPLY_DOCUMENTS_MAX = 20;
/** Duties recorded on one crossing. */
export const CROSSING_DUTIES_MAX = 8;
/** Reasons, evidence and notes: a sentence or a file reference. */
export const CUSTOMS_TEXT_CHARS_MAX = 300;
/** Customs references, document names and references, border posts, principal names. */
export const CUSTOMS_NAME_CHARS_MAX = 120;
/** Serialized state refused past this, whatever the texts hold (multi-byte characters). */
const CROSSING_BYTES_MAX = 50_000;

export interface SuppliedDocument {
  readonly name: string;
  readonly reference: string | null;
  /** The supply it came with (1, 2, ...). */
  readonly supply: number;
  readonly by: string;
  readonly at: number;
}

export interface Supply {
  readonly n: number;
  readonly note: string | null;
  /** The status the supply found: from held or documents_requested it moves back to presented. */
  readonly from_status: CrossingStatus;
  readonly by: string;
  readonly at: number;
}

export interface CustomsMove {
  /** 1, 2, ...: what follows the move is keyed by it. */
  readonly n: number;
  readonly action: CustomsAction;
  readonly reason: string | null;
  readonly customs_reference: string | null;
  readonly evidence: string | null;
  /** Duties only: the amount in minor units of `currency`, and who pays it. */
  readonly amount_minor: number | null;
  readonly currency: string | null;
  readonly payer: string | null;
  readonly by: string;
  readonly at: number;
}

export interface Duty {
  /** 1, 2, ... on this crossing. */
  readonly n: number;
  /** The move that recorded it. */
  readonly move: number;
  readonly amount_minor: number;
  readonly currency: string;
  readonly payer: string;
  readonly evidence: string;
  readonly by: string;
  readonly at: number;
}

/** What opens a crossing: the shipment and the border stop it is presented at. */
export interface CrossingOpening {
  readonly id: string;
  readonly waybill: string;
  readonly client_id: string;
  readonly country: string;
  readonly to_country: string;
  readonly border_post: string;
  readonly run_id: string | null;
  readonly stop_id: string | null;
}

export interface Crossing extends CrossingOpening {
  readonly status: CrossingStatus;
  readonly opened_at: number;
  readonly opened_by: string;
  readonly documents: readonly SuppliedDocument[];
  readonly supplies: readonly Supply[];
  readonly history: readonly CustomsMove[];
  readonly duties: readonly Duty[];
  /** The clearance's customs reference, once cleared. */
  readonly customs_reference: string | null;
  readonly cleared_at: number | null;
  readonly released_at: number | null;
  readonly refused_at: number | null;
  /** The vehicle went on without the shipment (it stays at the border). */
  readonly vehicle_left_at: number | null;
  /** Customs released it after the vehicle had left: someone must collect it (2.9). */
  readonly released_after_departure: boolean;
  /** Border stop (3.4): the exit from `country` is recorded before the entry to `to_country`. */
  readonly exit_at: number | null;
  readonly entry_at: number | null;
  readonly updated_at: number;
  /** Charges its moves caused that the ledger has not confirmed; absent on older crossings. */
  readonly charges_due?: readonly CrossingChargeDue[];
}

/**
 * A later charge a move caused (courier 2.6 rule 3: customs administration per crossing
 * cleared), due on the client's account until the ledger has booked it.
 */
export interface CrossingChargeDue extends DueCharge {
  /** The move that caused it. */
  readonly move: number;
}

export type CrossingState = Crossing | null;

export interface MoveInput {
  readonly action: CustomsAction;
  readonly reason?: string | null;
  readonly customs_reference?: string | null;
  readonly evidence?: string | null;
  /** Duties: a decimal amount (`"125.50"`) in `currency`. */
  readonly amount?: string | number | null;
  readonly currency?: string | null;
  readonly payer?: string | null;
  readonly by: string;
}

export interface DocumentInput {
  readonly name: string;
  readonly reference?: string | null;
}

export type CrossingCommand =
  | { kind: "open"; crossing: CrossingOpening; by: string }
  | { kind: "supply"; documents: readonly DocumentInput[]; note?: string | null; by: string }
  | { kind: "move"; move: MoveInput }
  | { kind: "vehicle_left"; by: string }
  | { kind: "record_crossing"; side: "exit" | "entry"; by: string }
  | { kind: "present"; at_stop: StopPresentation }
  /** The ledger booked these charges (by source event): they are no longer due. */
  | { kind: "confirm_charges"; source_events: readonly string[] }
  /** The client's account refused the duties this move recorded: they are taken back. */
  | { kind: "withdraw_duty"; move: CustomsMove }
  | { kind: "get" };

/** The border stop a crossing opened at booking is presented at, with the post it names. */
export interface StopPresentation {
  readonly run_id: string;
  readonly stop_id: string;
  readonly border_post: string;
  /** The border the stop crosses (a shipment may transit a third country on its way). */
  readonly country: string;
  readonly to_country: string;
  readonly by: string;
}

export type CrossingEvent =
  | { kind: "crossing_opened"; crossing: Crossing }
  | { kind: "documents_supplied"; supply: Supply; documents: readonly SuppliedDocument[] }
  | { kind: "moved"; move: CustomsMove; status: CrossingStatus; duty: Duty | null }
  | { kind: "vehicle_left"; at: number; by: string }
  | { kind: "crossed"; side: "exit" | "entry"; at: number; by: string }
  | { kind: "presented_at_stop"; at_stop: StopPresentation; at: number }
  /** A later charge is due on the client's account: caused by a move, or still due later. */
  | { kind: "charge_due"; charge: CrossingChargeDue }
  | { kind: "charges_confirmed"; source_events: readonly string[]; at: number }
  | { kind: "duty_withdrawn"; move: number; at: number };

/** Every reply names the crossing; moves and supplies also say which one and whether it was new. */
export type CrossingReply =
  | { readonly kind: "crossing"; readonly crossing: Crossing; readonly created: boolean }
  | {
    readonly kind: "moved";
    readonly crossing: Crossing;
    readonly move: CustomsMove;
    readonly replayed: boolean;
  }
  | {
    readonly kind: "supplied";
    readonly crossing: Crossing;
    readonly supply: Supply;
    readonly replayed: boolean;
  };

type Decided = ReturnType<typeof accept<CrossingState, CrossingEvent, CrossingReply>>;

function text(v: string | null | undefined, max: number): string | null {
  const t = v?.trim();
  return t ? t.slice(0, max) : null;
}

function crossingOf(c: Crossing, created = false): CrossingReply {
  return { kind: "crossing", crossing: c, created };
}

function open(state: CrossingState, o: CrossingOpening, by: string, now: number) {
  if (state !== null) {
    if (state.waybill !== o.waybill) {
      return reject("already_exists", `crossing ${o.id} belongs to another shipment`);
    }
    return accept<CrossingState, CrossingEvent, CrossingReply>([], () => crossingOf(state));
  }
  const fields = [o.waybill, o.client_id, o.country, o.to_country, o.border_post];
  if (fields.some((f) => !f?.trim() || f.length > CUSTOMS_NAME_CHARS_MAX)) {
    return reject(
      "validation_failed",
      "a crossing needs a waybill, client, country, to_country and border post",
    );
  }
  const crossing: Crossing = {
    ...o,
    status: "presented",
    opened_at: now,
    opened_by: by,
    documents: [],
    supplies: [],
    history: [],
    duties: [],
    customs_reference: null,
    cleared_at: null,
    released_at: null,
    refused_at: null,
    vehicle_left_at: null,
    released_after_departure: false,
    exit_at: null,
    entry_at: null,
    updated_at: now,
  };
  return accept<CrossingState, CrossingEvent, CrossingReply>(
    [{ kind: "crossing_opened", crossing }],
    (next) => crossingOf(next!, true),
  );
}

const AWAITING_PAPERS: ReadonlySet<CrossingStatus> = new Set(["held", "documents_requested"]);

function supply(
  state: Crossing,
  c: Extract<CrossingCommand, { kind: "supply" }>,
  now: number,
): Decided | Rejection {
  if (state.status === "refused" || state.status === "cleared") {
    return reject("crossing_closed", `crossing ${state.id} is ${state.status}: no more documents`);
  }
  const docs = c.documents.map((d) => ({
    name: text(d.name, CUSTOMS_NAME_CHARS_MAX),
    reference: text(d.reference, CUSTOMS_NAME_CHARS_MAX),
  }));
  if (docs.length === 0 || docs.some((d) => d.name === null)) {
    return reject("documents_required", "a supply names at least one document");
  }
  if (docs.length > SUPPLY_DOCUMENTS_MAX) {
    return reject(
      "too_many_documents",
      `at most ${SUPPLY_DOCUMENTS_MAX} documents in one supply: ${docs.length}`,
    );
  }
  const resumes = AWAITING_PAPERS.has(state.status);
  const known = new Set(state.documents.map((d) => `${d.name}\n${d.reference ?? ""}`));
  const last = state.supplies.at(-1);
  if (!resumes && last && docs.every((d) => known.has(`${d.name}\n${d.reference ?? ""}`))) {
    // The same papers again, changing nothing: a retry of the supply already recorded.
    return accept([], (next) => ({
      kind: "supplied",
      crossing: next!,
      supply: last,
      replayed: true,
    }));
  }
  if (state.documents.length + docs.length > CROSSING_DOCUMENTS_MAX) {
    return reject(
      "too_many_documents",
      `a crossing keeps at most ${CROSSING_DOCUMENTS_MAX} documents: ${state.documents.length}`,
    );
  }
  const n = state.supplies.length + 1;
  const record: Supply = {
    n,
    note: text(c.note, CUSTOMS_TEXT_CHARS_MAX),
    from_status: state.status,
    by: c.by,
    at: now,
  };
  const documents = docs.map((d) => ({
    name: d.name!,
    reference: d.reference,
    supply: n,
    by: c.by,
    at: now,
  }));
  return checked(state, [{ kind: "documents_supplied", supply: record, documents }], (next) => ({
    kind: "supplied",
    crossing: next!,
    supply: record,
    replayed: false,
  }));
}

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

const TARGET: Readonly<Record<CustomsAction, CrossingStatus | null>> = {
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

function allowedAfter(state: Crossing): ReadonlySet<CustomsAction> | undefined {
  if (state.cleared_at !== null && state.released_at !== null) return DUTIES_ONLY;
  return ALLOWED_AFTER[state.status];
}

function sameFacts(a: CustomsMove, b: CustomsMove): boolean {
  return a.action === b.action && a.reason === b.reason &&
    a.customs_reference === b.customs_reference && a.evidence === b.evidence &&
    a.amount_minor === b.amount_minor && a.currency === b.currency && a.payer === b.payer;
}

function move(state: Crossing, m: MoveInput, now: number): Decided | Rejection {
  const missing = missingField(m);
  if (missing) return missing;
  let amountMinor: number | null = null;
  let currency: string | null = null;
  if (m.action === "duties") {
    currency = text(m.currency, CUSTOMS_NAME_CHARS_MAX)!.toUpperCase();
    if (!isCurrencyCode(currency)) {
      return reject("invalid_currency", `not a currency code: ${m.currency}`);
    }
    const parsed = toMinor(m.amount!, currency);
    if (!parsed.ok) return reject("invalid_amount", parsed.message);
    if (parsed.minor <= 0) {
      return reject("invalid_amount", `duties must be above zero: ${m.amount}`);
    }
    amountMinor = parsed.minor;
  }
  const candidate: CustomsMove = {
    // After the last one kept: a duty the account refused is taken back (withdrawDuty).
    n: (state.history.at(-1)?.n ?? 0) + 1,
    action: m.action,
    reason: text(m.reason, CUSTOMS_TEXT_CHARS_MAX),
    customs_reference: m.action === "clear"
      ? text(m.customs_reference, CUSTOMS_NAME_CHARS_MAX)
      : null,
    evidence: text(m.evidence, CUSTOMS_TEXT_CHARS_MAX),
    amount_minor: amountMinor,
    currency,
    payer: m.action === "duties" ? text(m.payer, CUSTOMS_NAME_CHARS_MAX)!.toLowerCase() : null,
    by: m.by,
    at: now,
  };
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
  let duty: Duty | null = null;
  if (m.action === "duties") {
    if (state.duties.length >= CROSSING_DUTIES_MAX) {
      return reject(
        "customs_moves_limit",
        `a crossing keeps at most ${CROSSING_DUTIES_MAX} duties`,
      );
    }
    duty = {
      n: (state.duties.at(-1)?.n ?? 0) + 1,
      move: candidate.n,
      amount_minor: amountMinor!,
      currency: currency!,
      payer: candidate.payer!,
      evidence: candidate.evidence!,
      by: m.by,
      at: now,
    };
  }
  const status = TARGET[m.action] ?? state.status;
  const events: CrossingEvent[] = [{ kind: "moved", move: candidate, status, duty }];
  const timers: TimerOp[] = [];
  // spec: courier 2.6 rules 2, 3: the clearance's fee, and duties the client pays, are due from
  // this commit on, so a request that dies before the ledger books them loses neither.
  const source = m.action === "clear"
    ? clearanceSourceEvent(state.id)
    : duty?.payer === "client"
    ? dutySourceEvent(state.id, duty.n)
    : null;
  if (source !== null) {
    events.push({ kind: "charge_due", charge: { source_event: source, move: candidate.n } });
    // The first charge due arms the retry; one already due has armed it.
    if (chargesDueOf(state).length === 0) timers.push(chargeRetry(now));
  }
  return checked(state, events, (next) => ({
    kind: "moved",
    crossing: next!,
    move: candidate,
    replayed: false,
  }), timers);
}

/**
 * Product rule (a refusal changes nothing), courier 2.6: duties the client's account refused to
 * book (too many conversions awaiting a rate, an amount past what is stated exactly) are taken
 * back, so that the crossing never claims duties the client was not charged; sent again once the
 * account takes them, they are recorded and booked anew. Only the very move recorded is taken
 * back (its number, time and facts); one taken back already, or never recorded, changes nothing.
 */
function withdrawDuty(state: Crossing, m: CustomsMove, now: number): Decided {
  const recorded = state.history.find((h) => h.n === m.n);
  if (
    !recorded || recorded.action !== "duties" || recorded.at !== m.at || recorded.by !== m.by ||
    !sameFacts(recorded, m)
  ) {
    return accept([], (next) => crossingOf(next!));
  }
  return accept([{ kind: "duty_withdrawn", move: m.n, at: now }], (next) => crossingOf(next!));
}

/** The source event of the `n`th duties of a crossing (courier 6.1): `:<n>` from the second on. */
export function dutySourceEvent(crossingId: string, n: number): string {
  return `customs.duties:${crossingId}${n === 1 ? "" : `:${n}`}`;
}

/** The source event of a crossing's customs-administration charge (courier 6.1). */
export function clearanceSourceEvent(crossingId: string): string {
  return `customs.cleared:${crossingId}`;
}

function chargesDueOf(c: Crossing): readonly CrossingChargeDue[] {
  return c.charges_due ?? [];
}

/**
 * Books again what is still due (courier 2.6 rules 2, 3): a charge whose move's request died, or
 * whose booking failed, is due again one retry later, and then again, until the ledger confirms.
 */
function chargesDueAgain(state: Crossing, now: number): Decided {
  const { events, timers } = dueAgain(chargesDueOf(state), now);
  return accept(events, undefined, timers);
}

function confirmCharges(state: Crossing, sourceEvents: readonly string[], now: number): Decided {
  const { confirmed, timers } = confirmation(chargesDueOf(state), sourceEvents);
  if (confirmed.length === 0) return accept([], (next) => crossingOf(next!));
  return accept(
    [{ kind: "charges_confirmed", source_events: confirmed, at: now }],
    (next) => crossingOf(next!),
    timers,
  );
}

/**
 * The move already recorded that this one repeats: one with the same facts (a duty: the same
 * amount, currency, payer and evidence; a hold: the same reason), whatever followed it.
 */
function replayOf(state: Crossing, candidate: CustomsMove): CustomsMove | null {
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

function vehicleLeft(state: Crossing, by: string, now: number): Decided {
  if (state.vehicle_left_at !== null) return accept([], (next) => crossingOf(next!));
  return accept([{ kind: "vehicle_left", at: now, by }], (next) => crossingOf(next!));
}

function recordCrossing(
  state: Crossing,
  side: "exit" | "entry",
  by: string,
  now: number,
): Decided | Rejection {
  if (side === "exit") {
    if (state.exit_at !== null) return accept([], (next) => crossingOf(next!));
    return accept([{ kind: "crossed", side, at: now, by }], (next) => crossingOf(next!));
  }
  if (state.entry_at !== null) return accept([], (next) => crossingOf(next!));
  if (state.exit_at === null) {
    return reject(
      "entry_before_exit",
      `the exit from ${state.country} is recorded before the entry to ${state.to_country}`,
    );
  }
  if (state.status === "refused") {
    return reject("crossing_closed", `crossing ${state.id} was refused: no entry is recorded`);
  }
  return accept([{ kind: "crossed", side, at: now, by }], (next) => crossingOf(next!));
}

/**
 * A crossing opened at booking (no stop yet) takes the first border stop it is presented at and
 * that stop's post (CONTRACT: one crossing at booking), so presenting it opens no second crossing
 * and books no second clearance. The same stop again is a replay; another stop is refused
 * (`presented_elsewhere`): the shipment is crossing another border, a crossing of its own.
 */
function present(state: Crossing, p: StopPresentation, now: number): Decided | Rejection {
  if (state.stop_id === p.stop_id && state.run_id === p.run_id) {
    return accept([], () => crossingOf(state));
  }
  if (state.stop_id !== null) {
    return reject(
      "presented_elsewhere",
      `crossing ${state.id} was presented at stop ${state.stop_id} of run ${state.run_id}`,
    );
  }
  const at_stop = {
    ...p,
    border_post: text(p.border_post, CUSTOMS_NAME_CHARS_MAX) ?? state.border_post,
    country: text(p.country, CUSTOMS_NAME_CHARS_MAX) ?? state.country,
    to_country: text(p.to_country, CUSTOMS_NAME_CHARS_MAX) ?? state.to_country,
  };
  return accept([{ kind: "presented_at_stop", at_stop, at: now }], (next) => crossingOf(next!));
}

/** Accepts the events unless the crossing they leave would be too large to store. */
function checked(
  state: Crossing,
  events: CrossingEvent[],
  reply: (next: CrossingState) => CrossingReply,
  timers: readonly TimerOp[] = [],
): Decided | Rejection {
  const next = events.reduce<CrossingState>(evolve, state);
  const bytes = new TextEncoder().encode(JSON.stringify(next)).length;
  if (bytes > CROSSING_BYTES_MAX) {
    return reject("customs_moves_limit", `crossing ${state.id} is full: ${bytes} bytes`);
  }
  return accept(events, reply, timers);
}

function decide(
  state: CrossingState,
  command: CrossingCommand | TimerFired,
  ctx: Ctx,
): Decision<CrossingState, CrossingEvent, CrossingReply> {
  if (command.kind === "open") return open(state, command.crossing, command.by, ctx.now);
  if (command.kind === "timer") {
    if (state === null || command.name !== CHARGE_TIMER) {
      return accept<CrossingState, CrossingEvent, CrossingReply>([]);
    }
    return chargesDueAgain(state, ctx.now);
  }
  if (state === null) return reject("not_found", "customs crossing not found");
  switch (command.kind) {
    case "supply":
      return supply(state, command, ctx.now);
    case "move":
      return move(state, command.move, ctx.now);
    case "vehicle_left":
      return vehicleLeft(state, command.by, ctx.now);
    case "record_crossing":
      return recordCrossing(state, command.side, command.by, ctx.now);
    case "present":
      return present(state, command.at_stop, ctx.now);
    case "confirm_charges":
      return confirmCharges(state, command.source_events, ctx.now);
    case "withdraw_duty":
      return withdrawDuty(state, command.move, ctx.now);
    case "get":
      return accept<CrossingState, CrossingEvent, CrossingReply>([], () => crossingOf(state));
    default:
      return unreachable(command);
  }
}

function evolve(state: CrossingState, event: CrossingEvent): CrossingState {
  if (event.kind === "crossing_opened") return event.crossing;
  if (state === null) throw new Error(`customs crossing: ${event.kind} before opened`);
  switch (event.kind) {
    case "documents_supplied":
      return {
        ...state,
        status: AWAITING_PAPERS.has(state.status) ? "presented" : state.status,
        supplies: [...state.supplies, event.supply],
        documents: [...state.documents, ...event.documents],
        updated_at: event.supply.at,
      };
    case "moved": {
      const m = event.move;
      return {
        ...state,
        status: event.status,
        history: [...state.history, m],
        duties: event.duty ? [...state.duties, event.duty] : state.duties,
        customs_reference: m.action === "clear" ? m.customs_reference : state.customs_reference,
        cleared_at: m.action === "clear" ? m.at : state.cleared_at,
        released_at: m.action === "release" ? m.at : state.released_at,
        refused_at: m.action === "refuse" ? m.at : state.refused_at,
        released_after_departure: state.released_after_departure ||
          (m.action === "release" && state.vehicle_left_at !== null),
        updated_at: m.at,
      };
    }
    case "vehicle_left":
      return { ...state, vehicle_left_at: event.at, updated_at: event.at };
    case "crossed":
      return event.side === "exit"
        ? { ...state, exit_at: event.at, updated_at: event.at }
        : { ...state, entry_at: event.at, updated_at: event.at };
    case "presented_at_stop":
      return {
        ...state,
        run_id: event.at_stop.run_id,
        stop_id: event.at_stop.stop_id,
        border_post: event.at_stop.border_post,
        country: event.at_stop.country,
        to_country: event.at_stop.to_country,
        updated_at: event.at,
      };
    case "charge_due":
      return { ...state, charges_due: withDue(chargesDueOf(state), event.charge) };
    case "charges_confirmed":
      return {
        ...state,
        charges_due: withoutConfirmed(chargesDueOf(state), event.source_events),
      };
    case "duty_withdrawn":
      return {
        ...state,
        history: state.history.filter((h) => h.n !== event.move),
        duties: state.duties.filter((d) => d.move !== event.move),
        // Taken back, the duties are no longer due on the client's account.
        charges_due: chargesDueOf(state).filter((c) => c.move !== event.move),
        updated_at: event.at,
      };
    default:
      return unreachable(event);
  }
}

/** What the query side keeps (the snapshots table): enough to list a shipment's crossings. */
export function crossingSummary(c: Crossing) {
  const last = c.history.at(-1) ?? null;
  return {
    id: c.id,
    waybill: c.waybill,
    client_id: c.client_id,
    country: c.country,
    to_country: c.to_country,
    border_post: c.border_post,
    run_id: c.run_id,
    stop_id: c.stop_id,
    status: c.status,
    customs_reference: c.customs_reference,
    documents: c.documents.length,
    moves: c.history.length,
    last_move: last ? { action: last.action, by: last.by, at: last.at } : null,
    duties: c.duties.length,
    vehicle_left_at: c.vehicle_left_at,
    released_after_departure: c.released_after_departure,
    exit_at: c.exit_at,
    entry_at: c.entry_at,
    opened_at: c.opened_at,
    updated_at: c.updated_at,
  };
}

export const customsCrossingActor: ActorDefinition<
  CrossingState,
  CrossingCommand,
  CrossingEvent,
  CrossingReply
> = {
  type: "customs_crossing",
  noun: "crossing",
  version: 1,
  initial: null,
  decide,
  evolve,
  project: (s) => s === null ? null : crossingSummary(s),
};
