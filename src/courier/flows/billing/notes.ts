/**
 * Debit and credit notes (courier 2.6 rule 5, 4.2 `correct`): a note points at the original
 * entry and is judged by the client account. The entry and the notes already on it are read from
 * the query side, which lags the account; the account judges the note also against the notes it
 * made that the query side did not hold at the read (client_ledger.ts correct), and when it has
 * seen the query side further than the read, the entry is read again. Claims book their credit
 * note here too (4.6).
 */
import {
  asPosting,
  courierClientActor,
  type CourierClientReply,
} from "../../../../actors/courier/courier_client.ts";
import {
  entryAsk,
  type LedgerCommand,
  NOT_CORRECTABLE,
  type OriginalEntry,
} from "../../../../actors/courier/client_ledger.ts";
import type { EntryKind, EntryStatus } from "../../rules/ledger.ts";
import { noteTargets } from "../../queries/note_targets.ts";
import { isEntryParked } from "../../queries/ledger_watermarks.ts";
import { refuse, Refused } from "../../../runtime/actor.ts";
import type { AskOptions, AskResult } from "../../../runtime/runtime.ts";
import type { Deps } from "../../../environment.ts";
import { type Answered, assertSameFacts, type BillingCaller, minorOf } from "./account.ts";

/** What a note sent without a reference is kept under, before its Idempotency-Key. */
export const NOTE_KEY_PREFIX = "key:";
/** Reads of the corrected entry per note: another read follows notes confirmed meanwhile. */
const NOTE_READS_MAX = 3;

/** The entry a note points at: its reference, and its kind when several kinds hold it. */
export interface NoteTarget {
  readonly reference: string;
  readonly kind?: EntryKind | undefined;
}

/** The original of a correction as the query side holds it, and how far it had got then. */
export interface OriginalRead {
  readonly original: OriginalEntry;
  /** The account's watermark on the query side, read with the original and its notes. */
  readonly seen_seq: number;
}

export type NoteFields = Omit<
  Extract<LedgerCommand, { kind: "correct" }>,
  "kind" | "original" | "seen_seq"
>;

/**
 * Books a debit or credit note on `target` (spec: courier 2.6 rule 5). The account judges it
 * against the notes the query side does not hold yet; when it has seen the query side further
 * than this read (another note was judged meanwhile), the entry is read again. Answers the
 * account's result; the entry missing or ambiguous is thrown (Refused).
 */
export async function bookNote(
  deps: Pick<Deps, "runtime" | "db" | "settle" | "requestId">,
  courier: string,
  client: string,
  target: NoteTarget,
  note: (original: OriginalEntry) => NoteFields,
  options: AskOptions,
): Promise<AskResult<CourierClientReply>> {
  for (let read = 1;; read++) {
    // spec: courier 2.6 rule 5: the note points at an entry that exists once its posting has
    // answered; the query side it is read from holds every change committed before this call
    // (an entry still being written is not "not found"), and on a re-read what came since.
    await deps.settle();
    const { original, seen_seq } = await originalEntry(deps, courier, client, target);
    const r = await deps.runtime.ask(courierClientActor, courier, client, {
      kind: "correct",
      original,
      seen_seq,
      ...note(original),
    }, { ...options, requestId: deps.requestId });
    if (r.ok || r.code !== "ledger_catching_up" || read >= NOTE_READS_MAX) return r;
  }
}

/**
 * The original of a correction from the query side: not found when the client has no such entry
 * (awaiting the statement when it is parked there), a conflict when entries of several kinds hold
 * the reference and no kind says which.
 */
export async function originalEntry(
  deps: Pick<Deps, "db">,
  courier: string,
  client: string,
  target: NoteTarget,
): Promise<OriginalRead> {
  const rows = await noteTargets(deps.db, courier, client, target);
  const what = target.kind === undefined ? "" : `${target.kind} `;
  if (rows.length === 0) {
    // An entry parked on the query side (parked_changes.ts) exists: not now, not "not found".
    if (await isEntryParked(deps.db, courier, client, target.reference)) {
      refuse(
        "ledger_catching_up",
        `entry_reference: ${what}ledger entry ${target.reference} awaits the statement; retry ` +
          `once it has caught up`,
      );
    }
    refuse("not_found", `entry_reference: ${what}ledger entry not found: ${target.reference}`);
  }
  // A payment quoting a waybill is no note's target: the shipment's entry is.
  const correctable = rows.filter((r) => !NOT_CORRECTABLE.includes(r.kind as EntryKind));
  const candidates = correctable.length > 0 ? correctable : rows;
  if (candidates.length > 1) {
    refuse(
      "reference_conflict",
      `entries of several kinds hold reference ${target.reference} ` +
        `(${candidates.map((r) => r.kind).join(", ")}): name one with entry_kind`,
    );
  }
  const row = candidates[0]!;
  return {
    original: {
      reference: row.reference,
      kind: row.kind as EntryKind,
      amount_minor: row.amount_minor,
      currency: row.currency,
      status: row.status as EntryStatus,
      recoverable: row.recoverable,
      shipment: row.shipment,
      net_minor: row.amount_minor + row.notes_minor,
      shipment_adjustments: row.shipment_adjustments,
    },
    seen_seq: row.seen_seq,
  };
}

/** A note as sent (courier 4.2 `correct`): a signed decimal in the entry's currency. */
export interface CorrectInput {
  readonly entry_reference: string;
  /** Needed only when entries of several kinds hold `entry_reference`. */
  readonly entry_kind?: EntryKind | undefined;
  readonly amount: number | string;
  readonly reason: string;
  readonly reference?: string | undefined;
  readonly evidence?: string | undefined;
}

/**
 * Issues a debit (positive) or credit (negative) note on an entry of the client, in the entry's
 * currency. With a reference it books once per reference; without one, once per `key` (the
 * request's Idempotency-Key), so a retry after a lost answer never credits or debits twice; with
 * neither, every call issues a note. The same reference or key with other facts is refused.
 */
export async function correctEntry(
  deps: Pick<Deps, "runtime" | "db" | "settle">,
  caller: BillingCaller,
  client: string,
  input: CorrectInput,
  key: string | null,
): Promise<Answered> {
  const named = input.reference ?? (key === null ? null : `${NOTE_KEY_PREFIX}${key}`);
  const r = await bookNote(
    deps,
    caller.courier,
    client,
    { reference: input.entry_reference, kind: input.entry_kind },
    (original) => ({
      amount_minor: minorOf(input.amount, original.currency, "amount", "non-zero"),
      reason: input.reason,
      ...(input.reference === undefined ? {} : { reference: input.reference }),
      evidence_path: input.evidence ?? null,
      by: caller.by,
    }),
    named === null ? {} : entryAsk(`note:${named}`),
  );
  if (!r.ok) throw new Refused(r);
  if (named !== null) {
    const cur = asPosting(r.reply).entry.currency;
    assertSameFacts(
      r,
      input.reference ?? key!,
      {
        amount_minor: minorOf(input.amount, cur, "amount", "non-zero"),
        currency: cur,
        corrects: input.entry_reference,
      },
      input.reference !== undefined ? "reference" : "Idempotency-Key",
    );
  }
  return r;
}
