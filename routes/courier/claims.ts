/**
 * Claims (courier 4.6 `GET /client/claims`; 5 scope `claims:approve`; 2.4 claim terms). The
 * courier files a claim for a client's shipment (shipments:create or runs:operate) within the
 * claim window of the shipment's frozen rate card; a holder of claims:approve decides it once.
 * An approved amount becomes a credit note on the shipment's booked price (2.6 rule 5), booked
 * once under the claim's reference, in full even above the price (compensation, 2.4 liability
 * cover); when the ledger refuses it (say, an unresolved FX rate) the decision stands and the
 * claim says why no note was booked. The client sees its own claims
 * and their outcome.
 */
import type { Context } from "hono";
import {
  asClaim,
  type Claim,
  CLAIM_EVIDENCE_CHARS_MAX,
  CLAIM_KINDS,
  CLAIM_OUTCOMES,
  CLAIM_STATUSES,
  CLAIM_TEXT_CHARS_MAX,
  claimActor,
  type ClaimCredit,
  claimKeyOf,
  claimLimitOf,
  claimWindowClosesAt,
  type CreditResult,
} from "../../actors/courier/claim.ts";
import { entryAsk } from "../../actors/courier/client_ledger.ts";
import { termsOf } from "../../actors/courier/shipment.ts";
import { frozenTerms } from "../../src/courier/flows/later_charges.ts";
import { shipmentIn } from "../../src/courier/flows/shipments.ts";
import { decimal, toMinor } from "../../src/domain/money.ts";
import { derivedId } from "../../src/domain/secrets.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessPrincipalOf, principalName } from "../../src/platform/auth/principal.ts";
import { client, clientPrincipalOf, courierPlatform } from "../../src/courier/auth.ts";
import { type Api, ok } from "../../src/http/app.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { afterCursor, nextCursor } from "../../src/http/cursor.ts";
import { claimPage as claimsPage } from "../../src/courier/queries/claims.ts";
import {
  ApiError,
  asApiError,
  fromRejection,
  statusOf,
  validationFailed,
} from "../../src/http/errors.ts";
import { define, z } from "../../src/http/route.ts";
import {
  Currency,
  Money,
  orNull,
  PlainText,
  UtcInstant,
  Waybill,
  wholeNumber,
} from "../../src/http/schemas.ts";
import { ask, read } from "../../src/http/ask.ts";
import { bookNote } from "./billing.ts";
import { iso } from "../../src/domain/iso.ts";

const tag = "Claims";
const CLAIMS_PAGE_DEFAULT = 100;
/** The most claims one page answers (bounded pages). */
const CLAIMS_PAGE_MAX = 500;

const Amount = z.union([z.number().nonnegative(), z.string().regex(/^\d+(\.\d+)?$/)]);
const Text = (max: number) => z.string().trim().min(1).max(max);

const FileClaim = z.object({
  /** As typed, in any case (every waybill route reads it upper-case). */
  waybill: Waybill,
  kind: z.enum(CLAIM_KINDS),
  amount: Amount,
  /** The shipment's currency; another is refused. */
  currency: Currency.optional(),
  description: Text(CLAIM_TEXT_CHARS_MAX),
  // spec: courier 2.6: the evidence of the claim's credit note (PlainText).
  evidence: PlainText(CLAIM_EVIDENCE_CHARS_MAX).min(1).optional(),
  /**
   * Accepted as before; a shipment has one claim whatever the key (claimKeyOf), so filing again
   * answers that claim.
   */
  idempotency_key: z.string().trim().min(1).max(200).optional(),
}).openapi("FileClaim");

const DecideClaim = z.object({
  outcome: z.enum(CLAIM_OUTCOMES),
  approved_amount: Amount.optional(),
  reason: Text(CLAIM_TEXT_CHARS_MAX).optional(),
}).openapi("DecideClaim");

const ClaimParam = z.object({ id: z.string().min(1).max(64) });

const ListQuery = z.object({
  status: z.enum(CLAIM_STATUSES).optional(),
  waybill: Waybill.optional(),
  limit: wholeNumber(1, CLAIMS_PAGE_MAX).default(CLAIMS_PAGE_DEFAULT),
  cursor: z.string().max(200).optional(),
});

const BusinessListQuery = ListQuery.extend({ client_id: z.string().min(1).max(64).optional() });

function creditView(credit: ClaimCredit | null, currency: string) {
  if (credit === null) return null;
  return {
    reference: credit.reference,
    amount: decimal(credit.amount_minor, currency),
    state: credit.state,
    ...(credit.state === "not_booked" ? { code: credit.code, message: credit.message } : {}),
  };
}

/** A claim and its outcome, as the client sees it: no staff names. */
export function clientClaimView(claim: Claim) {
  const d = claim.decision;
  return {
    id: claim.id,
    waybill: claim.waybill,
    kind: claim.kind,
    amount: decimal(claim.amount_minor, claim.currency),
    currency: claim.currency,
    description: claim.description,
    evidence: claim.evidence,
    status: claim.status,
    filed_at: iso(claim.filed_at),
    outcome: d === null ? null : {
      outcome: d.outcome,
      approved_amount: decimal(d.approved_amount_minor, claim.currency),
      reason: d.reason,
      decided_at: iso(d.decided_at),
    },
    credit_note: creditView(claim.credit, claim.currency),
  };
}

/** The courier's view: who filed and decided, the client, the window. */
export function claimView(claim: Claim) {
  return {
    ...clientClaimView(claim),
    client_id: claim.client_id,
    filed_by: claim.filed_by,
    window_closes_at: iso(claim.window_closes_at),
    decided_by: claim.decision?.decided_by ?? null,
  };
}

// ---- Answers (documentation: tests/http/answers_operations_test.ts holds answers to them).

/** spec: courier 2.4, 2.6 rule 5: the credit note of an approved amount (creditView). */
const ClaimCreditAnswer = z.object({
  reference: z.string().openapi({ description: "The credit note's ledger reference" }),
  amount: Money.openapi({ description: "In the claim's currency" }),
  state: z.enum(["pending", "booked", "not_booked"]).openapi({
    description: "not_booked: the ledger refused it (code, message); the courier settles it " +
      "another way",
  }),
  code: z.string().optional().openapi({ description: "not_booked only: the ledger's refusal" }),
  message: z.string().optional().openapi({ description: "not_booked only" }),
}).openapi("ClaimCreditNote");

/** spec: courier 4.6: a claim and its outcome, as the client sees it (clientClaimView). */
const clientClaimFields = {
  id: z.string(),
  waybill: z.string(),
  kind: z.enum(CLAIM_KINDS),
  amount: Money.openapi({ description: "Claimed, in `currency`" }),
  currency: Currency.openapi({ description: "The shipment's currency" }),
  description: z.string(),
  evidence: z.string().nullable(),
  status: z.enum(CLAIM_STATUSES),
  filed_at: UtcInstant,
  outcome: orNull(
    z.object({
      outcome: z.enum(CLAIM_OUTCOMES),
      approved_amount: Money.openapi({ description: "0 when rejected" }),
      reason: z.string().nullable(),
      decided_at: UtcInstant,
    }).openapi("ClaimOutcome"),
  ).openapi({ description: "null until decided" }),
  credit_note: orNull(ClaimCreditAnswer).openapi({
    description: "null until an amount is approved",
  }),
};

export const ClientClaimAnswer = z.object(clientClaimFields).openapi("ClientClaim");

/** The courier's view of a claim: who filed and decided it, the client, the window (claimView). */
export const ClaimAnswer = z.object({
  ...clientClaimFields,
  client_id: z.string(),
  filed_by: z.string(),
  window_closes_at: UtcInstant.openapi({
    description: "The end of the claim window of the shipment's rate card (courier 2.4)",
  }),
  decided_by: z.string().nullable(),
}).openapi("Claim");

/**
 * A claim id: one per shipment (claimKeyOf), so the same loss filed again, with any key or none,
 * names the claim filed first and is never paid twice (spec: courier 2.6 rule 2).
 */
function claimIdOf(courier: string, waybill: string): string {
  return derivedId("clm", claimKeyOf(courier, waybill));
}

function minorOf(amount: number | string, currency: string, path: string): number {
  const r = toMinor(amount, currency);
  if (!r.ok) throw validationFailed([{ path, message: r.message }]);
  return r.minor;
}

/** Books the pending credit note of a decided claim once, and records how that went. */
async function settleCredit(c: Context<AppEnv>, claim: Claim): Promise<Claim> {
  const credit = claim.credit;
  if (credit === null || credit.state !== "pending") return claim;
  const result = await creditNote(c, claim, credit.reference, credit.amount_minor);
  return asClaim(
    await ask(c, claimActor, claim.courier_id, claim.id, { kind: "settle_credit", result }),
  );
}

/** spec: courier 2.6 rule 5: a credit note pointing at the shipment's booked price entry. */
async function creditNote(
  c: Context<AppEnv>,
  claim: Claim,
  reference: string,
  amountMinor: number,
): Promise<CreditResult> {
  const env = c.get("env");
  // The notes already on the entry are read from the query side: let it catch up first.
  await env.settle();
  let r;
  try {
    // The booked price's entry: a payment quoting the waybill holds the same reference.
    r = await bookNote(
      c,
      claim.courier_id,
      claim.client_id,
      { reference: claim.waybill, kind: "shipment" },
      () => ({
        amount_minor: -amountMinor,
        reason: `claim ${claim.id} (${claim.kind}) ${claim.decision?.outcome ?? "decided"}`,
        reference,
        evidence_path: claim.evidence,
        // Compensation, not a price correction: not capped by the booked price (courier 2.4).
        compensation: true,
        by: claim.decision?.decided_by ?? "claims",
      }),
      entryAsk(`note:${reference}`),
    );
  } catch (e) {
    const refused = asApiError(e);
    if (refused && !transient(refused.code)) {
      return { booked: false, code: refused.code, message: refused.message };
    }
    throw e;
  }
  if (r.ok) return { booked: true };
  // A ledger that cannot take the note for the moment (busy, catching up) has not refused it:
  // the credit stays pending and the decision sent again books it (product rule: a retry
  // completes what was left undone; spec: courier 2.6 rule 5).
  if (transient(r.code)) throw fromRejection(r);
  return { booked: false, code: r.code, message: r.message };
}

/** A refusal that says "not now" (5xx: actor_busy, ledger_catching_up), not "never". */
function transient(code: string): boolean {
  return statusOf(code) >= 500;
}

/** One page of a courier's claims from the query side, newest first. */
async function claimPage(
  c: Context<AppEnv>,
  courier: string,
  query: z.infer<typeof BusinessListQuery>,
): Promise<{ claims: Claim[]; next_cursor: string | null }> {
  const page = await claimsPage(c.get("env").db, courier, query, {
    limit: query.limit,
    after: afterCursor(query.cursor),
  });
  return { claims: page.rows, next_cursor: nextCursor(page.next) };
}

export function claimRoutes(api: Api): void {
  define(api, {
    method: "post",
    path: "/business/courier/claims",
    summary: "File a claim (loss, damage, delay) for a client's shipment within the claim window " +
      "of its rate card, up to its cover; a shipment has one claim: filed again it answers " +
      "that one",
    tag,
    security: "business",
    middleware: [business({ anyScope: ["shipments:create", "runs:operate"] }), courierPlatform],
    body: FileClaim,
    status: 201,
    replay: "The same shipment with the same facts: the claim as it stands",
    response: ClaimAnswer,
    refusals: {
      not_found: "no shipment of the courier's by that waybill",
      currency_mismatch: "not the shipment's currency",
      invalid_amount: "the amount is not above zero",
      claim_window_closed: "the claim window of the shipment's rate card has closed",
      claim_conflict: "the shipment already has a claim, filed with other details",
      claim_above_limit: "above the declared value under liability cover, or without cover " +
        "above what was charged",
      shipment_cancelled: "the shipment was cancelled: nothing was carried",
    },
  }, async (c, { body }) => {
    const p = businessPrincipalOf(c);
    const runtime = c.get("env").runtime;
    const courier = p.business.id;
    const shipment = await shipmentIn(runtime, courier, body.waybill);
    const currency = body.currency ?? shipment.pricing.currency;
    if (currency !== shipment.pricing.currency) {
      throw new ApiError(
        "currency_mismatch",
        `a claim is in the shipment's currency ${shipment.pricing.currency}: ${currency}`,
      );
    }
    const terms = await frozenTerms(runtime, shipment);
    const id = claimIdOf(courier, shipment.waybill);
    const r = await runtime.ask(
      claimActor,
      courier,
      id,
      {
        kind: "file",
        claim: {
          id,
          courier_id: courier,
          client_id: shipment.client_id,
          waybill: shipment.waybill,
          kind: body.kind,
          amount_minor: minorOf(body.amount, currency, "amount"),
          currency,
          description: body.description,
          evidence: body.evidence ?? null,
          window_closes_at: claimWindowClosesAt(
            { ...shipment, calendar: termsOf(shipment).calendar },
            terms.claim_window_days,
          ),
        },
        // spec: courier 2.4: the cover frozen on the shipment, not today's card.
        bounds: { ...claimLimitOf(shipment), cancelled: shipment.status === "cancelled" },
        by: principalName(p),
      },
    );
    if (!r.ok) throw fromRejection(r);
    if (!("created" in r.reply)) throw new Error("file answers whether it filed");
    return ok(c, claimView(r.reply.claim), r.reply.created ? 201 : 200);
  });

  define(api, {
    method: "post",
    path: "/business/courier/claims/{id}/decide",
    summary: "Decide a claim once: approved (the whole amount), partly_approved (approved_amount " +
      "and reason) or rejected (reason); an approved amount is credited by a credit note. The " +
      "same decision sent again answers the claim as decided",
    tag,
    security: "business",
    middleware: [business({ scope: "claims:approve" }), courierPlatform],
    params: ClaimParam,
    body: DecideClaim,
    response: ClaimAnswer,
    refusals: {
      claim_already_decided: "the claim was decided before, otherwise: it is decided once",
      invalid_amount: "approved_amount does not fit the outcome (approved: the whole claim; " +
        "partly_approved: above zero and below it; rejected: none)",
      validation_failed: "a partial approval or a rejection without a reason",
    },
  }, async (c, { params, body }) => {
    const p = businessPrincipalOf(c);
    const courier = p.business.id;
    const current = asClaim(await read(c, claimActor, courier, params.id, { kind: "get" }));
    const r = await c.get("env").runtime.ask(claimActor, courier, params.id, {
      kind: "decide",
      outcome: body.outcome,
      approved_amount_minor: body.approved_amount === undefined
        ? null
        : minorOf(body.approved_amount, current.currency, "approved_amount"),
      reason: body.reason ?? null,
      by: principalName(p),
    });
    if (!r.ok) throw fromRejection(r);
    // The decision recorded, sent again, answers as it stands: a credit note a crash left
    // pending is booked by that retry (spec: courier 2.6 rule 2: booked once).
    return ok(c, claimView(await settleCredit(c, asClaim(r.reply))));
  });

  define(api, {
    method: "get",
    path: "/business/courier/claims",
    summary: "The courier's claims, newest first; filter by status, client_id, waybill; " +
      "`meta.next_cursor`",
    tag,
    security: "business",
    middleware: [
      business({ anyScope: ["shipments:view-own", "claims:approve"] }),
      courierPlatform,
    ],
    query: BusinessListQuery,
    response: z.array(ClaimAnswer),
    paged: "cursor",
  }, async (c, { query }) => {
    const page = await claimPage(c, businessPrincipalOf(c).business.id, query);
    return ok(c, page.claims.map(claimView), 200, {
      limit: query.limit,
      next_cursor: page.next_cursor,
    });
  });

  define(api, {
    method: "get",
    path: "/business/courier/claims/{id}",
    summary: "One claim with its outcome",
    tag,
    security: "business",
    middleware: [
      business({ anyScope: ["shipments:view-own", "claims:approve"] }),
      courierPlatform,
    ],
    params: ClaimParam,
    response: ClaimAnswer,
  }, async (c, { params }) => {
    const courier = businessPrincipalOf(c).business.id;
    return ok(
      c,
      claimView(asClaim(await read(c, claimActor, courier, params.id, { kind: "get" }))),
    );
  });

  define(api, {
    method: "get",
    path: "/client/claims",
    summary: "The client's claims and their outcome, newest first; `meta.next_cursor`",
    tag: "Client API",
    security: "client",
    middleware: [client()],
    query: ListQuery,
    response: z.array(ClientClaimAnswer),
    paged: "cursor",
  }, async (c, { query }) => {
    const p = clientPrincipalOf(c);
    // Only the calling client's claims (courier 4.6): the filter is the principal's, never the query's.
    const page = await claimPage(c, p.business.id, { ...query, client_id: p.client_id });
    return ok(c, page.claims.map(clientClaimView), 200, {
      limit: query.limit,
      next_cursor: page.next_cursor,
    });
  });
}
