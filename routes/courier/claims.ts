/**
 * Claims (courier 4.6 `GET /client/claims`; 5 scope `claims:approve`; 2.4 claim terms). The
 * courier files a claim for a client's shipment (shipments:create or runs:operate) within the
 * claim window of the shipment's frozen rate card; a holder of claims:approve decides it once.
 * An approved amount is booked once under the claim's reference, in full: a credit note on the
 * shipment's booked price (2.6 rule 5) up to what it still holds, the rest a `compensation`
 * entry (2.4 liability cover); when the ledger refuses it (say, an unresolved FX rate) the
 * decision stands and the claim says why nothing was booked. The client sees its own claims
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
} from "../../actors/courier/claim/mod.ts";
import { entryAsk } from "../../actors/courier/client_ledger.ts";
import { type BookClaimNote, decideClaim, fileClaim } from "../../src/courier/flows/claims.ts";
import { Refused } from "../../src/runtime/actor.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { client, clientPrincipalOf, courierPlatform } from "../../src/courier/auth.ts";
import { type Api, ok } from "../../src/http/app.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { afterCursor, nextCursor } from "../../src/http/cursor.ts";
import { claimPage as claimsPage } from "../../src/courier/queries/claims.ts";
import { asApiError } from "../../src/http/errors.ts";
import { define, z } from "../../src/http/route.ts";
import { Currency, PlainText, Waybill, wholeNumber } from "../../src/http/schemas.ts";
import { read } from "../../src/http/ask.ts";
import { bookNote } from "../../src/courier/flows/billing/notes.ts";
import { ClaimAnswer, claimView, ClientClaimAnswer, clientClaimView } from "./answers/claims.ts";

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
  amount: Amount.openapi({
    description: "Above zero (0 is refused 422 invalid_amount), in the shipment's currency",
    example: "120.00",
  }),
  /** The shipment's currency; another is refused. */
  currency: Currency.optional(),
  description: Text(CLAIM_TEXT_CHARS_MAX),
  // spec: courier 2.6: the evidence of the claim's credit note (PlainText); as `file:sha256:<hex>`
  // it names an evidence file the courier holds.
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
}).openapi("DecideClaim", {
  // approved_amount goes only with partly_approved: the sampled one (approved, 0) is refused.
  example: { outcome: "approved", reason: "Damage confirmed by the depot's photos" },
});

const ClaimParam = z.object({ id: z.string().min(1).max(64) });

const ListQuery = z.object({
  status: z.enum(CLAIM_STATUSES).optional(),
  waybill: Waybill.optional(),
  limit: wholeNumber(1, CLAIMS_PAGE_MAX).default(CLAIMS_PAGE_DEFAULT),
  cursor: z.string().max(200).optional(),
});

const BusinessListQuery = ListQuery.extend({ client_id: z.string().min(1).max(64).optional() });

/**
 * Billing's note on the claim's shipment's booked price entry: the entry is the one a payment
 * quoting the waybill holds too. A refusal of the entry's read is thrown as a domain refusal.
 */
function claimNote(c: Context<AppEnv>): BookClaimNote {
  return async (claim, note) => {
    try {
      return await bookNote(
        c.get("env"),
        claim.courier_id,
        claim.client_id,
        { reference: claim.waybill, kind: "shipment" },
        () => note,
        entryAsk(`note:${note.reference}`),
      );
    } catch (e) {
      const refused = asApiError(e);
      if (!refused) throw e;
      const { code, message, extra } = refused;
      throw new Refused({ ok: false, code, message, details: extra });
    }
  };
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
      validation_failed: "a field is invalid; evidence written as `file:sha256:<hex>` names no " +
        "evidence file of the courier's",
      currency_mismatch: "not the shipment's currency",
      invalid_amount: "the amount is not above zero",
      claim_window_closed: "the claim window of the shipment's rate card has closed",
      claim_conflict: "the shipment already has a claim, filed with other details",
      claim_above_limit: "above the declared value under liability cover, or without cover " +
        "above what was charged",
      shipment_cancelled: "the shipment was cancelled: nothing was carried",
    },
  }, async (c, { body }) => {
    const { env, tenant, by } = businessCall(c);
    const r = await fileClaim(env.runtime, tenant, {
      waybill: body.waybill,
      kind: body.kind,
      amount: body.amount,
      currency: body.currency,
      description: body.description,
      evidence: body.evidence ?? null,
      by,
    });
    return ok(c, claimView(r.claim), r.created ? 201 : 200);
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
    const { env, tenant, by } = businessCall(c);
    const claim = await decideClaim(env, {
      courier: tenant,
      id: params.id,
      bookNote: claimNote(c),
    }, {
      outcome: body.outcome,
      approved_amount: body.approved_amount,
      reason: body.reason ?? null,
      by,
    });
    return ok(c, claimView(claim));
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
    const page = await claimPage(c, businessCall(c).tenant, query);
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
    const { tenant } = businessCall(c);
    return ok(c, claimView(asClaim(await read(c, claimActor, tenant, params.id, { kind: "get" }))));
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
