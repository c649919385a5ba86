/**
 * Courier 4.1, prices and booking: instant prices (and their aliases), booking a held offer,
 * formal quotations, office booking for a client, finding a shipment by any reference, and the
 * client's account. The client's own shipments are in client_shipments.ts.
 */
import { shipmentSearchPage, shipmentsHeld } from "../../src/courier/queries/shipments.ts";
import { quotePage } from "../../src/courier/queries/quotes.ts";
import { afterCursor, nextCursor } from "../../src/http/cursor.ts";
import { balancesOf } from "../../actors/courier/client_ledger.ts";
import { type shipmentSearchView } from "../../actors/courier/shipment/mod.ts";
import { decimal } from "../../src/domain/money.ts";
import { available, creditUsed } from "../../src/courier/rules/settlement.ts";
import { waybillOf } from "../../src/courier/rules/waybill.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { principalName } from "../../src/platform/auth/principal.ts";
import {
  callerClient,
  client,
  clientPrincipalOf,
  courierPlatform,
} from "../../src/courier/auth.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { idempotencyHeader } from "../../src/http/idempotency.ts";
import { define, z } from "../../src/http/route.ts";
import { Currency, Money, orNull, wholeNumber } from "../../src/http/schemas.ts";
import {
  bookForClient,
  BOOKING_REFUSALS,
  bookOffer,
  makeOffer,
  OFFER_REFUSALS,
  REQUEST_REFUSALS,
} from "../../src/courier/flows/booking/mod.ts";
import { Settlement } from "./answers/schemas.ts";
import {
  AccountBalancesAnswer,
  accountView,
  AgeingAnswer,
  CodAwaitingRemittanceAnswer,
  InvoiceAnswer,
  OtherCurrencyAnswer,
  UnresolvedConversionAnswer,
} from "./answers/ledger.ts";
import {
  BookingAnswer,
  bookingView,
  offerView,
  ONE_CALL_BOOKING_DOCS,
  PARCEL_EXAMPLE,
  PriceRequest,
  PricesAnswer,
  QuoteAnswer,
  quoteListView,
  type QuoteRow,
  SavedQuoteAnswer,
  ShipmentRequest,
  withRequestRetryAfter,
} from "./answers/booking.ts";
import { searchRowView, ShipmentFoundAnswer } from "./answers/shipments.ts";

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
          ? "Every eligible service with its price lines, held for the operator's hold " +
            "minutes, never past the next cut-off that would move an option's collection " +
            "(valid_until)"
          : "Alias of POST /client/prices",
        tag,
        security: "client",
        middleware: [client()],
        body: PriceRequest,
        response: PricesAnswer,
        refusals: OFFER_REFUSALS,
      },
      async (c, { body }) =>
        ok(
          c,
          offerView(await makeOffer(c.get("env"), await callerClient(c), body, { kind: "prices" })),
        ),
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
    const booked = await bookOffer(c.get("env"), {
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
      ok(
        c,
        offerView(await makeOffer(c.get("env"), await callerClient(c), body, { kind: "quote" })),
        201,
      ),
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
    const waybills = page.map((d) => waybillOf(p.business.id, d.rebooked_as ?? d.reference));
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
      "are those of the day it is booked (courier 2.8), as the answer states. A booking of it " +
      "that stopped before its charge while another booking took its external reference is " +
      "answered, waking or sent again, as a duplicate of the booking holding the reference " +
      "now; once the reference is free the quote is booked again, under a new waybill, " +
      "while it holds",
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
    const booked = await bookOffer(c.get("env"), {
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
      "`idempotency_key`, or the `Idempotency-Key` header when the body has none, else on " +
      "`client_order_reference` " +
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
    }).openapi({
      // The client's id is the courier's own: the example names one in the form ids take.
      example: { ...PARCEL_EXAMPLE, courier_client_id: "cli_0123456789abcdef" },
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
    const { env, tenant, by } = businessCall(c);
    const header = idempotencyHeader(c);
    const { courier_client_id, ...req } = body;
    const booked = await bookForClient(
      env,
      { courierId: tenant, by },
      courier_client_id,
      req,
      header,
    ).catch(withRequestRetryAfter);
    return ok(c, bookingView(c, booked), booked.already_booked ? 200 : 201);
  });

  define(api, {
    method: "get",
    path: "/business/courier/shipments",
    summary: "Find shipments whose waybill, external customer code, billing or order " +
      "reference, consignee's or client's name starts with `q` (any case), newest booked " +
      "first; `meta.next_cursor` pages on",
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
    const { env, tenant } = businessCall(c);
    const q = query.q;
    // spec: courier 4.1: exact references, only within the calling courier. A customer code
    // names many shipments: every one is found, newest first, page by page.
    const page = await shipmentSearchPage(env.db, tenant, q, {
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
