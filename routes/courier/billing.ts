/**
 * Courier 4.2, client billing: top-ups, payments, debit and credit notes, remitted COD, FX
 * resolution, invoices (billing:administer) and the billing view (billing:view-own). Every money
 * fact is a ledger entry (courier 2.6); the same reference or source event books once.
 *
 * Amounts in answers are decimals in their currency. An entry's amount is signed from the
 * client's side: positive adds to what it owes, negative (top-up, payment, credit note, remitted
 * COD) reduces it.
 */
import type { Context } from "hono";
import { sql } from "kysely";
import {
  asClient,
  asInvoices,
  asPosting,
  asResolved,
  type CourierClient,
  courierClientActor,
  type CourierClientCommand,
  type CourierClientReply,
} from "../../actors/courier/courier_client.ts";
import {
  type AccountBalances,
  accountBalances,
  entryAsk,
  type LedgerCommand,
  NOT_CORRECTABLE,
  type OriginalEntry,
  type OtherCurrencyBalances,
} from "../../actors/courier/client_ledger.ts";
import {
  ageing,
  AGEING_BUCKETS,
  balanceOf,
  daysPastDue,
  ENTRY_KINDS,
  ENTRY_STATUSES,
  type EntryKind,
  type EntryStatus,
  type Invoice,
  isOpen,
  isPeriod,
  type LedgerBook,
  type LedgerEntry,
  parseRate,
  periodOf,
  REFERENCE_CHARS_MAX,
  TEXT_CHARS_MAX,
} from "../../src/courier/rules/ledger.ts";
import { OUTBOUND_STATUSES } from "../../actors/platform/outbound_event/mod.ts";
import { CLAIM_CREDIT_PREFIX } from "../../actors/courier/claim/mod.ts";
import { decimal, formatMinor, numberText, toMinor } from "../../src/domain/money.ts";
import { exportStateOf } from "../../src/courier/rules/billing_csv.ts";
import { ADJUSTMENT_KINDS } from "../../src/courier/rules/billing_events.ts";
import { EXPORT_STATES, type ExportState } from "../../src/platform/rules/export_state.ts";
import { entryReportOfRow, reportColumns } from "../../src/courier/queries/billing_export.ts";
import { business, driver } from "../../src/platform/auth/auth.ts";
import { businessPrincipalOf, principalName } from "../../src/platform/auth/principal.ts";
import { courierPlatform } from "../../src/courier/auth.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { iso } from "../../src/domain/iso.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { ApiError, fromRejection, validationFailed } from "../../src/http/errors.ts";
import { define, z } from "../../src/http/route.ts";
import {
  CalendarDay,
  Currency,
  Money,
  orNull,
  PlainText,
  UtcInstant,
  Waybill,
} from "../../src/http/schemas.ts";
import { Settlement } from "./answers/schemas.ts";
import type { LedgerEntryRow } from "../../src/db/schema.ts";
import { heldWatermark, isEntryParked } from "../../src/courier/queries/ledger_watermarks.ts";
import type { AskOptions } from "../../src/runtime/runtime.ts";
import type { AskResult } from "../../src/runtime/plan.ts";
import { read } from "../../src/http/ask.ts";
import { assertDriverCarries } from "../../src/courier/flows/driver_access.ts";
import { shipmentIn } from "../../src/courier/flows/shipments.ts";
import { idempotencyHeader } from "../../src/http/idempotency.ts";
import {
  EVIDENCE_FILE_BYTES_MAX,
  readEvidence,
  storeEvidence,
} from "../../src/courier/flows/evidence.ts";
import { evidenceResponse } from "./answers/evidence.ts";
import { MULTIPART_OVERHEAD_BYTES_MAX } from "../../src/http/upload.ts";
import { creditUsed } from "../../src/courier/rules/settlement.ts";

const tag = "Client billing";
/** Statement rows per answer; a longer period says `truncated` (courier 4.2 statement). */
const STATEMENT_ENTRIES_MAX = 500;
/** Payments listed in the billing view, newest first. */
const PAYMENTS_LISTED_MAX = 50;

const ClientParam = z.object({ client: z.string().min(1).max(64) });
const Positive = z.union([z.number().positive(), z.string().regex(/^\d+(\.\d+)?$/)]);
const Signed = z.union([z.number(), z.string().regex(/^-?\d+(\.\d+)?$/)]);
// spec: courier 2.6: every text an entry keeps is carried by its billing events (2.7): no
// control character (PlainText), only a reason may run over lines.
const Reference = PlainText(REFERENCE_CHARS_MAX).min(1);
/** What a note sent without a reference is kept under, before its Idempotency-Key. */
const NOTE_KEY_PREFIX = "key:";
/** An entry's reason (courier 2.6): free text, over lines if need be. */
const Reason = PlainText(TEXT_CHARS_MAX, { lines: true }).min(1);
/** An entry's evidence path or an FX rate's source: one line. */
const Line = PlainText(TEXT_CHARS_MAX).min(1);
const Period = z.string().refine(isPeriod, "a period is YYYY-MM")
  .openapi({ pattern: "^[0-9]{4}-(0[1-9]|1[0-2])$", example: "2026-11" });
const EntryKindName = z.enum(ENTRY_KINDS);
/** Reads of the corrected entry per note: another read follows notes confirmed meanwhile. */
const NOTE_READS_MAX = 3;

const admin = [business({ scope: "billing:administer" }), courierPlatform];

/** A money fact that moves a balance can take it past what an answer states exactly. */
const TOO_LARGE = {
  amount_too_large: "a balance of the client's account would pass the largest amount stated " +
    "exactly; nothing was booked",
};
/** A reference books once (courier 2.6 rule 2). */
const BOOKED_OTHERWISE = {
  reference_conflict: "the reference was booked before with other figures",
};

/** A decimal amount to minor units of `currency`, or a 422 naming the field. */
function minorOf(
  amount: number | string,
  currency: string,
  path: string,
  sign: "positive" | "non-zero",
): number {
  const r = toMinor(amount, currency);
  if (!r.ok) throw validationFailed([{ path, message: r.message }]);
  if (sign === "positive" ? r.minor <= 0 : r.minor === 0) {
    throw validationFailed([{ path, message: `must be ${sign}` }]);
  }
  return r.minor;
}

/** Asks the client account; a refusal is its API error, another courier's client a 404. */
async function askAccount(
  c: Context<AppEnv>,
  client: string,
  command: CourierClientCommand,
  options: AskOptions = {},
) {
  const courier = businessPrincipalOf(c).business.id;
  const r = await c.get("env").runtime.ask(courierClientActor, courier, client, command, options);
  if (!r.ok) throw fromRejection(r);
  return r;
}

/**
 * A reference books once (spec: courier 2.6 rule 2): sent again with the same figures it answers
 * the first entry; with other figures it is refused, never answered as if they were booked.
 */
function assertSameFacts(
  r: { reply: CourierClientReply; replayed: boolean },
  reference: string,
  sent: { amount_minor: number; currency: string; corrects?: string },
  field = "reference",
): void {
  if (!r.replayed) return;
  const e = asPosting(r.reply).entry;
  if (
    e.amount_minor === sent.amount_minor && e.currency === sent.currency &&
    (sent.corrects === undefined || e.corrects === sent.corrects)
  ) return;
  const was = `${formatMinor(e.amount_minor, e.currency)} ${e.currency}` +
    (e.corrects === null ? "" : ` on ${e.corrects}`);
  throw new ApiError(
    "reference_conflict",
    `${field} already booked another ${e.kind} entry (${was}): ${reference}`,
  );
}

/**
 * A payment sent again under its reference with allocations is the same payment only if it
 * allocates as the first did: otherwise the accountant would read allocations that were never
 * made (a reference pays once, spec: courier 4.2). The rest of a payment goes to open invoices
 * oldest first, so the allocations made may name more than were sent: the very request sent
 * first is its replay too, not a conflict with itself.
 */
function assertSameAllocations(
  posting: ReturnType<typeof asPosting>,
  reference: string,
  sent: readonly { invoice_id: string; amount_minor: number }[],
): void {
  type Sent = readonly { invoice_id: string; amount_minor: number }[];
  const key = (list: Sent) =>
    list.map((a) => `${a.invoice_id}\u0000${a.amount_minor}`).sort().join("\u0001");
  if (key(posting.allocations) === key(sent)) return;
  const first = "requested" in posting ? posting.requested : undefined;
  if (first !== undefined) {
    if (key(first) === key(sent)) return;
  } else {
    // Kept before what it sent was recorded: what was sent first made at least what it named.
    const made = new Map(posting.allocations.map((a) => [a.invoice_id, a.amount_minor]));
    if (sent.every((a) => (made.get(a.invoice_id) ?? 0) >= a.amount_minor)) return;
  }
  const cur = posting.entry.currency;
  const was = posting.allocations.length === 0
    ? "none"
    : posting.allocations.map((a) => `${a.invoice_id} ${formatMinor(a.amount_minor, cur)}`)
      .join(", ");
  throw new ApiError(
    "reference_conflict",
    `reference already paid with other allocations (${was}): ${reference}`,
  );
}

/** The answer to a billing action that posted an entry: 201, or 200 when it was replayed. */
function postingAnswer(
  c: Context<AppEnv>,
  r: { reply: CourierClientReply; replayed: boolean },
): Response {
  const posting = asPosting(r.reply);
  return ok(c, {
    replayed: r.replayed,
    entry: entryView(posting.entry),
    balances: balancesAnswer(posting.balances),
  }, r.replayed ? 200 : 201);
}

export function billingRoutes(api: Api): void {
  define(api, {
    method: "post",
    path: "/business/courier/clients/{client}/billing/top-up",
    summary: "Credit a prepaid client's balance; the same reference credits once. " +
      "In the billing currency, or in another currency while the client owes in it (notes on entries from before a change of billing currency)",
    tag,
    security: "business",
    middleware: admin,
    params: ClientParam,
    body: z.object({ amount: Positive, currency: Currency, reference: Reference }),
    status: 201,
    replay: "The same reference with the same amount and currency",
    response: TopUpAnswer,
    refusals: {
      not_prepaid: "the client does not settle prepaid",
      currency_mismatch: "not the billing currency, nor a currency the client owes in",
      ...TOO_LARGE,
      ...BOOKED_OTHERWISE,
    },
  }, async (c, { params, body }) => {
    const amount = minorOf(body.amount, body.currency, "amount", "positive");
    const r = await askAccount(c, params.client, {
      kind: "top_up",
      amount_minor: amount,
      currency: body.currency,
      reference: body.reference,
      by: principalName(businessPrincipalOf(c)),
    }, entryAsk(`top_up:${body.reference}`));
    assertSameFacts(r, body.reference, { amount_minor: -amount, currency: body.currency });
    const posting = asPosting(r.reply);
    const b = posting.balances;
    // A top-up in another currency settles what is owed in it: its funds there are the balance,
    // and they pay for no booking (priced in the billing currency), so nothing is available.
    const cur = posting.entry.currency;
    const other = b.other_currencies?.find((o) => o.currency === cur);
    const billing = cur === b.currency;
    return ok(c, {
      reference: body.reference,
      replayed: r.replayed,
      balance: decimal(billing ? b.prepaid_minor : other?.prepaid_minor ?? 0, cur),
      available: decimal(billing ? b.available_minor ?? 0 : 0, cur),
      currency: cur,
      entry: entryView(posting.entry),
    }, r.replayed ? 200 : 201);
  });

  define(api, {
    method: "post",
    path: "/business/courier/clients/{client}/billing/payment",
    summary: "Record a payment of a credit client, allocated to invoices; a reference pays once. " +
      "In the billing currency, or in another currency while the client owes in it (notes on entries from before a change of billing currency)",
    tag,
    security: "business",
    middleware: admin,
    params: ClientParam,
    body: z.object({
      amount: Positive,
      currency: Currency,
      reference: Reference,
      allocations: z.array(z.object({ invoice_id: Reference, amount: Positive })).max(100)
        .optional(),
    }),
    status: 201,
    replay: "The same reference with the same amount, currency and allocations",
    response: PaymentAnswer,
    refusals: {
      not_credit: "the client settles prepaid: it is topped up",
      external_settlement: "the courier settles the client in its own accounting system",
      currency_mismatch: "not the billing currency, nor a currency the client owes in",
      invoice_not_open: "an allocation names no open invoice in the payment's currency",
      duplicate_allocation: "an invoice is allocated twice",
      allocation_exceeds_invoice: "an allocation is above the invoice's balance",
      allocations_exceed_payment: "the allocations add up to more than the payment",
      ...TOO_LARGE,
      reference_conflict: "the reference was paid before with other figures or allocations",
    },
  }, async (c, { params, body }) => {
    const amount = minorOf(body.amount, body.currency, "amount", "positive");
    const sent = (body.allocations ?? []).map((a, i) => ({
      invoice_id: a.invoice_id,
      amount_minor: minorOf(a.amount, body.currency, `allocations.${i}.amount`, "positive"),
    }));
    const r = await askAccount(c, params.client, {
      kind: "payment",
      amount_minor: amount,
      currency: body.currency,
      reference: body.reference,
      allocations: sent,
      by: principalName(businessPrincipalOf(c)),
    }, entryAsk(`payment:${body.reference}`));
    assertSameFacts(r, body.reference, { amount_minor: -amount, currency: body.currency });
    const posting = asPosting(r.reply);
    if (r.replayed && sent.length > 0) assertSameAllocations(posting, body.reference, sent);
    const cur = posting.entry.currency;
    const allocated = posting.allocations.reduce((n, a) => n + a.amount_minor, 0);
    return ok(c, {
      replayed: r.replayed,
      entry: entryView(posting.entry),
      allocations: posting.allocations.map((a) => ({
        invoice_id: a.invoice_id,
        amount: decimal(a.amount_minor, cur),
      })),
      unallocated: decimal(-posting.entry.amount_minor - allocated, cur),
      // The currency of the payment, its allocations and what is left unallocated.
      currency: cur,
      balances: balancesAnswer(posting.balances),
    }, r.replayed ? 200 : 201);
  });

  define(api, {
    method: "post",
    path: "/business/courier/clients/{client}/billing/correct",
    summary:
      "Issue a debit (positive) or credit (negative) note pointing at an entry; without a reference, once per Idempotency-Key. " +
      "The note is in the currency of the entry it corrects, also when the client has since moved to another billing currency: " +
      "it then counts in that currency's balances (`balances.other_currencies`), statement and invoice, never converted",
    tag,
    security: "business",
    middleware: admin,
    params: ClientParam,
    body: z.object({
      entry_reference: Reference,
      /** Needed only when entries of several kinds hold `entry_reference`. */
      entry_kind: EntryKindName.optional(),
      amount: Signed,
      reason: Reason,
      // A note issued under an Idempotency-Key is kept as `key:` and the key: a reference of the
      // same form would answer that note, or be answered by it, as if it were the same request.
      reference: Reference.refine((r) => !r.startsWith(NOTE_KEY_PREFIX), {
        message: `must not begin "${NOTE_KEY_PREFIX}": notes sent under an Idempotency-Key ` +
          "are kept under that name",
      })
        // spec: courier 2.6 rule 2: a reference books once. A claim's credit note is booked under
        // `CLM-<claim id>` when it is decided: a note taking that name first would answer it,
        // and the approved claim would pay nothing of its own.
        .refine((r) => !r.startsWith(CLAIM_CREDIT_PREFIX), {
          message: `must not begin "${CLAIM_CREDIT_PREFIX}": a claim's credit note is booked ` +
            "under that name",
        }).optional(),
      evidence: Line.optional(),
    }),
    status: 201,
    replay: "The same `reference`, or without one the same Idempotency-Key, with the same facts",
    idempotencyKey:
      "For a note without a `reference`: issued once per key, and the same key again " +
      "answers the first note (200); with other facts it answers 409. Without either, every call " +
      "issues a note",
    response: PostingAnswer,
    refusals: {
      validation_failed: "a bad Idempotency-Key header",
      not_found: "the client has no ledger entry by that entry_reference",
      reference_conflict: "entries of several kinds hold entry_reference (name one with " +
        "entry_kind); the reference or Idempotency-Key was booked before with other figures",
      not_correctable: "the entry is money received or a note: a note corrects the entry it " +
        "points at",
      fx_unresolved: "the entry awaits its FX rate: resolve it first",
      correction_exceeds_entry: "a credit note would take the entry below zero",
      ledger_catching_up: "notes on the entry await the statement; retry once it has caught up",
      adjustments_limit: "the entry's shipment has as many adjustments as a note may join: its " +
        "completion event lists every one",
      ...TOO_LARGE,
    },
  }, async (c, { params, body }) => {
    const courier = businessPrincipalOf(c).business.id;
    // A note without a reference of its own is issued once per Idempotency-Key: a retry after a
    // lost answer must not credit or debit the client twice.
    const key = body.reference === undefined ? idempotencyHeader(c) : null;
    const r = await bookNote(
      c,
      courier,
      params.client,
      { reference: body.entry_reference, kind: body.entry_kind },
      (original) => ({
        amount_minor: minorOf(body.amount, original.currency, "amount", "non-zero"),
        reason: body.reason,
        ...(body.reference === undefined ? {} : { reference: body.reference }),
        evidence_path: body.evidence ?? null,
        by: principalName(businessPrincipalOf(c)),
      }),
      body.reference !== undefined
        ? entryAsk(`note:${body.reference}`)
        : key !== null
        ? entryAsk(`note:${NOTE_KEY_PREFIX}${key}`)
        : {},
    );
    if (!r.ok) throw fromRejection(r);
    if (body.reference !== undefined || key !== null) {
      const cur = asPosting(r.reply).entry.currency;
      assertSameFacts(
        r,
        body.reference ?? key!,
        {
          amount_minor: minorOf(body.amount, cur, "amount", "non-zero"),
          currency: cur,
          corrects: body.entry_reference,
        },
        body.reference !== undefined ? "reference" : "Idempotency-Key",
      );
    }
    return postingAnswer(c, r);
  });

  define(api, {
    method: "post",
    path: "/business/courier/clients/{client}/billing/cod-remitted",
    summary: "Confirm that COD of a shipment was remitted; only then it reduces what is owed. " +
      "JSON `{waybill, evidence}`, or multipart/form-data with `waybill` and an `evidence_file` " +
      "upload (the remittance slip, kept content-addressed: the entry's evidence_path is " +
      "`file:sha256:<hex>`, read back from GET /business/courier/billing/evidence/{sha256})",
    tag,
    security: "business",
    middleware: admin,
    params: ClientParam,
    body: z.object({ waybill: Waybill, evidence: Line.optional() }),
    form: {
      files: ["evidence_file"],
      maxBytes: EVIDENCE_FILE_BYTES_MAX + MULTIPART_OVERHEAD_BYTES_MAX,
    },
    status: 201,
    replay: "The same waybill",
    response: PostingAnswer,
    refusals: {
      validation_failed: "neither an evidence_file nor an evidence text",
      cod_not_collected: "no COD of the waybill awaits remittance",
      evidence_file_too_large: "the evidence file is larger than an evidence file may be",
      ...TOO_LARGE,
    },
  }, async (c, { params, body, files }) => {
    const courier = businessPrincipalOf(c).business.id;
    const by = principalName(businessPrincipalOf(c));
    const file = files["evidence_file"];
    // spec: courier 4.2: cod-remitted takes the waybill and an evidence file.
    let evidence = body.evidence;
    if (file) {
      // A refused remittance stores no file: the account is asked first.
      const account = asClient(
        await read(c, courierClientActor, courier, params.client, {
          kind: "get",
        }),
      );
      if (!account.ledger.cod.some((x) => x.waybill === body.waybill)) {
        const replay = await askAccount(c, params.client, {
          kind: "cod_remitted",
          waybill: body.waybill,
          evidence_path: "",
          by,
        }, entryAsk(`cod.remitted:${body.waybill}`));
        return postingAnswer(c, replay);
      }
      const stored = await storeEvidence(c.get("env").runtime, courier, {
        name: file.name,
        content_type: file.type,
        bytes: new Uint8Array(await file.arrayBuffer()),
      }, by);
      if (!stored.ok) throw fromRejection(stored);
      evidence = `file:sha256:${stored.value.sha256}`;
    }
    if (evidence === undefined) {
      throw validationFailed([{
        path: "evidence",
        message: "remitted COD needs evidence: an evidence_file upload or an evidence text",
      }]);
    }
    const r = await askAccount(c, params.client, {
      kind: "cod_remitted",
      waybill: body.waybill,
      evidence_path: evidence,
      by,
    }, entryAsk(`cod.remitted:${body.waybill}`));
    return postingAnswer(c, r);
  });

  define(api, {
    method: "get",
    path: "/business/courier/billing/evidence/{sha256}",
    summary: "An evidence file kept for the courier's money (a COD remittance slip, a run " +
      "expense's receipt), by the hash its `file:sha256:<hex>` reference names",
    tag,
    security: "business",
    middleware: [business({ scope: "billing:view-own" }), courierPlatform],
    params: z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/, "64 lower-case hex digits") }),
    produces: "application/octet-stream",
  }, async (c, { params }) => {
    const courier = businessPrincipalOf(c).business.id;
    const found = await readEvidence(c.get("env").runtime, courier, params.sha256);
    if (found === null) {
      throw new ApiError("not_found", `evidence file not found: ${params.sha256}`);
    }
    return evidenceResponse({ ...found.file, sha256: params.sha256 }, found.bytes);
  });

  // spec: courier 2.6 rule 6: COD collected at delivery awaits remittance (it reduces what the
  // client owes only once remitted). Operations or the run's driver record it, once per waybill.
  for (const side of ["business", "driver"] as const) {
    define(api, {
      method: "post",
      path: side === "business"
        ? "/business/courier/shipments/{waybill}/cod-collected"
        : "/driver/shipments/{waybill}/cod-collected",
      summary: side === "business"
        ? "Record the cash on delivery collected for a shipment; it then awaits remittance"
        : "Record the cash on delivery collected for a shipment on one of the driver's runs",
      tag,
      security: side,
      middleware: side === "business"
        ? [business({ scope: "runs:operate" }), courierPlatform]
        : [driver, courierPlatform],
      params: z.object({ waybill: Waybill }),
      body: z.object({ amount: Positive, currency: Currency }),
      status: 201,
      replay: "The same waybill with the same amount and currency",
      response: CodCollectedAnswer,
      refusals: {
        ...(side === "driver" ? { not_found: "the shipment is on none of the driver's runs" } : {}),
        currency_mismatch: "not the client's billing currency",
        cod_awaiting_limit: "too much of the client's COD awaits remittance",
        reference_conflict: "the COD of the shipment was recorded before at another amount",
      },
    }, async (c, { params, body }) => {
      const p = businessPrincipalOf(c);
      if (side === "driver") await assertDriverCarries(c, params.waybill);
      const s = await shipmentIn(c.get("env").runtime, p.business.id, params.waybill);
      const amount = minorOf(body.amount, body.currency, "amount", "positive");
      // The same waybill again answers the first record (lost signal), never a second COD.
      const r = await askAccount(c, s.client_id, {
        kind: "cod_collected",
        waybill: s.waybill,
        amount_minor: amount,
        currency: body.currency,
        by: principalName(p),
      }, { idempotencyKey: `cod.collected:${s.waybill}`, permanent: true });
      // A replay answers the COD kept, and refuses other figures (spec: courier 2.6 rule 2).
      const kept = r.reply && "cod" in r.reply
        ? r.reply.cod
        : { amount_minor: amount, currency: body.currency };
      if (kept.amount_minor !== amount || kept.currency !== body.currency) {
        const was = `${formatMinor(kept.amount_minor, kept.currency)} ${kept.currency}`;
        throw new ApiError(
          "reference_conflict",
          `amount: COD of ${s.waybill} was recorded at ${was}: ${body.amount} ${body.currency}`,
        );
      }
      return ok(c, {
        waybill: s.waybill,
        client_id: s.client_id,
        amount: decimal(kept.amount_minor, kept.currency),
        currency: kept.currency,
        replayed: r.replayed,
      }, r.replayed ? 200 : 201);
    });
  }

  define(api, {
    method: "post",
    path: "/business/courier/clients/{client}/billing/resolve-fx",
    summary:
      "Give a charge awaiting an FX rate its rate and source; it is then booked now: this period's statement, invoice and export range (charged_at: when it arose)",
    tag,
    security: "business",
    middleware: admin,
    params: ClientParam,
    body: z.object({
      entry_reference: Reference,
      // A small number reads back as 5e-7: its exact decimal text is the rate.
      rate: z.union([z.string().trim(), z.number().positive().transform(numberText)]),
      source: Line,
    }),
    status: 201,
    replay: "The same entry_reference at the same rate",
    response: FxResolvedAnswer,
    refusals: {
      not_found: "no charge of the client's awaits an FX rate by that entry_reference",
      invalid_fx_rate: "the rate is not a positive decimal, or converts the charge to 0.00",
      ...TOO_LARGE,
      reference_conflict: "the entry was resolved before at another rate",
    },
  }, async (c, { params, body }) => {
    const r = await askAccount(c, params.client, {
      kind: "resolve_fx",
      reference: body.entry_reference,
      rate: body.rate,
      source: body.source,
      by: principalName(businessPrincipalOf(c)),
    }, entryAsk(`charge.resolved:${body.entry_reference}`));
    const { resolved, balances } = asResolved(r.reply);
    // spec: courier 2.6 rule 2: resolved once; another rate sent later is refused, not ignored.
    const rate = parseRate(body.rate);
    if (r.replayed && (!rate.ok || rate.text !== resolved.fx_rate)) {
      throw new ApiError(
        "reference_conflict",
        `rate: the entry was already resolved at ${resolved.fx_rate}: ${body.rate}`,
      );
    }
    return ok(c, {
      replayed: r.replayed,
      reference: resolved.reference,
      amount: decimal(resolved.amount_minor, resolved.currency),
      currency: resolved.currency,
      status: resolved.status,
      original_amount: decimal(resolved.original_amount_minor, resolved.original_currency),
      original_currency: resolved.original_currency,
      fx_rate: resolved.fx_rate,
      fx_source: resolved.fx_source,
      // spec: courier 2.6 rule 4, 3.1: booked now, in this period and export range.
      period: resolved.period,
      created_at: iso(resolved.created_at),
      charged_at: iso(resolved.charged_at),
      balances: balancesAnswer(balances),
    }, r.replayed ? 200 : 201);
  });

  define(api, {
    method: "post",
    path: "/business/courier/clients/{client}/invoice",
    summary:
      "Invoice a period (YYYY-MM): one invoice per currency with uninvoiced entries; once per Idempotency-Key",
    tag,
    security: "business",
    middleware: admin,
    params: ClientParam,
    body: z.object({ period: Period }),
    status: 201,
    replay: "The same Idempotency-Key and period",
    idempotencyKey: "The same key again answers the invoices the first call issued (200), not a " +
      "supplementary invoice; with another period it answers 409",
    response: InvoicesIssuedAnswer,
    refusals: {
      validation_failed: "a bad Idempotency-Key header",
      external_settlement: "the courier settles the client in its own accounting system",
      nothing_to_invoice: "no uninvoiced entries in the period",
      open_invoices_limit: "too many open invoices; collect before invoicing more",
      reference_conflict: "the Idempotency-Key invoiced another period",
    },
  }, async (c, { params, body }) => {
    // A retry after a lost answer gets the invoices the first request issued (200), not a
    // refusal that nothing is left to invoice, nor a supplementary invoice of what came since.
    const key = idempotencyHeader(c);
    // spec: courier 2.6 rule 5: an invoice of this period issued so long ago that the account no
    // longer keeps the period still makes the new one supplementary.
    const invoiced = await c.get("env").db.selectFrom("invoices")
      .select("currency").distinct()
      .where("tenant", "=", businessPrincipalOf(c).business.id)
      .where("client_id", "=", params.client)
      .where("period", "=", body.period)
      .execute();
    const r = await askAccount(c, params.client, {
      kind: "issue_invoice",
      period: body.period,
      by: principalName(businessPrincipalOf(c)),
      invoiced_currencies: invoiced.map((i) => i.currency),
    }, key === null ? {} : entryAsk(`invoice:key:${key}`));
    const issued = asInvoices(r.reply);
    const first = issued.invoices[0]?.period;
    if (r.replayed && first !== undefined && first !== body.period) {
      throw new ApiError(
        "reference_conflict",
        `Idempotency-Key already invoiced period ${first}, not ${body.period}: ${key}`,
      );
    }
    const now = c.get("env").clock.now();
    return ok(c, {
      replayed: r.replayed,
      invoices: issued.invoices.map((i) => invoiceView(i, now)),
      balances: balancesAnswer(issued.balances),
    }, r.replayed ? 200 : 201);
  });

  define(api, {
    method: "get",
    path: "/business/courier/clients/{client}/billing",
    summary: "Balances, credit use, ageing, statement of a period, COD, conversions, payments. " +
      "`other_currencies` holds the balances and ageing in currencies other than the billing currency, " +
      "each reckoned apart: they neither use nor free the credit limit, and funds there pay for no booking",
    tag,
    security: "business",
    middleware: [business({ scope: "billing:view-own" }), courierPlatform],
    params: ClientParam,
    query: z.object({ period: Period.optional() }),
    response: ClientBillingAnswer,
  }, async (c, { params, query }) => {
    const courier = businessPrincipalOf(c).business.id;
    const account = asClient(
      await read(c, courierClientActor, courier, params.client, { kind: "get" }),
    );
    const now = c.get("env").clock.now();
    const period = query.period ?? periodOf(now);
    // spec: courier 4.2: the statement and payments are read from the query side; it first
    // holds every entry the account's balances above count, so one answer never contradicts
    // itself (a payment in the balances but missing from the statement and payments).
    await c.get("env").settle();
    return ok(c, {
      ...accountView(account, now),
      statement: await statement(c, account, period),
      payments: await payments(c, account),
    });
  });
}

/** The entry a note points at: its reference, and its kind when several kinds hold it. */
export interface NoteTarget {
  readonly reference: string;
  readonly kind?: EntryKind | undefined;
}

/** The original of a correction as Postgres holds it, and how far Postgres had got then. */
export interface OriginalRead {
  readonly original: OriginalEntry;
  /**
   * How far Postgres has got with the account (its ledger watermark), read with the original and
   * its notes.
   */
  readonly seen_seq: number;
}

type NoteFields = Omit<
  Extract<LedgerCommand, { kind: "correct" }>,
  "kind" | "original" | "seen_seq"
>;

/**
 * Books a debit or credit note on `target` (spec: courier 2.6 rule 5). The account judges it
 * against the notes Postgres does not hold yet; when it has seen Postgres further than this read
 * (another note was judged meanwhile), the entry is read again. Answers the account's result.
 */
export async function bookNote(
  c: Context<AppEnv>,
  courier: string,
  client: string,
  target: NoteTarget,
  note: (original: OriginalEntry) => NoteFields,
  options: AskOptions,
): Promise<AskResult<CourierClientReply>> {
  const env = c.get("env");
  const runtime = env.runtime;
  for (let read = 1;; read++) {
    // spec: courier 2.6 rule 5: the note points at an entry that exists once its posting has
    // answered; the query side it is read from holds every change committed before this call
    // (an entry still being written is not "not found"), and on a re-read what came since.
    await env.settle();
    const { original, seen_seq } = await originalEntry(c, courier, client, target);
    const r = await runtime.ask(courierClientActor, courier, client, {
      kind: "correct",
      original,
      seen_seq,
      ...note(original),
    }, options);
    if (r.ok || r.code !== "ledger_catching_up" || read >= NOTE_READS_MAX) return r;
  }
}

/**
 * The original of a correction, from Postgres, in one statement (one snapshot) with the sum of
 * its notes and how far Postgres has got with the account: 404 when the client has no such entry,
 * 409 when entries of several kinds hold the reference and no kind says which.
 */
export async function originalEntry(
  c: Context<AppEnv>,
  courier: string,
  client: string,
  target: NoteTarget,
): Promise<OriginalRead> {
  const db = c.get("env").db;
  let query = db.selectFrom("ledger_entries as o")
    .select([
      "o.reference",
      "o.kind",
      "o.amount_minor",
      "o.currency",
      "o.status",
      "o.recoverable",
      "o.shipment",
      // A note made before notes named the kind they correct pointed at the only entry then.
      (eb) =>
        eb.selectFrom("ledger_entries as n")
          .select(sql<string>`coalesce(sum(n.amount_minor), 0)::bigint`.as("sum"))
          .whereRef("n.tenant", "=", "o.tenant")
          .whereRef("n.client_id", "=", "o.client_id")
          .whereRef("n.corrects", "=", "o.reference")
          .where((w) =>
            w.or([w("n.corrects_kind", "=", w.ref("o.kind")), w("n.corrects_kind", "is", null)])
          )
          .as("notes"),
      // spec: courier 2.7: the adjustments of its shipment, which its completion lists (a note
      // joins a bounded number of them, client_ledger.ts correct).
      (eb) =>
        eb.selectFrom("ledger_entries as a")
          .select(sql<string>`count(*)::bigint`.as("count"))
          .whereRef("a.tenant", "=", "o.tenant")
          .whereRef("a.client_id", "=", "o.client_id")
          .whereRef("a.shipment", "=", "o.shipment")
          .where("a.kind", "in", ADJUSTMENT_KINDS)
          .as("shipment_adjustments"),
      // How far the query side has got with the account (ledger_watermarks.ts), in the same
      // snapshot as the notes summed above: key reads, not a scan of the account's entries.
      heldWatermark(sql.ref("o.tenant"), sql.ref("o.client_id")).as("seen_seq"),
    ])
    .where("o.tenant", "=", courier)
    .where("o.client_id", "=", client)
    .where("o.reference", "=", target.reference);
  if (target.kind !== undefined) query = query.where("o.kind", "=", target.kind);
  const rows = await query.orderBy("o.kind").execute();
  const what = target.kind === undefined ? "" : `${target.kind} `;
  if (rows.length === 0) {
    // An entry parked on the query side (parked_changes.ts) exists: not now, not "not found".
    if (await isEntryParked(db, courier, client, target.reference)) {
      throw new ApiError(
        "ledger_catching_up",
        `entry_reference: ${what}ledger entry ${target.reference} awaits the statement; retry ` +
          `once it has caught up`,
      );
    }
    throw new ApiError(
      "not_found",
      `entry_reference: ${what}ledger entry not found: ${target.reference}`,
    );
  }
  // A payment quoting a waybill is no note's target: the shipment's entry is.
  const correctable = rows.filter((r) => !NOT_CORRECTABLE.includes(r.kind as EntryKind));
  const candidates = correctable.length > 0 ? correctable : rows;
  if (candidates.length > 1) {
    throw new ApiError(
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
      amount_minor: Number(row.amount_minor),
      currency: row.currency,
      status: row.status as EntryStatus,
      recoverable: row.recoverable,
      shipment: row.shipment,
      net_minor: Number(row.amount_minor) + Number(row.notes ?? 0),
      shipment_adjustments: Number(row.shipment_adjustments ?? 0),
    },
    seen_seq: Number(row.seen_seq ?? 0),
  };
}

async function statement(c: Context<AppEnv>, account: CourierClient, period: string) {
  const db = c.get("env").db;
  // Each entry with its billing event's delivery and acknowledgement as they stand, as the
  // CSV export shows them (courier 2.6, 3.1): the entry's own columns do not follow the event.
  const rows = await db.selectFrom("ledger_entries as le")
    .leftJoin(
      "snapshots as ev",
      (j) =>
        j.on("ev.type", "=", "outbound_event").onRef("ev.id", "=", "le.event_id")
          .onRef("ev.tenant", "=", "le.tenant"),
    )
    .leftJoin(
      "snapshots as rv",
      (j) =>
        j.on("rv.type", "=", "outbound_event").onRef("rv.id", "=", "le.resolved_event_id")
          .onRef("rv.tenant", "=", "le.tenant"),
    )
    .selectAll("le")
    .select([
      sql<string | null>`case when le.event_id is null then null
        else coalesce(ev.data->>'status', 'pending') end`.as("event_status"),
      ...reportColumns(),
    ])
    .where("le.tenant", "=", account.business_id)
    .where("le.client_id", "=", account.id)
    .where("le.period", "=", period)
    .orderBy("le.seq")
    .limit(STATEMENT_ENTRIES_MAX + 1)
    .execute();
  // Periods are YYYY-MM text, so text order is time order: what came before opens the period.
  const totals = await db.selectFrom("ledger_entries")
    .select([
      "currency",
      sql<number>`coalesce(sum(amount_minor) filter (where period < ${period}), 0)::bigint`
        .as("opening"),
      sql<number>`coalesce(sum(amount_minor) filter (where period = ${period} and not recoverable
        and kind not in ('top_up', 'payment', 'cod_remitted')), 0)::bigint`.as("charges"),
      sql<number>`coalesce(sum(amount_minor) filter (where period = ${period}
        and recoverable), 0)::bigint`.as("recoverable"),
      sql<number>`coalesce(sum(amount_minor) filter (where period = ${period} and kind in
        ('top_up', 'payment', 'cod_remitted')), 0)::bigint`.as("received"),
      sql<number>`count(*) filter (where period = ${period})::int`.as("entries"),
    ])
    .where("tenant", "=", account.business_id)
    .where("client_id", "=", account.id)
    .where("period", "<=", period)
    .where("status", "=", "posted")
    .groupBy("currency")
    .orderBy("currency")
    .execute();
  return {
    period,
    entries: rows.slice(0, STATEMENT_ENTRIES_MAX).map(rowView),
    truncated: rows.length > STATEMENT_ENTRIES_MAX,
    // Revenue and recovered duties apart (courier 2.6 recoverable), posted entries only; the
    // balance the client owes (negative: held for it) before and after the period's entries.
    totals: totals.filter((t) => Number(t.opening) !== 0 || t.entries > 0).map((t) => {
      const net = Number(t.charges) + Number(t.recoverable) + Number(t.received);
      return {
        currency: t.currency,
        opening_balance: decimal(Number(t.opening), t.currency),
        charges: decimal(Number(t.charges), t.currency),
        recoverable_duties: decimal(Number(t.recoverable), t.currency),
        received: decimal(Number(t.received), t.currency),
        net: decimal(net, t.currency),
        closing_balance: decimal(Number(t.opening) + net, t.currency),
      };
    }),
  };
}

async function payments(c: Context<AppEnv>, account: CourierClient) {
  const rows = await c.get("env").db.selectFrom("ledger_entries").selectAll()
    .where("tenant", "=", account.business_id)
    .where("client_id", "=", account.id)
    .where("kind", "=", "payment")
    .orderBy("seq", "desc")
    .limit(PAYMENTS_LISTED_MAX)
    .execute();
  return rows.map((r) => ({
    reference: r.reference,
    amount: decimal(-r.amount_minor, r.currency),
    currency: r.currency,
    received_at: r.created_at.toISOString(),
    // spec: courier 4.2: a payment is allocated by invoice; null when not known (projected
    // before allocations were kept).
    allocations: r.allocations === null ? null : r.allocations.map((a) => ({
      invoice_id: a.invoice_id,
      amount: decimal(a.amount_minor, r.currency),
    })),
  }));
}

/** Amounts owed by days past due (courier 4.2), in the currency of the object holding it. */
export const AgeingAnswer = z.object({
  current: Money,
  "1-30": Money,
  "31-60": Money,
  "61-90": Money,
  "90+": Money,
  credit: Money.openapi({
    description: "Held for the client beyond what it owes (prepaid funds, payments and credit " +
      "notes nothing owed took): the buckets less this are `owed`",
  }),
}).openapi("Ageing");

/** An account's balances in one currency (balancesView, otherCurrencyView). */
export const AccountBalancesAnswer = z.object({
  prepaid: Money.openapi({ description: "Prepaid funds not yet used" }),
  receivable: Money.openapi({ description: "Charged and not yet paid" }),
  recoverable_duties: Money.openapi({
    description: "Duties paid on the client's behalf, not yet recovered (not revenue)",
  }),
  unallocated_credit: Money.openapi({
    description: "Credit on account no invoice took yet: payments, remitted COD and issued " +
      "credit invoices (a credit note counts in receivable until it is invoiced)",
  }),
  owed: Money.openapi({
    description: "What the client owes in all (receivable + recoverable_duties - prepaid): " +
      "the sum of its posted entries; negative when funds are held for it",
  }),
}).openapi("AccountBalances");

/** spec: courier 2.6 rule 4: balances in a currency other than the billing currency. */
export const OtherCurrencyAnswer = z.object({
  currency: Currency,
  balances: AccountBalancesAnswer,
  ageing: orNull(AgeingAnswer).openapi({ description: "null for external settlement" }),
}).openapi("OtherCurrencyBalances");

/** spec: courier 4.2: an invoice (invoiceView). */
export const InvoiceAnswer = z.object({
  id: z.string(),
  period: Period,
  currency: Currency,
  amount: Money,
  paid: Money.openapi({ description: "0 on a credit invoice (negative amount)" }),
  credited_to_account: Money.openapi({
    description: "A credit invoice's credit, moved to the account at issue; 0 on others",
  }),
  recoverable_duties: Money.nullable().openapi({
    description: "Of amount, the duties paid on the client's behalf: recoverable, not revenue; " +
      "paid after the invoice's charges. null on invoices issued before it was kept",
  }),
  balance: Money.openapi({ description: "What is still to pay, never below 0" }),
  status: z.enum(["open", "settled"]),
  supplementary: z.boolean().openapi({
    description: "Entries posted after an earlier invoice of the same period and currency",
  }),
  issued_at: UtcInstant,
  due_on: CalendarDay,
  days_past_due: z.number().int().nonnegative().openapi({ description: "0 once settled" }),
}).openapi("Invoice");

const CreditAnswer = z.object({
  limit: Money,
  used: Money.openapi({ description: "Charged and unpaid, recoverable duties included" }),
  available: Money.openapi({ description: "What the credit line covers now, never below 0" }),
}).openapi("CreditLine");

/** spec: courier 2.6 rule 6: cash collected on delivery, owed less only once remitted. */
export const CodAwaitingRemittanceAnswer = z.object({
  waybill: z.string(),
  amount: Money,
  currency: Currency,
  collected_at: UtcInstant,
}).openapi("CodAwaitingRemittance");

/** spec: courier 2.6 rule 4: a charge with no FX rate yet, left out of every balance. */
export const UnresolvedConversionAnswer = z.object({
  reference: z.string(),
  kind: EntryKindName,
  amount: Money.openapi({ description: "In the charge's own currency, awaiting its FX rate" }),
  currency: Currency,
  period: Period,
  created_at: UtcInstant,
}).openapi("UnresolvedConversion");

/** spec: courier 2.6: a ledger entry's fields (entryView). */
const LedgerEntryFields = {
  reference: z.string(),
  kind: EntryKindName,
  amount: Money.openapi({ description: "Signed: positive is owed by the client" }),
  currency: Currency,
  status: z.enum(ENTRY_STATUSES),
  payer: z.literal("client"),
  recoverable: z.boolean().openapi({ description: "Duties recovered, never revenue" }),
  reason: z.string().nullable(),
  evidence_path: z.string().nullable(),
  source_event: z.string().nullable(),
  original_amount: Money.nullable().openapi({
    description: "A converted charge: its amount in original_currency",
  }),
  original_currency: Currency.nullable(),
  fx_rate: z.string().nullable().openapi({
    description: "Exact decimal text",
    example: "0.7525",
  }),
  fx_source: z.string().nullable(),
  corrects: z.string().nullable().openapi({
    description: "A debit or credit note: the reference of the entry it corrects",
  }),
  shipment: z.string().nullable().openapi({ description: "The waybill, if any" }),
  period: Period,
  created_at: UtcInstant.openapi({ description: "When it was booked" }),
  charged_at: UtcInstant.nullable().openapi({
    description:
      "When the charge arose, if booked later (a conversion resolved); null: at created_at",
  }),
};

/** spec: courier 2.6: the entry a billing action posted (entryView). */
export const LedgerEntryAnswer = z.object(LedgerEntryFields).openapi("LedgerEntry");

/** The account's balances after a billing action (balancesAnswer). */
const BalancesAfterAnswer = z.object({
  settlement_mode: Settlement,
  currency: Currency.openapi({ description: "The billing currency" }),
  balances: AccountBalancesAnswer,
  credit: orNull(CreditAnswer).openapi({ description: "Credit settlement only, else null" }),
  other_currencies: z.array(
    z.object({ currency: Currency, balances: AccountBalancesAnswer }).openapi(
      "OtherCurrencyBalancesAfter",
    ),
  ),
}).openapi("BalancesAfter");

const Replayed = z.boolean().openapi({
  description: "true: the same action again, answered with what the first one did (200)",
});

/** correct and cod-remitted (postingAnswer). */
export const PostingAnswer = z.object({
  replayed: Replayed,
  entry: LedgerEntryAnswer,
  balances: BalancesAfterAnswer,
}).openapi("Posting");

export const TopUpAnswer = z.object({
  reference: z.string(),
  replayed: Replayed,
  balance: Money.openapi({ description: "Prepaid funds in the top-up's currency after it" }),
  available: Money.openapi({
    description: "What bookings can spend now; 0 for funds in a currency other than the " +
      "billing currency, which pay for no booking",
  }),
  currency: Currency,
  entry: LedgerEntryAnswer,
}).openapi("TopUp");

export const PaymentAnswer = z.object({
  replayed: Replayed,
  entry: LedgerEntryAnswer,
  allocations: z.array(z.object({ invoice_id: z.string(), amount: Money })).openapi({
    description: "The invoices the payment went to: those named, then the oldest open ones",
  }),
  unallocated: Money.openapi({ description: "What no invoice took: credit on account" }),
  currency: Currency.openapi({ description: "Of the payment, its allocations and unallocated" }),
  balances: BalancesAfterAnswer,
}).openapi("PaymentPosted");

export const CodCollectedAnswer = z.object({
  waybill: z.string(),
  client_id: z.string(),
  amount: Money,
  currency: Currency,
  replayed: Replayed,
}).openapi("CodCollected");

export const FxResolvedAnswer = z.object({
  replayed: Replayed,
  reference: z.string(),
  amount: Money.openapi({ description: "In the billing currency, at the rate given" }),
  currency: Currency,
  status: z.enum(["posted", "external"]),
  original_amount: Money,
  original_currency: Currency,
  fx_rate: z.string().openapi({ description: "Exact decimal text", example: "0.7525" }),
  fx_source: z.string(),
  period: Period.openapi({ description: "Booked now: this period's" }),
  created_at: UtcInstant,
  charged_at: UtcInstant.nullable().openapi({ description: "When the charge arose" }),
  balances: BalancesAfterAnswer,
}).openapi("FxResolved");

export const InvoicesIssuedAnswer = z.object({
  replayed: Replayed,
  invoices: z.array(InvoiceAnswer).openapi({ description: "One per currency with entries" }),
  balances: BalancesAfterAnswer,
}).openapi("InvoicesIssued");

/** GET /business/courier/clients/{client}/billing: accountView, a statement and payments. */
export const ClientBillingAnswer = z.object({
  client_id: z.string(),
  settlement_mode: Settlement,
  currency: Currency.openapi({ description: "The billing currency" }),
  balances: AccountBalancesAnswer,
  credit: orNull(CreditAnswer).openapi({ description: "Credit settlement only, else null" }),
  ageing: orNull(AgeingAnswer).openapi({ description: "null for external settlement" }),
  cod_awaiting_remittance: z.array(CodAwaitingRemittanceAnswer),
  unresolved_conversions: z.array(UnresolvedConversionAnswer),
  invoices: z.array(InvoiceAnswer).openapi({
    description: "Open invoices and the latest settled ones, newest first",
  }),
  other_currencies: z.array(OtherCurrencyAnswer),
  statement: z.object({
    period: Period,
    entries: z.array(
      z.object({
        ...LedgerEntryFields,
        invoice_id: z.string().nullable(),
        export_state: z.enum(EXPORT_STATES),
        event_state: z.enum(OUTBOUND_STATUSES).nullable().openapi({
          description: "Delivery of the entry's billing event; null when it has none",
        }),
        external_reference: z.string().nullable().openapi({
          description: "The reference the courier's system reported with export_state",
        }),
      }).openapi("StatementEntry"),
    ).openapi({
      description: `In the order they reached the account, at most ${STATEMENT_ENTRIES_MAX}`,
    }),
    truncated: z.boolean().openapi({
      description: `true: the period has more than ${STATEMENT_ENTRIES_MAX} entries`,
    }),
    totals: z.array(z.object({
      currency: Currency,
      opening_balance: Money,
      charges: Money.openapi({ description: "Revenue: charges and notes, duties apart" }),
      recoverable_duties: Money,
      received: Money.openapi({ description: "Top-ups, payments and remitted COD (negative)" }),
      net: Money,
      closing_balance: Money,
    })).openapi({ description: "Posted entries only, one row per currency" }),
  }).openapi("Statement"),
  payments: z.array(
    z.object({
      reference: z.string(),
      amount: Money,
      currency: Currency,
      received_at: UtcInstant,
      allocations: z.array(z.object({ invoice_id: z.string(), amount: Money })).nullable().openapi({
        description: "By invoice; null when not known (projected before allocations were kept)",
      }),
    }).openapi("Payment"),
  ).openapi({
    description: `The latest ${PAYMENTS_LISTED_MAX}, newest first`,
  }),
}).openapi("ClientBilling");

/** What the billing view and the client's own account show from the actor's state. */
export function accountView(account: CourierClient, now: number) {
  const cur = account.settings.billing_currency;
  const mode = account.settings.settlement_mode;
  const book = account.ledger;
  const balances = accountBalances(account);
  return {
    client_id: account.id,
    ...balancesView(balances),
    ageing: mode === "external" ? null : ageingView(book, cur, now, balances),
    cod_awaiting_remittance: book.cod.map((x) => ({
      waybill: x.waybill,
      amount: decimal(x.amount_minor, x.currency),
      currency: x.currency,
      collected_at: new Date(x.collected_at).toISOString(),
    })),
    unresolved_conversions: book.unresolved.map((u) => ({
      reference: u.reference,
      kind: u.kind,
      amount: decimal(u.amount_minor, u.currency),
      currency: u.currency,
      period: u.period,
      created_at: new Date(u.created_at).toISOString(),
    })),
    invoices: [...book.invoices].reverse().map((i) => invoiceView(i, now)),
    // Each other currency's balances with their ageing, reckoned apart (courier 2.6 rule 4).
    other_currencies: (balances.other_currencies ?? []).map((o) => ({
      ...otherCurrencyView(o),
      ageing: mode === "external" ? null : ageingView(book, o.currency, now, o),
    })),
  };
}

/**
 * What is owed by days past due (courier 4.2), and `credit`: what is held for the client beyond
 * it (prepaid funds, payments and credit notes nothing owed took). The buckets less `credit` are
 * `owed`, so a client in credit no longer shows five zeros beside a negative `owed`.
 */
function ageingView(
  book: LedgerBook,
  currency: string,
  now: number,
  b: { readonly prepaid_minor: number; readonly owed_minor: number },
) {
  const aged = ageing(book, currency, now, b.prepaid_minor);
  return {
    ...Object.fromEntries(AGEING_BUCKETS.map((k) => [k, decimal(aged[k], currency)])),
    credit: decimal(Math.max(-b.owed_minor, 0), currency),
  };
}

/**
 * An account's balances in a currency other than its billing currency: notes on entries from
 * before the billing currency changed post there (courier 2.6 rule 5). They are never converted
 * (rule 4), so they neither use nor free the credit limit, and funds there pay for no booking.
 */
function otherCurrencyView(o: OtherCurrencyBalances) {
  const cur = o.currency;
  return {
    currency: cur,
    balances: {
      prepaid: decimal(o.prepaid_minor, cur),
      receivable: decimal(o.receivable_minor, cur),
      recoverable_duties: decimal(o.recoverable_minor, cur),
      unallocated_credit: decimal(o.unallocated_minor, cur),
      owed: decimal(o.owed_minor, cur),
    },
  };
}

function balancesView(b: AccountBalances) {
  const cur = b.currency;
  return {
    settlement_mode: b.settlement_mode,
    currency: cur,
    balances: {
      prepaid: decimal(b.prepaid_minor, cur),
      receivable: decimal(b.receivable_minor, cur),
      recoverable_duties: decimal(b.recoverable_minor, cur),
      unallocated_credit: decimal(b.unallocated_minor, cur),
      owed: decimal(b.owed_minor, cur),
    },
    credit: b.settlement_mode === "credit"
      ? {
        limit: decimal(b.credit_limit_minor, cur),
        used: decimal(creditUsed(b), cur),
        available: decimal(b.available_minor ?? 0, cur),
      }
      : null,
  };
}

/** The other currencies' balances a billing action's answer carries with the billing ones. */
function balancesAnswer(b: AccountBalances) {
  return {
    ...balancesView(b),
    other_currencies: (b.other_currencies ?? []).map(otherCurrencyView),
  };
}

export function invoiceView(i: Invoice, now: number) {
  const open = isOpen(i);
  return {
    id: i.id,
    period: i.period,
    currency: i.currency,
    amount: decimal(i.amount_minor, i.currency),
    // A credit invoice (amount below zero) is settled at issue by moving its credit to the
    // account, where it pays open invoices: nothing was paid on it (the book keeps paid = amount).
    paid: decimal(Math.max(i.paid_minor, 0), i.currency),
    credited_to_account: decimal(Math.max(-i.amount_minor, 0), i.currency),
    // spec: courier 2.6: duties recoverable, kept apart from charges (not revenue).
    recoverable_duties: i.recoverable_minor === undefined
      ? null
      : decimal(i.recoverable_minor, i.currency),
    balance: decimal(Math.max(balanceOf(i), 0), i.currency),
    status: open ? "open" : "settled",
    supplementary: i.supplementary,
    issued_at: new Date(i.issued_at).toISOString(),
    due_on: i.due_on,
    days_past_due: open ? Math.max(daysPastDue(i.due_on, now), 0) : 0,
  };
}

export function entryView(e: LedgerEntry) {
  return {
    reference: e.reference,
    kind: e.kind,
    amount: decimal(e.amount_minor, e.currency),
    currency: e.currency,
    status: e.status,
    payer: e.payer,
    recoverable: e.recoverable,
    reason: e.reason,
    evidence_path: e.evidence_path,
    source_event: e.source_event,
    original_amount: e.original_amount_minor === null || e.original_currency === null
      ? null
      : decimal(e.original_amount_minor, e.original_currency),
    original_currency: e.original_currency,
    fx_rate: e.fx_rate,
    fx_source: e.fx_source,
    corrects: e.corrects,
    shipment: e.shipment,
    period: e.period,
    created_at: new Date(e.created_at).toISOString(),
    // spec: courier 2.6 rule 4: a conversion resolved later is booked then (created_at, period);
    // this says when the charge arose. Null: it arose at created_at.
    charged_at: iso(e.charged_at),
  };
}

function rowView(
  r: LedgerEntryRow & {
    event_status: string | null;
    reported_state: string | null;
    external_references: unknown;
    resolved_reported_state: string | null;
    resolved_external_references: unknown;
  },
) {
  const report = entryReportOfRow(r);
  const exported = exportStateOf({
    export_state: r.export_state as ExportState,
    reported_state: report?.reported_state ?? null,
    external_references: report?.external_references ?? null,
  });
  return {
    ...entryView({
      reference: r.reference,
      seq: r.seq,
      period: r.period,
      kind: r.kind as EntryKind,
      amount_minor: r.amount_minor,
      currency: r.currency,
      status: r.status as EntryStatus,
      payer: "client",
      recoverable: r.recoverable,
      reason: r.reason,
      evidence_path: r.evidence_path,
      source_event: r.source_event,
      original_amount_minor: r.original_amount_minor,
      original_currency: r.original_currency,
      fx_rate: r.fx_rate,
      fx_source: r.fx_source,
      corrects: r.corrects,
      shipment: r.shipment,
      created_at: r.created_at.getTime(),
      charged_at: r.charged_at?.getTime() ?? null,
    }),
    invoice_id: r.invoice_id,
    export_state: exported.state,
    event_state: r.event_status,
    external_reference: exported.reference,
  };
}
