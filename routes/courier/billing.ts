/**
 * Courier 4.2, client billing: top-ups, payments, debit and credit notes, remitted COD, FX
 * resolution, invoices (billing:administer) and the billing view (billing:view-own). Every money
 * fact is a ledger entry (courier 2.6); the same reference or source event books once. Each
 * action is a flow of src/courier/flows/billing/; its answer a view of ./answers/billing.ts.
 *
 * Amounts in answers are decimals in their currency. An entry's amount is signed from the
 * client's side: positive adds to what it owes, negative (top-up, payment, credit note, remitted
 * COD) reduces it.
 */
import type { Context } from "hono";
import { CLAIM_CREDIT_PREFIX } from "../../actors/courier/claim/mod.ts";
import { REFERENCE_CHARS_MAX, TEXT_CHARS_MAX } from "../../src/courier/rules/ledger.ts";
import { numberText } from "../../src/domain/money.ts";
import { asPosting } from "../../actors/courier/courier_client.ts";
import type { BillingCaller } from "../../src/courier/flows/billing/account.ts";
import { recordPayment, topUp } from "../../src/courier/flows/billing/receipts.ts";
import { correctEntry, NOTE_KEY_PREFIX } from "../../src/courier/flows/billing/notes.ts";
import { recordCodCollected, remitCod } from "../../src/courier/flows/billing/cod.ts";
import { resolveFx } from "../../src/courier/flows/billing/fx.ts";
import { issueInvoices } from "../../src/courier/flows/billing/invoices.ts";
import { clientBilling } from "../../src/courier/flows/billing/view.ts";
import { business, driver } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { courierPlatform } from "../../src/courier/auth.ts";
import { type Api, ok } from "../../src/http/app.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { ApiError } from "../../src/http/errors.ts";
import { idempotencyHeader } from "../../src/http/idempotency.ts";
import { define, z } from "../../src/http/route.ts";
import { Currency, PlainText, Waybill } from "../../src/http/schemas.ts";
import { assertDriverCarries } from "../../src/courier/flows/driver_access.ts";
import { EVIDENCE_FILE_BYTES_MAX, readEvidence } from "../../src/courier/flows/evidence.ts";
import { evidenceResponse } from "./answers/evidence.ts";
import { MULTIPART_OVERHEAD_BYTES_MAX } from "../../src/http/upload.ts";
import {
  ClientBillingAnswer,
  clientBillingView,
  CodCollectedAnswer,
  codCollectedView,
  FxResolvedAnswer,
  fxResolvedView,
  InvoicesIssuedAnswer,
  invoicesIssuedView,
  PaymentAnswer,
  paymentView,
  PostingAnswer,
  postingView,
  TopUpAnswer,
  topUpView,
} from "./answers/billing.ts";
import { EntryKindName, Period } from "./answers/ledger.ts";

const tag = "Client billing";

const ClientParam = z.object({ client: z.string().min(1).max(64) });
const Positive = z.union([z.number().positive(), z.string().regex(/^\d+(\.\d+)?$/)]);
const Signed = z.union([z.number(), z.string().regex(/^-?\d+(\.\d+)?$/)]);
// spec: courier 2.6: every text an entry keeps is carried by its billing events (2.7): no
// control character (PlainText), only a reason may run over lines.
const Reference = PlainText(REFERENCE_CHARS_MAX).min(1);
/** An entry's reason (courier 2.6): free text, over lines if need be. */
const Reason = PlainText(TEXT_CHARS_MAX, { lines: true }).min(1);
/** An entry's evidence path or an FX rate's source: one line. */
const Line = PlainText(TEXT_CHARS_MAX).min(1);

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

/** The courier calling and the name its entries record. */
function callerOf(c: Context<AppEnv>): BillingCaller {
  const { tenant, by } = businessCall(c);
  return { courier: tenant, by };
}

/** The answer to a billing action that posted an entry: 201, or 200 when it was replayed. */
function postingAnswer(
  c: Context<AppEnv>,
  r: { reply: Parameters<typeof asPosting>[0]; replayed: boolean },
): Response {
  return ok(c, postingView(asPosting(r.reply), r.replayed), r.replayed ? 200 : 201);
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
    const r = await topUp(c.get("env"), callerOf(c), params.client, body);
    return ok(c, topUpView(body.reference, r.posting, r.replayed), r.replayed ? 200 : 201);
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
      not_found: "the client does not exist, or is not the caller's; an allocation names an " +
        "invoice the client does not hold (another client's, as one nobody holds)",
      invoice_not_open: "an allocation names an invoice of the client's that is not open in " +
        "the payment's currency",
      duplicate_allocation: "an invoice is allocated twice",
      allocation_exceeds_invoice: "an allocation is above the invoice's balance",
      allocations_exceed_payment: "the allocations add up to more than the payment",
      ...TOO_LARGE,
      reference_conflict: "the reference was paid before with other figures or allocations",
    },
  }, async (c, { params, body }) => {
    const r = await recordPayment(c.get("env"), callerOf(c), params.client, body);
    return ok(c, paymentView(r.posting, r.replayed), r.replayed ? 200 : 201);
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
      validation_failed: "a bad Idempotency-Key header; an evidence text `file:sha256:<hex>` " +
        "names no evidence file of the courier's",
      not_found: "the client has no ledger entry by that entry_reference",
      reference_conflict: "entries of several kinds hold entry_reference (name one with " +
        "entry_kind); the reference or Idempotency-Key was booked before with other figures",
      not_correctable: "the entry is money received or a note: a note corrects the entry it " +
        "points at",
      fx_unresolved: "the entry awaits its FX rate: resolve it first",
      correction_exceeds_entry: "a credit note would take the entry below zero",
      ledger_catching_up: "as many notes on the entry are being booked as it holds at once, or " +
        "the note's reservation lapsed: retry",
      adjustments_limit: "the entry's shipment has as many adjustments as a note may join: its " +
        "completion event lists every one",
      ...TOO_LARGE,
    },
  }, async (c, { params, body }) => {
    // A note without a reference of its own is issued once per Idempotency-Key: a retry after a
    // lost answer must not credit or debit the client twice.
    const key = body.reference === undefined ? idempotencyHeader(c) : null;
    const r = await correctEntry(c.get("env"), callerOf(c), params.client, body, key);
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
      validation_failed: "neither an evidence_file nor an evidence text; an evidence text " +
        "`file:sha256:<hex>` names no evidence file of the courier's",
      not_found: "the client does not exist, or is not the caller's; the waybill is not a " +
        "shipment of the client's (another client's, as one nobody holds)",
      cod_not_collected: "no COD of the client's shipment awaits remittance",
      evidence_file_too_large: "the evidence file is larger than an evidence file may be",
      ...TOO_LARGE,
    },
  }, async (c, { params, body, files }) => {
    const file = files["evidence_file"];
    const r = await remitCod(c.get("env"), callerOf(c), params.client, {
      waybill: body.waybill,
      evidence: body.evidence,
      file: file && {
        name: file.name,
        content_type: file.type,
        bytes: new Uint8Array(await file.arrayBuffer()),
      },
    });
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
    // The type the file was uploaded with, whatever it was.
    produces: "*/*",
  }, async (c, { params }) => {
    const { env, tenant } = businessCall(c);
    const found = await readEvidence(env.runtime, tenant, params.sha256);
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
      const { env, principal } = businessCall(c);
      if (side === "driver") {
        await assertDriverCarries(env, principal, params.waybill);
      }
      const r = await recordCodCollected(env, callerOf(c), params.waybill, body);
      return ok(c, codCollectedView(r), r.replayed ? 200 : 201);
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
    const r = await resolveFx(c.get("env"), callerOf(c), params.client, body);
    return ok(c, fxResolvedView(r.resolved, r.balances, r.replayed), r.replayed ? 200 : 201);
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
      validation_failed: "a bad Idempotency-Key header; a period after the current month",
      external_settlement: "the courier settles the client in its own accounting system",
      nothing_to_invoice: "no uninvoiced entries in the period",
      open_invoices_limit: "too many open invoices; collect before invoicing more",
      reference_conflict: "the Idempotency-Key invoiced another period",
    },
  }, async (c, { params, body }) => {
    // A retry after a lost answer gets the invoices the first request issued (200).
    const key = idempotencyHeader(c);
    const env = c.get("env");
    const r = await issueInvoices(env, callerOf(c), params.client, body.period, key);
    return ok(c, invoicesIssuedView(r, env.clock.now(), r.replayed), r.replayed ? 200 : 201);
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
    const { env, tenant } = businessCall(c);
    const b = await clientBilling(env, tenant, params.client, query.period);
    return ok(c, clientBillingView(b));
  });
}
