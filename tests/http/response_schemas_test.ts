/**
 * The documented success schemas (RouteSpec.response) of the money routes against real answers,
 * checked by tests/helpers/documented.ts.
 */
import assert from "node:assert/strict";
import { courierClientActor } from "../../actors/courier/courier_client.ts";
import { z } from "../../src/http/route.ts";
import {
  ClientBillingAnswer,
  CodCollectedAnswer,
  FxResolvedAnswer,
  InvoicesIssuedAnswer,
  PaymentAnswer,
  PostingAnswer,
  TopUpAnswer,
} from "../../routes/courier/answers/billing.ts";
import {
  BookingAnswer,
  PricesAnswer,
  QuoteAnswer,
  SavedQuoteAnswer,
} from "../../routes/courier/answers/booking.ts";
import { ClientAccountAnswer } from "../../routes/courier/prices.ts";
import { ShipmentFoundAnswer } from "../../routes/courier/answers/shipments.ts";
import { ClientCreatedAnswer, CourierClientAnswer } from "../../routes/courier/answers/clients.ts";
import { RateCardAnswer, RateCardVersionAnswer } from "../../routes/courier/answers/rate_cards.ts";
import {
  CalendarAnswer,
  FacilityAnswer,
  ServiceLevelAnswer,
} from "../../routes/courier/answers/service_levels.ts";
import { type TestEnv, withTestEnv } from "../helpers/test_env.ts";
import { documented, listed } from "../helpers/documented.ts";
import {
  billingAction as act,
  type Client,
  clientKey,
  type Courier,
  DOMESTIC,
  newClient,
  newCourier,
  postCharge as charge,
  topUp,
} from "../helpers/courier.ts";

const DAY = 24 * 60 * 60 * 1000;
const CREDIT = { settlement_mode: "credit", credit_limit: "5000.00", payment_days: 30 };
/** Lines beyond transport and tax: collection, service level, cover, discount, surcharge. */
const CARD = { collection_fee: 5, discount_pct: 10, surcharge_pct: 2, liability_cover_pct: 1.5 };
const CROSS_BORDER = {
  ...DOMESTIC,
  to_country: "ZA",
  declared_value: "1000.00",
  liability_cover: true,
};
async function ready(t: TestEnv, settings: Record<string, unknown>): Promise<[Courier, Client]> {
  const courier = await newCourier(t, CARD);
  return [courier, await newClient(t, courier, settings)];
}

function prices(t: TestEnv, client: Client, body: Record<string, unknown> = DOMESTIC) {
  return t.call("POST", "/client/prices", { headers: clientKey(client), body });
}

/** Prices DOMESTIC and books express: the booking's data. */
async function book(t: TestEnv, client: Client) {
  const offer = documented(PricesAnswer, await prices(t, client), 200, "prices");
  const body = {
    prices_reference: offer.prices_reference,
    service_level: "express",
    dangerous_goods_confirmed: true,
  };
  const r = await t.call("POST", "/client/book", { headers: clientKey(client), body });
  return documented(BookingAnswer, r, 201, "book");
}

async function billing(t: TestEnv, courier: Courier, client: Client, period?: string) {
  await t.settle();
  const r = await t.call(
    "GET",
    `/business/courier/clients/${client.id}/billing${period ? `?period=${period}` : ""}`,
    { key: courier.business.api_key },
  );
  return documented(ClientBillingAnswer, r, 200, `billing ${period ?? ""}`);
}

async function account(t: TestEnv, client: Client) {
  const r = await t.call("GET", "/client/account", { headers: clientKey(client) });
  return documented(ClientAccountAnswer, r, 200, "account");
}

Deno.test("answers: prices, quotes and bookings are what their schemas document, replays included", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, {});
    await topUp(t, courier, client, "5000.00");
    for (const path of ["/client/prices", "/client/delivery-options", "/client/quote"]) {
      const r = await t.call("POST", path, { headers: clientKey(client), body: DOMESTIC });
      const offer = documented(PricesAnswer, r, 200, path);
      assert.equal(offer.options[0].possible_later_charges, undefined, "domestic: none");
      assert.deepEqual(offer.options[0].lines.map((l: { code: string }) => l.code), [
        "transport",
        "collection",
        "service_level",
        "discount",
        "surcharge",
        "tax",
      ]);
    }
    const abroad = documented(PricesAnswer, await prices(t, client, CROSS_BORDER), 200, "abroad");
    assert.match(abroad.options[0].possible_later_charges, /^Cross-border BW to ZA/);
    assert.ok(abroad.options[0].lines.some((l: { code: string }) => l.code === "liability_cover"));
    assert.equal(abroad.account.available, 5000);

    // POST /client/book, and the same request again.
    const offer = documented(PricesAnswer, await prices(t, client), 200, "prices");
    const bookBody = {
      prices_reference: offer.prices_reference,
      service_level: "economy",
      dangerous_goods_confirmed: false,
    };
    const booked = documented(
      BookingAnswer,
      await t.call("POST", "/client/book", { headers: clientKey(client), body: bookBody }),
      201,
      "book",
    );
    assert.equal(booked.already_booked, false);
    const again = documented(
      BookingAnswer,
      await t.call("POST", "/client/book", { headers: clientKey(client), body: bookBody }),
      200,
      "book again",
    );
    assert.deepEqual(again, { ...booked, already_booked: true });

    // POST /client/quotes and its booking, and the booking again.
    const quote = documented(
      QuoteAnswer,
      await t.call("POST", "/client/quotes", { headers: clientKey(client), body: CROSS_BORDER }),
      201,
      "quote",
    );
    assert.equal(quote.quote_reference, quote.prices_reference);
    const quoteBook = (status: number, what: string) =>
      t.call("POST", `/client/quotes/${quote.quote_reference}/book`, {
        headers: clientKey(client),
        body: { service_level: "express" },
      }).then((r) => documented(BookingAnswer, r, status, what));
    assert.equal((await quoteBook(201, "book quote")).already_booked, false);
    assert.equal((await quoteBook(200, "book quote again")).already_booked, true);

    // POST /client/shipments on an Idempotency-Key, and the same again.
    const shipment = (status: number, what: string) =>
      t.call("POST", "/client/shipments", {
        headers: { ...clientKey(client), "Idempotency-Key": "order-1" },
        body: { ...DOMESTIC, service_level: "express" },
      }).then((r) => documented(BookingAnswer, r, status, what));
    assert.equal((await shipment(201, "client shipment")).already_booked, false);
    assert.equal((await shipment(200, "client shipment again")).already_booked, true);

    // POST /business/shipments (the cheapest option without a service level), and again.
    const office = (status: number, what: string) =>
      t.call("POST", "/business/shipments", {
        key: courier.business.api_key,
        body: { ...DOMESTIC, courier_client_id: client.id, idempotency_key: "office-1" },
      }).then((r) => documented(BookingAnswer, r, status, what));
    assert.equal((await office(201, "office shipment")).service_level, "economy");
    assert.equal((await office(200, "office shipment again")).already_booked, true);

    // A prepaid account: funds, no credit line.
    const own = await account(t, client);
    assert.equal(own.settlement_mode, "prepaid");
    assert.equal(own.credit_limit, null);
    assert.equal(own.available, own.balance);
    assert.ok(own.ageing);
    const view = await billing(t, courier, client);
    assert.equal(view.credit, null);
    assert.equal(view.statement.entries.length, 5, "a top-up and four bookings");
    assert.equal(view.statement.entries[0].kind, "top_up");
  }));

Deno.test("answers: a credit account's billing view and own account are what their schemas document", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, CREDIT);
    const { waybill } = await book(t, client);
    await charge(t, courier, client, {
      reference: "DUT-1",
      entry_kind: "duties",
      amount_minor: 20_000,
      recoverable: true,
      evidence_path: "s3://evidence/dut-1.pdf",
      source_event: "customs.duties:crs_1",
      shipment: waybill,
    });
    await charge(t, courier, client, {
      reference: "CUS-ZA",
      amount_minor: 10_000,
      currency: "ZAR",
    });
    await charge(t, courier, client, {
      reference: "CUS-ZA-2",
      amount_minor: 4_000,
      currency: "ZAR",
    });
    const resolved = await act(t, courier, client, "resolve-fx", {
      entry_reference: "CUS-ZA-2",
      rate: "0.7525",
      source: "Bank of Botswana 2026-11-02",
    });
    assert.equal(resolved.status, 201, JSON.stringify(resolved.body));
    const cod = await t.env.runtime.ask(courierClientActor, courier.business.id, client.id, {
      kind: "cod_collected",
      waybill,
      amount_minor: 30_000,
      currency: "BWP",
      by: "driver:1",
    });
    assert.ok(cod.ok);
    const issued = await t.call("POST", `/business/courier/clients/${client.id}/invoice`, {
      key: courier.business.api_key,
      body: { period: "2026-11" },
    });
    assert.equal(issued.status, 201, JSON.stringify(issued.body));
    const paid = await act(t, courier, client, "payment", {
      amount: "50.00",
      currency: "BWP",
      reference: "P-1",
    });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
    t.clock.advanceBy(45 * DAY);
    await charge(t, courier, client, {
      reference: "W-1",
      entry_kind: "waiting",
      amount_minor: 1_000,
    });

    const now = await billing(t, courier, client);
    assert.ok(now.credit);
    assert.ok(now.ageing);
    assert.equal(now.cod_awaiting_remittance.length, 1);
    assert.equal(now.unresolved_conversions.length, 1);
    assert.equal(now.invoices.length, 1);
    assert.equal(now.invoices[0].days_past_due, 15);
    assert.equal(now.payments.length, 1);
    assert.equal(now.payments[0].allocations.length, 1);
    assert.equal(now.statement.entries.length, 1);
    const nov = await billing(t, courier, client, "2026-11");
    const entries = nov.statement.entries;
    assert.deepEqual(
      entries.map((e: { reference: string }) => e.reference),
      [waybill, "DUT-1", "CUS-ZA", "CUS-ZA-2", "P-1"],
    );
    const fx = entries.find((e: { reference: string }) => e.reference === "CUS-ZA-2");
    assert.equal(fx.original_amount, 40);
    assert.equal(fx.original_currency, "ZAR");
    assert.equal(fx.fx_rate, "0.7525");
    assert.ok(fx.charged_at);
    assert.equal(nov.statement.totals.length, 1);

    const own = await account(t, client);
    assert.equal(own.settlement_mode, "credit");
    assert.equal(own.credit_limit, 5000);
    assert.equal(own.credit_used, now.credit.used);
    assert.equal(own.available, now.credit.available);
    assert.equal(own.ledger_balance, now.balances.owed);
    assert.deepEqual(own.ageing, now.ageing);
    assert.deepEqual(own.invoices, now.invoices);
    assert.deepEqual(own.cod_awaiting_remittance, now.cod_awaiting_remittance);
    assert.deepEqual(own.unresolved_conversions, now.unresolved_conversions);
  }));

Deno.test("answers: balances in another currency are what the schemas document", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, CREDIT);
    const { waybill, total } = await book(t, client);
    const issued = await t.call("POST", `/business/courier/clients/${client.id}/invoice`, {
      key: courier.business.api_key,
      body: { period: "2026-11" },
    });
    assert.equal(issued.status, 201, JSON.stringify(issued.body));
    const paid = await act(t, courier, client, "payment", {
      amount: total,
      currency: "BWP",
      reference: "P-1",
    });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
    const moved = await t.call("PATCH", `/business/courier/clients/${client.id}`, {
      key: courier.business.api_key,
      body: { rate_card_id: null, billing_currency: "ZAR", credit_limit: "5000.00" },
    });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    await t.settle();
    const note = await act(t, courier, client, "correct", {
      entry_reference: waybill,
      amount: "-10.00",
      reason: "lost parcel refund",
    });
    assert.equal(note.status, 201, JSON.stringify(note.body));
    const view = await billing(t, courier, client);
    assert.equal(view.currency, "ZAR");
    assert.equal(view.other_currencies[0].currency, "BWP");
    assert.ok(view.other_currencies[0].ageing);
    assert.ok(view.invoices.some((i: { status: string }) => i.status === "settled"));
    const corrected = view.statement.entries.find((e: { kind: string }) =>
      e.kind === "credit_note"
    );
    assert.equal(corrected.corrects, waybill);
    const own = await account(t, client);
    assert.deepEqual(own.other_currencies, view.other_currencies);
  }));

Deno.test("answers: an external account's views are what their schemas document", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, { settlement_mode: "external" });
    const offer = documented(PricesAnswer, await prices(t, client), 200, "prices");
    assert.equal(offer.account.available, null);
    await book(t, client);
    const view = await billing(t, courier, client);
    assert.equal(view.credit, null);
    assert.equal(view.ageing, null);
    assert.equal(view.statement.entries[0].status, "external");
    const own = await account(t, client);
    assert.equal(own.available, null);
    assert.equal(own.credit_used, null);
    assert.equal(own.ageing, null);
  }));

Deno.test("answers: rate cards, the catalogue, clients, saved quotes and search are what their schemas document", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, {});
    const key = courier.business.api_key;
    const call = (method: string, path: string, body?: unknown) =>
      t.call(method, path, { key, ...(body === undefined ? {} : { body }) });

    // Rate cards: publish, a next version, the list and one card.
    const v1 = documented(
      RateCardVersionAnswer,
      await call("POST", "/business/courier/rate-cards", {
        name: "Corridors",
        currency: "BWP",
        base_charge: "40.00",
        per_kg: 8,
        tax_pct: 14,
        corridors: [{ from: "BW", to: "ZA", base_charge: 120, per_kg: 15, label: "BW-ZA road" }],
      }),
      201,
      "publish",
    );
    assert.equal(v1.corridors[0].label, "BW-ZA road");
    const v2 = documented(
      RateCardVersionAnswer,
      await call("POST", `/business/courier/rate-cards/${v1.id}/versions`, { per_kg: 9 }),
      201,
      "next version",
    );
    assert.equal(v2.version, 2);
    const cards = documented(
      z.array(RateCardAnswer),
      await call("GET", "/business/courier/rate-cards"),
      200,
      "rate cards",
    );
    assert.equal(cards.length, 2);
    const card = documented(
      RateCardAnswer,
      await call("GET", `/business/courier/rate-cards/${v1.id}`),
      200,
      "rate card",
    );
    assert.equal(card.version_in_force, 2);

    // The catalogue: calendars, service levels, facilities, added and listed.
    for (
      const [path, schema, body] of [
        ["/business/courier/calendars", CalendarAnswer, {
          code: "ZA",
          name: "South Africa",
          timezone: "Africa/Johannesburg",
          working_days: [1, 2, 3, 4, 5, 6],
        }],
        ["/business/courier/facilities", FacilityAnswer, {
          code: "GBE-HUB",
          name: "Gaborone hub",
          country: "BW",
          timezone: "Africa/Gaborone",
        }],
      ] as const
    ) {
      documented(schema, await call("POST", path, body), 201, path);
      documented(z.array(schema), await call("GET", path), 200, path);
    }
    const levels = documented(
      z.array(ServiceLevelAnswer),
      await call("GET", "/business/courier/service-levels"),
      200,
      "service levels",
    );
    assert.equal(levels.length, 2);

    // Clients: created (credentials shown once), read, changed.
    const created = documented(
      ClientCreatedAnswer,
      await call("POST", "/business/courier/clients", {
        name: "Second client",
        code: "SECOND",
        email: "second@example.com",
        settlement_mode: "credit",
        billing_currency: "BWP",
        credit_limit: "100.50",
      }),
      201,
      "client created",
    );
    assert.match(created.api_key, /^ck_live_/);
    const read = documented(
      CourierClientAnswer,
      await call("GET", `/business/courier/clients/${created.id}`),
      200,
      "client",
    );
    assert.equal(read.credit_limit, 100.5);
    const changed = documented(
      CourierClientAnswer,
      await call("PATCH", `/business/courier/clients/${created.id}`, {
        rate_card_id: v1.id,
        unique_external_reference: true,
      }),
      200,
      "client changed",
    );
    assert.equal(changed.rate_card_id, v1.id);

    // Saved quotes, one booked; and the courier's search, by a client's customer code.
    await topUp(t, courier, client, "5000.00");
    const quote = async () =>
      documented(
        QuoteAnswer,
        await t.call("POST", "/client/quotes", {
          headers: clientKey(client),
          body: { ...DOMESTIC, external_customer_code: "CUST-7" },
        }),
        201,
        "quote",
      );
    const [first] = [await quote(), await quote()];
    const booked = await t.call("POST", `/client/quotes/${first.quote_reference}/book`, {
      headers: clientKey(client),
      body: { service_level: "express" },
    });
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    await t.settle();
    const quotes = listed(
      SavedQuoteAnswer,
      await t.call("GET", "/client/quotes?limit=5", { headers: clientKey(client) }),
      "saved quotes",
    );
    assert.deepEqual(quotes.map((q) => q.status).sort(), ["booked", "open"]);
    const found = listed(
      ShipmentFoundAnswer,
      await call("GET", "/business/courier/shipments?q=CUST-7"),
      "search",
    );
    assert.equal(found.length, 1);
    assert.equal(found[0].waybill, booked.body.data.waybill);
    assert.equal(found[0].service_terms.calendar.code, "BW");
  }));

Deno.test("answers: billing actions and invoices are what their schemas document, replays included", () =>
  withTestEnv(async (t) => {
    // A prepaid client: a top-up, COD collected on a delivery and remitted.
    const [courier, prepaid] = await ready(t, {});
    const topUpBody = { amount: "500.00", currency: "BWP", reference: "TOP-1" };
    for (const status of [201, 200]) {
      const r = await act(t, courier, prepaid, "top-up", topUpBody);
      assert.equal(documented(TopUpAnswer, r, status, "top-up").replayed, status === 200);
    }
    const { waybill } = await book(t, prepaid);
    for (const status of [201, 200]) {
      const r = await t.call("POST", `/business/courier/shipments/${waybill}/cod-collected`, {
        key: courier.business.api_key,
        body: { amount: "120.00", currency: "BWP" },
      });
      documented(CodCollectedAnswer, r, status, "cod collected");
    }
    for (const status of [201, 200]) {
      const r = await act(t, courier, prepaid, "cod-remitted", { waybill, evidence: "slip 7" });
      assert.equal(documented(PostingAnswer, r, status, "cod remitted").entry.kind, "cod_remitted");
    }

    // A credit client: an invoice, a payment allocated to it, a note, a conversion resolved.
    const client = await newClient(t, courier, CREDIT);
    const booked = await book(t, client);
    await charge(t, courier, client, {
      reference: "CUS-ZA",
      amount_minor: 10_000,
      currency: "ZAR",
    });
    await t.settle();
    const invoice = async (status: number) =>
      documented(
        InvoicesIssuedAnswer,
        await t.call("POST", `/business/courier/clients/${client.id}/invoice`, {
          key: courier.business.api_key,
          headers: { "Idempotency-Key": "inv-nov" },
          body: { period: "2026-11" },
        }),
        status,
        "invoice",
      );
    const issued = await invoice(201);
    assert.equal(issued.invoices.length, 1);
    assert.equal((await invoice(200)).replayed, true);
    const paymentBody = {
      amount: "20.00",
      currency: "BWP",
      reference: "PAY-1",
      allocations: [{ invoice_id: issued.invoices[0].id, amount: "20.00" }],
    };
    for (const status of [201, 200]) {
      const r = await act(t, courier, client, "payment", paymentBody);
      assert.equal(documented(PaymentAnswer, r, status, "payment").allocations.length, 1);
    }
    const noteBody = {
      entry_reference: booked.waybill,
      amount: "-5.00",
      reason: "late delivery",
      reference: "CN-1",
    };
    for (const status of [201, 200]) {
      const r = await act(t, courier, client, "correct", noteBody);
      assert.equal(documented(PostingAnswer, r, status, "note").entry.corrects, booked.waybill);
    }
    const fxBody = { entry_reference: "CUS-ZA", rate: "0.7525", source: "Bank of Botswana" };
    for (const status of [201, 200]) {
      const r = await act(t, courier, client, "resolve-fx", fxBody);
      assert.equal(documented(FxResolvedAnswer, r, status, "resolve-fx").original_amount, 100);
    }
  }));

/** [method, path, status codes, the schema `data` is documented with] */
const DOCUMENTED: readonly [string, string, readonly string[], z.ZodObject][] = [
  ["post", "/client/prices", ["200"], PricesAnswer],
  ["post", "/client/delivery-options", ["200"], PricesAnswer],
  ["post", "/client/quote", ["200"], PricesAnswer],
  ["post", "/client/quotes", ["201"], QuoteAnswer],
  ["post", "/client/book", ["200", "201"], BookingAnswer],
  ["post", "/client/quotes/{reference}/book", ["200", "201"], BookingAnswer],
  ["post", "/client/shipments", ["200", "201"], BookingAnswer],
  ["post", "/business/shipments", ["200", "201"], BookingAnswer],
  ["get", "/client/account", ["200"], ClientAccountAnswer],
  ["get", "/business/courier/clients/{client}/billing", ["200"], ClientBillingAnswer],
  ["post", "/business/courier/rate-cards", ["201"], RateCardVersionAnswer],
  ["post", "/business/courier/rate-cards/{card}/versions", ["201"], RateCardVersionAnswer],
  ["get", "/business/courier/rate-cards/{card}", ["200"], RateCardAnswer],
  ["post", "/business/courier/calendars", ["201"], CalendarAnswer],
  ["post", "/business/courier/service-levels", ["201"], ServiceLevelAnswer],
  ["post", "/business/courier/facilities", ["201"], FacilityAnswer],
  ["post", "/business/courier/clients", ["201"], ClientCreatedAnswer],
  ["get", "/business/courier/clients/{client}", ["200"], CourierClientAnswer],
  ["patch", "/business/courier/clients/{client}", ["200"], CourierClientAnswer],
  ["post", "/business/courier/clients/{client}/billing/top-up", ["200", "201"], TopUpAnswer],
  ["post", "/business/courier/clients/{client}/billing/payment", ["200", "201"], PaymentAnswer],
  ["post", "/business/courier/clients/{client}/billing/correct", ["200", "201"], PostingAnswer],
  ["post", "/business/courier/clients/{client}/invoice", ["200", "201"], InvoicesIssuedAnswer],
];

Deno.test("answers: the OpenAPI document shows each of these routes' data with its fields", () =>
  withTestEnv(async (t) => {
    const { body: doc } = await t.call("GET", "/api-docs/openapi.json");
    // deno-lint-ignore no-explicit-any
    const resolve = (s: any): any =>
      s?.$ref ? resolve(doc.components.schemas[s.$ref.replace("#/components/schemas/", "")]) : s;
    for (const [method, path, statuses, schema] of DOCUMENTED) {
      for (const status of statuses) {
        const envelope = doc.paths[path][method].responses[status].content["application/json"]
          .schema;
        const data = resolve(envelope.properties.data);
        assert.equal(data?.type, "object", `${method} ${path} ${status}`);
        assert.deepEqual(
          Object.keys(data.properties).sort(),
          Object.keys(schema.shape).sort(),
          `${method} ${path} ${status}`,
        );
        assert.deepEqual(envelope.required?.sort(), ["data", "success"]);
      }
    }
    // A named part that may be null is `anyOf` it or null; the part itself stays not nullable.
    const nullable = [["ClientAccount", "ageing"], ["ClientBilling", "credit"]] as const;
    for (const [schema, field] of nullable) {
      const types = doc.components.schemas[schema].properties[field].anyOf;
      assert.deepEqual(types.map((x: { type?: string }) => x.type ?? "ref"), ["ref", "null"]);
      assert.equal(resolve(types[0]).type, "object", `${schema}.${field}`);
    }
    // Nested parts are named components too, their money a number.
    const line = doc.components.schemas.PriceLine;
    assert.equal(line.properties.amount.type, "number");
    assert.ok(doc.components.schemas.StatementEntry.properties.export_state.enum);
  }));
