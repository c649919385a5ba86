/**
 * Debit and credit notes (courier 2.6 rule 5, 4.2 `correct`): a note points at the original entry.
 * It is reserved on the entry's charged entry (actors/courier/charged_entry/), which holds the
 * entry's net with every note booked or being booked on it as its account told it, then posted by
 * the account under the note's key, and confirmed by that posting (its outbox item); a refusal
 * releases it. A request that dies between the steps is completed by its retry under the same
 * key, or resolved by the entry's timer. Claims book their credit note here too (4.6).
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
import {
  type ChargedEntry,
  chargedEntryActor,
  chargedEntryId,
  countKey,
  type HeldEntry,
  type Reserved,
} from "../../../../actors/courier/charged_entry/mod.ts";
import { otherAdjustments } from "../../queries/note_targets.ts";
import { foundOrNull, refuse, Refused } from "../../../runtime/actor.ts";
import type { AskOptions, AskResult } from "../../../runtime/runtime.ts";
import type { Deps } from "../../../environment.ts";
import { type Answered, assertSameFacts, type BillingCaller, minorOf } from "./account.ts";
import type { EntryKind } from "../../rules/ledger.ts";
import { namedEvidence } from "../evidence.ts";

/** What a note sent without a reference is kept under, before its Idempotency-Key. */
export const NOTE_KEY_PREFIX = "key:";
/** Tries of one note: another follows a reservation that lapsed before its posting. */
const NOTE_TRIES_MAX = 2;

/** The entry a note points at: its reference, and its kind when several kinds hold it. */
export interface NoteTarget {
  readonly reference: string;
  readonly kind?: EntryKind | undefined;
}

export type NoteFields = Omit<
  Extract<LedgerCommand, { kind: "correct" }>,
  "kind" | "original" | "seen_seq" | "reservation"
>;

type NoteDeps = Pick<Deps, "runtime" | "db" | "settle" | "requestId">;

/**
 * Books a debit or credit note on `target` (spec: courier 2.6 rule 5): reserved on its charged
 * entry, posted by the account under `options`' key (a fresh one when none is given), confirmed
 * by the posting. Answers the account's result, or the entry's refusal; the entry missing or
 * ambiguous is thrown (Refused).
 */
export async function bookNote(
  deps: NoteDeps,
  courier: string,
  client: string,
  target: NoteTarget,
  note: (original: OriginalEntry) => NoteFields,
  options: AskOptions,
): Promise<AskResult<CourierClientReply>> {
  // Without a key of its own, a key for this call: the reservation and the posting share it.
  const asked = options.idempotencyKey === undefined
    ? { ...options, idempotencyKey: `entry:note:~${crypto.randomUUID()}` }
    : options;
  for (let attempt = 1;; attempt++) {
    // spec: courier 2.6 rule 5: the note points at an entry that exists once its posting has
    // answered: its charged entry has been told it (and every note on it) by then.
    await deps.settle();
    const original = await originalEntry(deps, courier, client, target);
    const fields = note(original);
    const reserved = await reserve(deps, { courier, client, original, fields }, asked);
    if (!reserved.ok) return await keptUnder(deps, client, asked) ?? reserved;
    const r = await deps.runtime.ask(courierClientActor, courier, client, {
      kind: "correct",
      original: reserved.reply.original,
      seen_seq: 0,
      reservation: reserved.reply.reservation,
      ...fields,
    }, { ...asked, requestId: deps.requestId });
    await settleReservation(deps, { courier, client, original }, reserved.reply, r);
    if (r.ok || r.code !== "ledger_catching_up" || attempt >= NOTE_TRIES_MAX) return r;
  }
}

/**
 * The posting kept under the note's key: a note sent again after a lost answer is answered as
 * booked, even when the entry it took to zero would refuse it now (courier 2.6 rule 2: once).
 */
async function keptUnder(
  deps: NoteDeps,
  client: string,
  asked: AskOptions,
): Promise<AskResult<CourierClientReply> | null> {
  const kept = await deps.runtime.replyUnder(courierClientActor, client, asked.idempotencyKey!);
  return kept === null ? null : { ok: true, reply: kept.reply, replayed: true };
}

/** The note reserved on the entry, judged against its net and its shipment's adjustments. */
async function reserve(
  deps: NoteDeps,
  o: { courier: string; client: string; original: OriginalEntry; fields: NoteFields },
  asked: AskOptions,
): Promise<AskResult<Reserved>> {
  const { original, fields } = o;
  const other = original.shipment === null
    ? 0
    : await otherAdjustments(deps.db, o.courier, o.client, {
      reference: original.reference,
      kind: original.kind,
      shipment: original.shipment,
    });
  const r = await deps.runtime.ask(
    chargedEntryActor,
    o.courier,
    chargedEntryId(o.client, original.reference),
    {
      kind: "reserve",
      key: asked.idempotencyKey!,
      entry_kind: original.kind,
      currency: original.currency,
      amount_minor: fields.amount_minor,
      reason: fields.reason,
      compensation: fields.compensation,
      other_adjustments: other,
    },
    { requestId: deps.requestId },
  );
  return r.ok ? { ...r, reply: r.reply as Reserved } : r;
}

/**
 * After the account answered: a note it posted now is confirmed by its own outbox item; one it
 * posted before (a replay) is counted now, once, and a refusal lets the reservation go, as does a
 * posting that put nothing on the entry (a claim's compensation above a net already at zero).
 */
async function settleReservation(
  deps: NoteDeps,
  o: { courier: string; client: string; original: OriginalEntry },
  reserved: Reserved,
  r: AskResult<CourierClientReply>,
): Promise<void> {
  const id = chargedEntryId(o.client, o.original.reference);
  const entry = r.ok ? asPosting(r.reply).entry : null;
  const onEntry = entry !== null && entry.corrects === o.original.reference;
  if (onEntry && r.ok && !r.replayed) return;
  if (onEntry) {
    await deps.runtime.ask(chargedEntryActor, o.courier, id, {
      kind: "count_note",
      client: o.client,
      reference: o.original.reference,
      corrects_kind: entry.corrects_kind ?? null,
      seq: entry.seq,
      amount_minor: entry.amount_minor,
      key: reserved.reservation.key,
    }, { idempotencyKey: countKey(entry.seq), permanent: true });
  }
  await deps.runtime.ask(chargedEntryActor, o.courier, id, {
    kind: "release",
    entry_kind: o.original.kind,
    key: reserved.reservation.key,
    at: reserved.reservation.at,
  });
}

/**
 * The original of a correction from its charged entry: not found when the client has no such
 * entry, a conflict when entries of several kinds hold the reference and no kind says which.
 */
export async function originalEntry(
  deps: Pick<Deps, "runtime">,
  courier: string,
  client: string,
  target: NoteTarget,
): Promise<OriginalEntry> {
  const got = await deps.runtime.read(
    chargedEntryActor,
    courier,
    chargedEntryId(client, target.reference),
    { kind: "get" },
  );
  // A refused read (a full mailbox) is thrown: an entry that exists is never answered 404.
  const held = foundOrNull(got) as ChargedEntry | null;
  const rows = (held?.entries ?? []).filter((e) =>
    target.kind === undefined || e.kind === target.kind
  );
  const what = target.kind === undefined ? "" : `${target.kind} `;
  if (held === null || rows.length === 0) {
    refuse("not_found", `entry_reference: ${what}ledger entry not found: ${target.reference}`);
  }
  // A payment quoting a waybill is no note's target: the shipment's entry is.
  const correctable = rows.filter((r) => !NOT_CORRECTABLE.includes(r.kind));
  const candidates = correctable.length > 0 ? correctable : rows;
  if (candidates.length > 1) {
    refuse(
      "reference_conflict",
      `entries of several kinds hold reference ${target.reference} ` +
        `(${candidates.map((r) => r.kind).join(", ")}): name one with entry_kind`,
    );
  }
  return originalOf(held, candidates[0]!);
}

/** A held entry as a note's original: its net with the notes booked and being booked on it. */
function originalOf(held: ChargedEntry, e: HeldEntry): OriginalEntry {
  const reserved = e.reservations.reduce((sum, r) => sum + r.note_minor, 0);
  return {
    reference: held.reference,
    kind: e.kind,
    amount_minor: e.amount_minor,
    currency: e.currency,
    status: e.status,
    recoverable: e.recoverable,
    shipment: e.shipment,
    net_minor: e.amount_minor + e.notes_minor + reserved,
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
  // spec: courier 2.6 evidence_path: a text naming a file names one the courier holds.
  if (input.evidence !== undefined) {
    await namedEvidence(deps.runtime, caller.courier, input.evidence, "evidence");
  }
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
