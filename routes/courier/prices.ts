/**
 * Courier 4.1, prices and booking: instant prices (and their aliases), booking a held offer,
 * formal quotations, office booking for a client, finding a shipment by any reference, and the
 * client's account. The client's own shipments are in client_shipments.ts.
 */
import { sql } from "kysely";
import type { Context } from "hono";
import { asClient, courierClientActor } from "../../actors/courier_client.ts";
import type { Shipment, shipmentSearchView } from "../../actors/shipment.ts";
import { available } from "../../src/domain/settlement.ts";
import {
  business,
  businessPrincipalOf,
  client,
  clientPrincipalOf,
  courierPlatform,
  principalName,
} from "../../src/http/auth.ts";
import { type Api, ok } from "../../src/http/app.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { define, z } from "../../src/http/route.ts";
import { read } from "../ask.ts";
import { accountView } from "./billing.ts";
import {
  bookingView,
  bookOffer,
  decimal,
  makeOffer,
  offerView,
  PriceRequest,
} from "./booking_flow.ts";

const tag = "Prices and booking";
const SEARCH_RESULTS_MAX = 50;
const QUOTES_PAGE_MAX = 100;

const BookBody = z.object({
  prices_reference: z.string().min(1).max(64),
  service_level: z.string().min(1).max(64),
  dangerous_goods_confirmed: z.boolean().default(false),
});

export async function callerClient(c: Context<AppEnv>) {
  const p = clientPrincipalOf(c);
  return asClient(await read(c, courierClientActor, p.business.id, p.client_id, { kind: "get" }));
}

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
    },
    async (c, { body }) =>
      ok(c, offerView(await makeOffer(c, await callerClient(c), body, "quote")), 201),
  );

  define(api, {
    method: "get",
    path: "/client/quotes",
    summary: "The client's saved quotations, newest first",
    tag,
    security: "client",
    middleware: [client()],
  }, async (c) => {
    const p = clientPrincipalOf(c);
    const rows = await c.get("env").db.selectFrom("snapshots")
      .select(["id", "data"])
      .where("type", "=", "price_offer")
      .where("tenant", "=", p.business.id)
      .where(sql<string>`data->>'kind'`, "=", "quote")
      .where(sql<string>`data->>'client_id'`, "=", p.client_id)
      .orderBy(sql`(data->>'created_at')::bigint`, "desc")
      .limit(QUOTES_PAGE_MAX)
      .execute();
    return ok(c, rows.map((r) => quoteListView(r.data)));
  });

  define(api, {
    method: "post",
    path: "/client/quotes/{reference}/book",
    summary: "Book a saved quotation",
    tag,
    security: "client",
    middleware: [client()],
    params: z.object({ reference: z.string().min(1).max(64) }),
    body: BookBody.omit({ prices_reference: true }),
    status: 201,
  }, async (c, { params, body }) => {
    const p = clientPrincipalOf(c);
    const booked = await bookOffer(c, {
      courierId: p.business.id,
      clientId: p.client_id,
      reference: params.reference,
      serviceLevel: body.service_level,
      dangerousGoodsConfirmed: body.dangerous_goods_confirmed,
      by: principalName(p),
    });
    return ok(c, bookingView(c, booked), booked.already_booked ? 200 : 201);
  });

  define(api, {
    method: "post",
    path: "/business/shipments",
    summary: "The office books for a client: priced on its card, settled by its mode",
    tag,
    security: "business",
    middleware: [business({ scope: "shipments:create" }), courierPlatform],
    body: PriceRequest.extend({
      courier_client_id: z.string().min(1).max(64),
      service_level: z.string().min(1).max(64).optional(),
      dangerous_goods_confirmed: z.boolean().default(false),
    }),
    status: 201,
  }, async (c, { body }) => {
    const p = businessPrincipalOf(c);
    const courier = p.business.id;
    const account = asClient(
      await read(c, courierClientActor, courier, body.courier_client_id, { kind: "get" }),
    );
    const offer = await makeOffer(c, account, body, "prices");
    const cheapest = [...offer.options].sort((a, b) => a.total_minor - b.total_minor)[0]!;
    const booked = await bookOffer(c, {
      courierId: courier,
      clientId: account.id,
      reference: offer.reference,
      serviceLevel: body.service_level ?? cheapest.code,
      dangerousGoodsConfirmed: body.dangerous_goods_confirmed,
      by: principalName(p),
    });
    return ok(c, bookingView(c, booked), 201);
  });

  define(api, {
    method: "get",
    path: "/business/courier/shipments",
    summary: "Find shipments by waybill, external customer code, billing or order reference",
    tag,
    security: "business",
    middleware: [business({ scope: "shipments:view-own" }), courierPlatform],
    query: z.object({ q: z.string().trim().min(1).max(120) }),
  }, async (c, { query }) => {
    const courier = businessPrincipalOf(c).business.id;
    const q = query.q;
    const rows = await c.get("env").db.selectFrom("snapshots")
      .select(["id", "data"])
      .where("type", "=", "shipment")
      .where("tenant", "=", courier)
      .where((eb) =>
        eb.or([
          eb("id", "=", q),
          eb(sql<string>`data->>'external_customer_code'`, "=", q),
          eb(sql<string>`data->>'external_billing_reference'`, "=", q),
          eb(sql<string>`data->>'client_order_reference'`, "=", q),
        ])
      )
      .limit(SEARCH_RESULTS_MAX)
      .execute();
    return ok(c, rows.map((r) => shipmentListView(r.data)));
  });

  define(api, {
    method: "get",
    path: "/client/account",
    summary: "The client's own balance, credit, ledger balance and invoices",
    tag,
    security: "client",
    middleware: [client()],
  }, async (c) => {
    const account = await callerClient(c);
    const s = account.settings;
    const cur = s.billing_currency;
    const can = available(s, account.money);
    const ledger = accountView(account, c.get("env").clock.now());
    return ok(c, {
      client_id: account.id,
      settlement_mode: s.settlement_mode,
      currency: cur,
      balance: decimal(account.money.prepaid_minor, cur),
      credit_limit: decimal(s.credit_limit_minor, cur),
      credit_used: decimal(account.money.receivable_minor, cur),
      available: can === null ? null : decimal(can, cur),
      // spec: courier 2.6: what the posted entries add up to, duties apart, and the invoices.
      ledger_balance: ledger.balances.owed,
      recoverable_duties: ledger.balances.recoverable_duties,
      unallocated_credit: ledger.balances.unallocated_credit,
      ageing: ledger.ageing,
      invoices: ledger.invoices,
    });
  });
}

/** The fields a shipment read shows (no tracking token: callers add the tracking_url). */
type ShipmentFields = Omit<Shipment, "tracking_token" | "tracking_token_hash">;

export function shipmentDetailView(s: ShipmentFields) {
  const cur = s.pricing.currency;
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
    external_customer_code: s.references.external_customer_code,
    external_billing_reference: s.references.external_billing_reference,
    client_order_reference: s.references.client_order_reference,
    dangerous_goods_confirmed: s.dangerous_goods_confirmed,
    pricing: {
      prices_reference: s.pricing.prices_reference,
      rate_card_id: s.pricing.rate_card_id,
      rate_card_version: s.pricing.rate_card_version,
      service_level: s.pricing.service.code,
      service_name: s.pricing.service.name,
      chargeable_kg: s.pricing.chargeable_grams / 1000,
      lines: s.pricing.lines.map((l) => ({
        code: l.code,
        label: l.label,
        amount: decimal(l.amount_minor, cur),
        ...(l.included === undefined ? {} : { included: l.included }),
        ...(l.tax_minor === undefined ? {} : { tax: decimal(l.tax_minor, cur) }),
      })),
      tax: decimal(s.pricing.tax_minor, cur),
      total: decimal(s.pricing.total_minor, cur),
      currency: cur,
      payer: s.pricing.payer,
      settlement_mode: s.pricing.settlement_mode,
      promise: s.pricing.promise,
    },
    service_terms: s.service_terms,
  };
}

function shipmentListView(data: unknown) {
  return shipmentDetailView(data as ReturnType<typeof shipmentSearchView>);
}

function quoteListView(data: unknown) {
  const d = data as {
    reference: string;
    valid_until: number;
    created_at: number;
    booking: unknown;
  };
  return {
    quote_reference: d.reference,
    created_at: new Date(d.created_at).toISOString(),
    valid_until: new Date(d.valid_until).toISOString(),
    booking: d.booking,
  };
}
