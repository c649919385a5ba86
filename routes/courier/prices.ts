/**
 * Courier 4.1, prices and booking: instant prices (and their aliases), booking a held offer,
 * formal quotations, office booking for a client, finding a shipment by any reference, and the
 * client's account. The client's own shipments are in client_shipments.ts.
 */
import type { Context } from "hono";
import { asClient, courierClientActor } from "../../actors/courier/courier_client.ts";
import { balancesOf } from "../../actors/courier/client_ledger.ts";
import { type Shipment, type shipmentSearchView } from "../../actors/courier/shipment.ts";
import { decimal } from "../../src/domain/money.ts";
import { available, creditUsed } from "../../src/courier/rules/settlement.ts";
import { HEADLINES, HEALTHS, MILESTONES, OWNER_ROLES } from "../../src/courier/rules/lifecycle.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessPrincipalOf, principalName } from "../../src/platform/auth/principal.ts";
import { client, clientPrincipalOf, courierPlatform } from "../../src/courier/auth.ts";
import { type Api, ok } from "../../src/http/app.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { afterCursor, nextCursor } from "../../src/http/cursor.ts";
import { quotePage } from "../../src/courier/queries/quotes.ts";
import { shipmentSearchPage, shipmentsHeld } from "../../src/courier/queries/shipments.ts";
import { ApiError, fromRejection } from "../../src/http/errors.ts";
import { define, z } from "../../src/http/route.ts";
import {
  CalendarDay,
  Country,
  Currency,
  Money,
  orNull,
  UtcInstant,
  wholeNumber,
} from "../../src/http/schemas.ts";
import { Settlement } from "./answers/schemas.ts";
import { read } from "../../src/http/ask.ts";
import {
  AccountBalancesAnswer,
  accountView,
  AgeingAnswer,
  CodAwaitingRemittanceAnswer,
  InvoiceAnswer,
  OtherCurrencyAnswer,
  UnresolvedConversionAnswer,
} from "./billing.ts";
import {
  BOOKING_REFUSALS,
  BookingAnswer,
  bookingView,
  bookOffer,
  makeOffer,
  OFFER_REFUSALS,
  offerView,
  PriceLineAnswer,
  PriceRequest,
  PricesAnswer,
  QuoteAnswer,
  waybillOf,
} from "../../src/courier/flows/booking.ts";
import { frozenServiceTermsView, ServiceTermsAnswer } from "./service_levels.ts";
import {
  bookRequest,
  idempotencyHeader,
  identityOf,
  ONE_CALL_BOOKING_DOCS,
  REQUEST_REFUSALS,
  ShipmentRequest,
} from "./shipment_requests.ts";

const tag = "Prices and booking";
const SEARCH_RESULTS_MAX = 50;
const QUOTES_PAGE_DEFAULT = 100;
const QUOTES_PAGE_MAX = 200;

const QuotesQuery = z.object({
  limit: wholeNumber(1, QUOTES_PAGE_MAX).default(QUOTES_PAGE_DEFAULT),
  cursor: z.string().max(200).optional(),
});

const BookBody = z.object({
  prices_reference: z.string().min(1).max(64),
  // Read as every booking route reads it (trimmed): one request books alike on each of them.
  service_level: ShipmentRequest.shape.service_level,
  dangerous_goods_confirmed: z.boolean().default(false),
});

export async function callerClient(c: Context<AppEnv>) {
  const p = clientPrincipalOf(c);
  return asClient(await read(c, courierClientActor, p.business.id, p.client_id, { kind: "get" }));
}

/** GET /client/account: the client's own account, as the handler below answers it. */
export const ClientAccountAnswer = z.object({
  client_id: z.string(),
  settlement_mode: Settlement,
  currency: Currency.openapi({ description: "The billing currency" }),
  balances: AccountBalancesAnswer,
  balance: Money.openapi({
    description: "balances.prepaid: prepaid funds not yet used; a later charge may take it " +
      "below 0",
  }),
  credit_limit: Money.nullable().openapi({ description: "Credit settlement only, else null" }),
  credit_used: Money.nullable().openapi({
    description: "Credit settlement only: charged and unpaid, recoverable duties included",
  }),
  available: Money.nullable().openapi({
    description: "What the account can cover now, never below 0; null for external settlement",
  }),
  ledger_balance: Money.openapi({
    description: "balances.owed: what the posted entries add up to, negative when funds are held",
  }),
  recoverable_duties: Money.openapi({ description: "Duties paid on the client's behalf" }),
  unallocated_credit: Money.openapi({ description: "Credit on account no invoice took yet" }),
  ageing: orNull(AgeingAnswer).openapi({ description: "null for external settlement" }),
  cod_awaiting_remittance: z.array(CodAwaitingRemittanceAnswer).openapi({
    description: "Cash collected on the client's deliveries and not yet remitted by the courier: " +
      "it lowers what the client owes only once remitted (courier 2.6 rule 6)",
  }),
  unresolved_conversions: z.array(UnresolvedConversionAnswer).openapi({
    description: "Charges in another currency awaiting their exchange rate: in no balance until " +
      "the courier resolves them (courier 2.6 rule 4)",
  }),
  invoices: z.array(InvoiceAnswer).openapi({
    description: "Open invoices and the latest settled ones, newest first",
  }),
  other_currencies: z.array(OtherCurrencyAnswer),
}).openapi("ClientAccount");

export function priceRoutes(api: Api): void {
  // spec: courier 4.1: /client/prices, alias /client/delivery-options, compatibility /client/quote.
  for (const path of ["/client/prices", "/client/delivery-options", "/client/quote"]) {
    define(
      api,
      {
        method: "post",
        path,
        summary: path === "/client/prices"
          ? "Every eligible service with its price lines, held for the operator's hold minutes"
          : "Alias of POST /client/prices",
        tag,
        security: "client",
        middleware: [client()],
        body: PriceRequest,
        response: PricesAnswer,
        refusals: OFFER_REFUSALS,
      },
      async (c, { body }) =>
        ok(c, offerView(await makeOffer(c, await callerClient(c), body, "prices"))),
    );
  }

  define(api, {
    method: "post",
    path: "/client/book",
    summary: "Book an option of held prices; the same request again answers already_booked",
    tag,
    security: "client",
    middleware: [client()],
    body: BookBody,
    status: 201,
    replay: "The same prices_reference",
    response: BookingAnswer,
    refusals: {
      ...BOOKING_REFUSALS,
      not_found: "no held prices of the client's by that prices_reference",
    },
  }, async (c, { body }) => {
    const p = clientPrincipalOf(c);
    const booked = await bookOffer(c, {
      courierId: p.business.id,
      clientId: p.client_id,
      reference: body.prices_reference,
      serviceLevel: body.service_level,
      dangerousGoodsConfirmed: body.dangerous_goods_confirmed,
      by: principalName(p),
    });
    return ok(c, bookingView(c, booked), booked.already_booked ? 200 : 201);
  });

  define(
    api,
    {
      method: "post",
      path: "/client/quotes",
      summary: "Save a formal quotation, held 7 days",
      tag,
      security: "client",
      middleware: [client()],
      body: PriceRequest,
      status: 201,
      response: QuoteAnswer,
      refusals: OFFER_REFUSALS,
    },
    async (c, { body }) =>
      ok(c, offerView(await makeOffer(c, await callerClient(c), body, "quote")), 201),
  );

  define(api, {
    method: "get",
    path: "/client/quotes",
    summary: "The client's saved quotations, newest first, with their prices and booking; " +
      "`status` is `open` (bookable now, up to and including valid_until), `booked` (`booking` " +
      "names the waybill) or `expired` (valid_until passed unbooked); `meta.next_cursor` pages on",
    tag,
    security: "client",
    middleware: [client()],
    query: QuotesQuery,
    paged: "cursor",
    response: z.array(SavedQuoteAnswer),
  }, async (c, { query }) => {
    const p = clientPrincipalOf(c);
    const db = c.get("env").db;
    // Ordered by id after the time, so quotes of one millisecond page without skips or repeats.
    const found = await quotePage<QuoteRow>(db, p.business.id, p.client_id, {
      limit: query.limit,
      after: afterCursor(query.cursor),
    });
    const page = found.rows;
    const waybills = page.map((d) => waybillOf(p.business.id, d.reference));
    const booked = await shipmentsHeld(db, p.business.id, waybills);
    const now = c.get("env").clock.now();
    return ok(
      c,
      page.map((d, i) => quoteListView(d, booked.has(waybills[i]!) ? waybills[i]! : null, now)),
      200,
      { limit: query.limit, next_cursor: nextCursor(found.next) },
    );
  });

  define(api, {
    method: "post",
    path: "/client/quotes/{reference}/book",
    summary:
      "Book a saved quotation (held 7 days) at its price; the collection and delivery dates " +
      "are those of the day it is booked (courier 2.8), as the answer states",
    tag,
    security: "client",
    middleware: [client()],
    params: z.object({ reference: z.string().min(1).max(64) }),
    body: BookBody.omit({ prices_reference: true }),
    status: 201,
    replay: "The same quote reference",
    response: BookingAnswer,
    refusals: { ...BOOKING_REFUSALS, not_found: "held prices are not a saved quotation" },
  }, async (c, { params, body }) => {
    const p = clientPrincipalOf(c);
    const booked = await bookOffer(c, {
      courierId: p.business.id,
      clientId: p.client_id,
      reference: params.reference,
      serviceLevel: body.service_level,
      dangerousGoodsConfirmed: body.dangerous_goods_confirmed,
      by: principalName(p),
      quoteOnly: true,
    });
    return ok(c, bookingView(c, booked), booked.already_booked ? 200 : 201);
  });

  define(api, {
    method: "post",
    path: "/business/shipments",
    summary: "The office books for a client: priced on its card, settled by its mode. Without " +
      "`service_level` the cheapest option is booked. Idempotent as POST /client/shipments: on " +
      "the `Idempotency-Key` header or `idempotency_key`, else on `client_order_reference` " +
      "(with unique_external_reference): the same request again answers 200 " +
      "`already_booked: true`; the same key with other details (another client's too) answers 409",
    tag,
    security: "business",
    middleware: [business({ scope: "shipments:create" }), courierPlatform],
    body: PriceRequest.extend({
      courier_client_id: z.string().min(1).max(64),
      service_level: ShipmentRequest.shape.service_level.optional(),
      dangerous_goods_confirmed: ShipmentRequest.shape.dangerous_goods_confirmed,
      idempotency_key: ShipmentRequest.shape.idempotency_key,
    }),
    status: 201,
    ...ONE_CALL_BOOKING_DOCS,
    response: BookingAnswer,
    refusals: {
      ...REQUEST_REFUSALS,
      validation_failed: `${REQUEST_REFUSALS.validation_failed}; a bad Idempotency-Key header`,
      not_found: "courier_client_id is none of the courier's clients",
    },
  }, async (c, { body }) => {
    const p = businessPrincipalOf(c);
    const courier = p.business.id;
    const header = idempotencyHeader(c);
    const { courier_client_id, ...req } = body;
    // spec: courier 4.1: only a client of the calling courier; another's is not found.
    const found = await c.get("env").runtime.read(courierClientActor, courier, courier_client_id, {
      kind: "get",
    });
    if (!found.ok && found.code === "not_found") {
      throw new ApiError("not_found", `courier_client_id not found: ${courier_client_id}`);
    }
    if (!found.ok) throw fromRejection(found);
    const account = asClient(found.reply);
    const caller = {
      courierId: courier,
      clientId: account.id,
      client: account,
      by: principalName(p),
    };
    // spec: courier 4.1, 7: the same booking request again books nothing new (already_booked),
    // as for the client's own booking; the office's keys are its own, apart from the client's,
    // and one key names one request whatever client it books for. An order reference under
    // unique_external_reference is the client's, whichever channel books it.
    const own = header ? `key:${header}` : identityOf(req, null, account);
    const officeKey = own?.startsWith("key:") ?? false;
    const identity = officeKey ? `office:${own}` : own;
    const booked = await bookRequest(c, caller, req, identity, officeKey ? courier : account.id);
    return ok(c, bookingView(c, booked), booked.already_booked ? 200 : 201);
  });

  define(api, {
    method: "get",
    path: "/business/courier/shipments",
    summary: "Find shipments by waybill, external customer code, billing or order reference " +
      "(exact), newest booked first; `meta.next_cursor` pages on",
    tag,
    security: "business",
    middleware: [business({ scope: "shipments:view-own" }), courierPlatform],
    query: z.object({
      q: z.string().trim().min(1).max(120),
      limit: wholeNumber(1, SEARCH_RESULTS_MAX).default(SEARCH_RESULTS_MAX),
      cursor: z.string().max(200).optional(),
    }),
    paged: "cursor",
    response: z.array(ShipmentFoundAnswer),
  }, async (c, { query }) => {
    const courier = businessPrincipalOf(c).business.id;
    const q = query.q;
    // spec: courier 4.1: exact references, only within the calling courier. A customer code
    // names many shipments: every one is found, newest first, page by page.
    const page = await shipmentSearchPage(c.get("env").db, courier, q, {
      limit: query.limit,
      after: afterCursor(query.cursor),
    });
    return ok(
      c,
      page.rows.map((s) => searchRowView(s as ReturnType<typeof shipmentSearchView>)),
      200,
      { limit: query.limit, next_cursor: nextCursor(page.next) },
    );
  });

  define(api, {
    method: "get",
    path: "/client/account",
    summary: "The client's own balances, credit, ageing, COD awaiting remittance, conversions " +
      "awaiting their rate, and invoices",
    description: "`balances` has the courier's billing view's names and signs: `prepaid` (funds " +
      "held, positive), `receivable`, `recoverable_duties`, `unallocated_credit` and `owed` " +
      "(positive when the client owes, negative when in credit). `balance` is `balances.prepaid` " +
      "and `ledger_balance` is `balances.owed`. `ageing` buckets what is owed by days past due; " +
      "its `credit` is what is held beyond it, so the buckets less `credit` are `owed`. A credit " +
      "invoice (negative `amount`) shows `paid: 0` and its `credited_to_account`.",
    tag: "Client billing",
    security: "client",
    middleware: [client()],
    response: ClientAccountAnswer,
  }, async (c) => {
    const account = await callerClient(c);
    const s = account.settings;
    const cur = s.billing_currency;
    const money = balancesOf(account);
    const can = available(s, money);
    const ledger = accountView(account, c.get("env").clock.now());
    // Only a credit account has a credit line (courier 4.2), as the courier's billing view shows.
    const credit = s.settlement_mode === "credit";
    return ok(c, {
      client_id: account.id,
      settlement_mode: s.settlement_mode,
      currency: cur,
      // The courier's billing view's names and signs (prepaid funds positive, `owed` positive
      // when the client owes); `balance` and `ledger_balance` below are those two again, kept
      // for callers that read them.
      balances: ledger.balances,
      balance: decimal(account.money.prepaid_minor, cur),
      credit_limit: credit ? decimal(s.credit_limit_minor, cur) : null,
      credit_used: credit ? decimal(creditUsed(money), cur) : null,
      available: can === null ? null : decimal(can, cur),
      // spec: courier 2.6: what the posted entries add up to, duties apart, and the invoices.
      ledger_balance: ledger.balances.owed,
      recoverable_duties: ledger.balances.recoverable_duties,
      unallocated_credit: ledger.balances.unallocated_credit,
      ageing: ledger.ageing,
      // What the courier's billing view shows of the client's COD and pending conversions.
      cod_awaiting_remittance: ledger.cod_awaiting_remittance,
      unresolved_conversions: ledger.unresolved_conversions,
      invoices: ledger.invoices,
      other_currencies: ledger.other_currencies,
    });
  });
}

// ---- Answers (documentation: tests/http/response_schemas_test.ts holds answers to them).

/** spec: courier 2.3: the frozen pricing snapshot (pricingView). */
export const FrozenPricingAnswer = z.object({
  prices_reference: z.string(),
  rate_card_id: z.string(),
  rate_card_version: z.number().int(),
  service_level: z.string(),
  service_name: z.string(),
  chargeable_kg: z.number(),
  lines: z.array(PriceLineAnswer),
  tax: Money,
  total: Money,
  currency: Currency,
  payer: z.enum(["client"]),
  settlement_mode: Settlement,
  promise: z.object({
    collection_on: CalendarDay,
    earliest_delivery: CalendarDay,
    latest_delivery: CalendarDay,
  }).openapi("DeliveryPromise"),
}).openapi("FrozenPricing");

const PartyAnswer = z.object({
  name: z.string().nullable(),
  address: z.string().nullable(),
  phone: z.string().nullable(),
  lat: z.number().nullable(),
  lng: z.number().nullable(),
}).openapi("ShipmentParty");

/** A shipment as booked, with its frozen pricing and service terms (shipmentDetailView). */
const ShipmentDetailFields = {
  waybill: z.string(),
  status: z.enum(HEADLINES),
  booked_at: UtcInstant,
  from_country: Country,
  to_country: Country,
  sender: PartyAnswer,
  recipient: PartyAnswer,
  parcels: z.array(
    z.object({
      weight_kg: z.number(),
      length_cm: z.number(),
      width_cm: z.number(),
      height_cm: z.number(),
      contents: z.string().optional().openapi({ description: "As booked for this parcel" }),
    }).openapi("Parcel"),
  ),
  contents: z.string().nullable(),
  declared_value: Money.nullable().openapi({
    description: "As priced, in the pricing currency; null when none was declared",
  }),
  liability_cover: z.boolean().openapi({ description: "Whether liability cover was asked" }),
  external_customer_code: z.string().nullable(),
  external_billing_reference: z.string().nullable(),
  client_order_reference: z.string().nullable(),
  dangerous_goods_confirmed: z.boolean(),
  pricing: FrozenPricingAnswer,
  service_terms: ServiceTermsAnswer,
};

/** spec: courier 2.3: a found shipment with its next obligation and health (searchRowView). */
export const ShipmentFoundAnswer = z.object({
  ...ShipmentDetailFields,
  health: z.enum(HEALTHS).nullable(),
  next_milestone: z.enum(MILESTONES).nullable(),
  next_due_at: UtcInstant.nullable(),
  next_owner: z.enum(OWNER_ROLES).nullable(),
  estimated_delivery_on: CalendarDay,
}).openapi("ShipmentFound");

/** spec: courier 4.1: a saved quotation in the list (quoteListView). */
export const SavedQuoteAnswer = z.object({
  quote_reference: z.string(),
  status: z.enum(["open", "booked", "expired"]),
  created_at: UtcInstant,
  valid_until: UtcInstant,
  options: z.array(z.object({ code: z.string(), total: Money, currency: Currency })),
  booking: z.object({ waybill: z.string() }).nullable(),
}).openapi("SavedQuote");

/** The fields a shipment read shows (no tracking token: callers add the tracking_url). */
type ShipmentFields = Omit<Shipment, "tracking_token" | "tracking_token_hash">;

export function shipmentDetailView(s: ShipmentFields) {
  return {
    waybill: s.waybill,
    status: s.status,
    booked_at: new Date(s.booked_at).toISOString(),
    from_country: s.from_country,
    to_country: s.to_country,
    sender: s.sender,
    recipient: s.recipient,
    parcels: s.parcels,
    contents: s.contents,
    // spec: courier 2.3: the frozen pricing snapshot keeps its inputs, these two with the parcels.
    declared_value: s.declared_value_minor === null
      ? null
      : decimal(s.declared_value_minor, s.pricing.currency),
    liability_cover: s.liability_cover,
    external_customer_code: s.references.external_customer_code,
    external_billing_reference: s.references.external_billing_reference,
    client_order_reference: s.references.client_order_reference,
    dangerous_goods_confirmed: s.dangerous_goods_confirmed,
    pricing: pricingView(s.pricing),
    service_terms: frozenServiceTermsView(s.service_terms),
  };
}

/** A shipment's frozen pricing snapshot (courier 2.3), amounts as decimals in its currency. */
export function pricingView(pricing: Shipment["pricing"]) {
  const cur = pricing.currency;
  return {
    prices_reference: pricing.prices_reference,
    rate_card_id: pricing.rate_card_id,
    rate_card_version: pricing.rate_card_version,
    service_level: pricing.service.code,
    service_name: pricing.service.name,
    chargeable_kg: pricing.chargeable_grams / 1000,
    lines: pricing.lines.map((l) => ({
      code: l.code,
      label: l.label,
      amount: decimal(l.amount_minor, cur),
      ...(l.included === undefined ? {} : { included: l.included }),
      ...(l.tax_minor === undefined ? {} : { tax: decimal(l.tax_minor, cur) }),
    })),
    tax: decimal(pricing.tax_minor, cur),
    total: decimal(pricing.total_minor, cur),
    currency: cur,
    payer: pricing.payer,
    settlement_mode: pricing.settlement_mode,
    promise: pricing.promise,
  };
}

/**
 * spec: courier 2.3: every shipment carries next_milestone, next_due_at, next_owner,
 * estimated_delivery_on, its headline status and (3.2, what operations sees) its health.
 */
function searchRowView(s: ShipmentFields) {
  // A row projected before the lifecycle (shipment version 1) has none of these: null.
  return {
    ...shipmentDetailView(s),
    health: s.health ?? null,
    next_milestone: s.next_milestone ?? null,
    next_due_at: typeof s.next_due_at === "number" ? new Date(s.next_due_at).toISOString() : null,
    next_owner: s.next_owner ?? null,
    estimated_delivery_on: s.estimated_delivery_on ?? s.pricing.promise.earliest_delivery,
  };
}

/** A quotation as projected (priceOfferActor.project). */
interface QuoteRow {
  reference: string;
  valid_until: number;
  created_at: number;
  options: { code: string; total_minor: number; currency: string }[];
}

/**
 * A saved quote's state (courier 4.1, 8: held 7 days): `booked` once a booking made it, else
 * `open` up to and including its valid_until (as booking checks it), then `expired`.
 */
function quoteStatus(d: QuoteRow, waybill: string | null, now: number) {
  if (waybill !== null) return "booked";
  return now > d.valid_until ? "expired" : "open";
}

/** spec: courier 4.1: a saved quote with what it prices and, once booked, its waybill. */
function quoteListView(d: QuoteRow, waybill: string | null, now: number) {
  return {
    quote_reference: d.reference,
    status: quoteStatus(d, waybill, now),
    created_at: new Date(d.created_at).toISOString(),
    valid_until: new Date(d.valid_until).toISOString(),
    options: d.options.map((o) => ({
      code: o.code,
      total: decimal(o.total_minor, o.currency),
      currency: o.currency,
    })),
    booking: waybill === null ? null : { waybill },
  };
}
