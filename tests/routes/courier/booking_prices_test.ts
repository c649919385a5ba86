/** Prices (courier 4.6): the options, their lines and refusals of bad input. */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { clientKey, DOMESTIC, HOURS, newClient, newCourier, topUp } from "../../helpers/courier.ts";
import {
  CALENDARS_MAX,
  courierCatalogueActor,
  SERVICE_LEVELS_MAX,
} from "../../../actors/courier/courier_catalogue.ts";
import { priceOfferActor } from "../../../actors/courier/price_offer.ts";
import { HOLIDAYS_MAX } from "../../../routes/courier/service_levels.ts";
import { calendarView, serviceLevelView } from "../../../routes/courier/answers/service_levels.ts";
import { STATE_BYTES_MAX } from "../../../src/limits.ts";
import { account, book, prices, ready } from "./booking_fixtures.ts";

Deno.test("prices: every service with its lines in spec order, adding up to the total", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t);
    const data = await prices(t, client);
    assert.match(data.prices_reference, /^prc_/);
    assert.equal(Date.parse(data.valid_until) - t.clock.now(), 30 * 60_000);
    assert.deepEqual(data.account, { settlement_mode: "prepaid", currency: "BWP", available: 0 });
    const express = data.options.find((o: { code: string }) => o.code === "express");
    // 2.5 kg real beats 1.2 kg volumetric: 50 + 10 x 1.5 = 65; +20 % express = 13; VAT 14 % of 78.
    assert.equal(express.chargeable_kg, 2.5);
    assert.deepEqual(
      express.lines.map((l: { code: string; amount: number }) => [l.code, l.amount]),
      [
        ["transport", 65],
        ["service_level", 13],
        ["tax", 10.92],
      ],
    );
    assert.equal(express.total, 88.92);
    assert.equal(express.tax, 10.92);
    assert.equal(express.lines.at(-1).included, false);
    assert.equal(express.currency, "BWP");
    assert.equal(express.possible_later_charges, undefined);
    for (const o of data.options) {
      const sum = o.lines.reduce(
        (n: number, l: { amount: number }) => n + Math.round(l.amount * 100),
        0,
      );
      assert.equal(sum, Math.round(o.total * 100));
    }
    const cheapest = await prices(t, client, { ...DOMESTIC, sort: "cheapest" });
    assert.deepEqual(cheapest.options.map((o: { code: string }) => o.code), ["economy", "express"]);
  }));

Deno.test("prices: a cross-border route uses its corridor and names possible later charges", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t);
    const data = await prices(t, client, { ...DOMESTIC, to_country: "ZA" });
    const economy = data.options.find((o: { code: string }) => o.code === "economy");
    assert.equal(economy.lines[0].code, "transport");
    assert.equal(economy.lines[0].label, "Gaborone-Johannesburg");
    assert.equal(economy.lines[0].amount, 142.5); // 120 + 15 x 1.5
    assert.match(economy.possible_later_charges, /dut/i);
  }));

Deno.test("prices: bad input answers 422 naming each field", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t);
    const r = await t.call("POST", "/client/prices", {
      headers: clientKey(client),
      body: {
        ...DOMESTIC,
        parcels: [{ weight_kg: -1, length_cm: 1, width_cm: 1, height_cm: 1 }],
        to_country: "BWA",
      },
    });
    assert.equal(r.status, 422);
    const paths = r.body.errors.map((e: { path: string }) => e.path).sort();
    assert.deepEqual(paths, ["parcels.0.weight_kg", "to_country"]);
    // A body that is no object at all is named as the body.
    const list = await t.call("POST", "/client/book", { headers: clientKey(client), body: [] });
    assert.equal(list.status, 422);
    assert.deepEqual(list.body.errors.map((e: { path: string }) => e.path), ["body"]);
  }));

/** `n` distinct holidays, one a week from `from` (a date), each a valid `YYYY-MM-DD`. */
function holidays(n: number, from: string): string[] {
  const start = Date.parse(`${from}T00:00:00Z`);
  return Array.from(
    { length: n },
    (_, i) => new Date(start + i * 7 * 86_400_000).toISOString().slice(0, 10),
  );
}

Deno.test("prices: the largest catalogue the limits allow prices every option, and its booking freezes the service level with its whole calendar", () =>
  withTestEnv(async (t) => {
    // A card with every line: corridor, fees, discount, surcharge, cover, minimum, tax.
    const courier = await newCourier(t, {
      collection_fee: 5,
      delivery_fee: 7,
      discount_pct: 2.5,
      surcharge_pct: 10,
      liability_cover_pct: 1,
      minimum_charge: 100_000,
    });
    const key = courier.business.api_key;
    const long = (prefix: string, i: number) => `${prefix} ${i} `.padEnd(200, "x");
    // Calendars of HOLIDAYS_MAX holidays each, leaving room for the most service levels, all
    // at their longest (the options then repeat the longest names).
    const calendars: string[] = [];
    for (let i = 0; i < 7; i++) {
      const r = await t.call("POST", "/business/courier/calendars", {
        key,
        body: {
          code: `PH-${i}`,
          name: long("Calendar", i),
          timezone: "Africa/Gaborone",
          working_days: [1, 2, 3, 4, 5],
          holidays: holidays(HOLIDAYS_MAX, `${2026 + i * 4}-01-01`),
        },
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      calendars.push(r.body.data.id);
    }
    for (let i = 2; i < SERVICE_LEVELS_MAX; i++) {
      const r = await t.call("POST", "/business/courier/service-levels", {
        key,
        body: {
          code: `service-level-${i}`.padEnd(40, "x"),
          name: long("Service", i),
          transit_days: 2,
          cut_off: "14:00",
          calendar_id: calendars[i % calendars.length],
          price_adjustment_pct: 1000,
          ...HOURS,
        },
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
    }
    // The catalogue is full: not one more calendar of holidays fits its record.
    const more = await t.call("POST", "/business/courier/calendars", {
      key,
      body: {
        code: "ONE-MORE",
        name: "One more",
        timezone: "Africa/Gaborone",
        working_days: [1, 2, 3, 4, 5],
        holidays: holidays(HOLIDAYS_MAX, "2060-01-01"),
      },
    });
    assert.equal(more.body.code, "catalogue_full", JSON.stringify(more.body));
    assert.ok(calendars.length < CALENDARS_MAX);

    const client = await newClient(t, courier, { settlement_mode: "external" });
    const body = {
      ...DOMESTIC,
      to_country: "ZA",
      declared_value: "1000",
      liability_cover: true,
    };
    const p = await t.call("POST", "/client/prices", { headers: clientKey(client), body });
    assert.equal(p.status, 200, JSON.stringify(p.body));
    assert.equal(p.body.data.options.length, SERVICE_LEVELS_MAX);
    // Larger than one store value even so: the offer record is split, not refused.
    const offer = await t.env.runtime.read(
      priceOfferActor,
      courier.business.id,
      p.body.data.prices_reference,
      { kind: "get" },
    );
    assert.ok(offer.ok && JSON.stringify(offer.reply).length > STATE_BYTES_MAX);
    const q = await t.call("POST", "/client/quotes", { headers: clientKey(client), body });
    assert.equal(q.status, 201, JSON.stringify(q.body));

    const booked = await book(
      t,
      client,
      p.body.data.prices_reference,
      "service-level-9".padEnd(40, "x"),
    );
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    const read = await t.call("GET", `/client/shipments/${booked.body.data.waybill}`, {
      headers: clientKey(client),
    });
    assert.equal(read.status, 200, JSON.stringify(read.body));
    // spec: courier 2.3, 2.8: the service level and its whole calendar, as they stood.
    const catalogue = await t.env.runtime.read(
      courierCatalogueActor,
      courier.business.id,
      courier.business.id,
      { kind: "get" },
    );
    assert.ok(catalogue.ok);
    const level = catalogue.reply.service_levels.find((s) => s.code.startsWith("service-level-9"));
    const calendar = catalogue.reply.calendars.find((c) => c.id === level?.calendar_id);
    assert.ok(level && calendar);
    // Shown as the service level and calendar are where they are managed (courier 4.4).
    assert.deepEqual(read.body.data.service_terms, {
      ...serviceLevelView(level),
      calendar: calendarView(calendar),
    });
    assert.equal(read.body.data.service_terms.calendar.holidays.length, HOLIDAYS_MAX);
  }));

Deno.test("prices: parcels whose price cannot be stated exactly answer 422 on parcels, for prices, quotes, office booking and bulk rows", () =>
  withTestEnv(async (t) => {
    // volumetric_divisor 1 is within the card's range (1..1,000,000).
    const courier = await newCourier(t, { volumetric_divisor: 1, per_kg: 100 });
    const client = await newClient(t, courier);
    const huge = { weight_kg: 1, length_cm: 10_000, width_cm: 10_000, height_cm: 10_000 };
    // 50 parcels of 10^15 volumetric grams: more grams than an integer holds exactly.
    const heavy = { ...DOMESTIC, parcels: Array.from({ length: 50 }, () => huge) };
    // One of them: 10^12 kg at 100 BWP per kg, a price past the exact range.
    const dear = { ...DOMESTIC, parcels: [huge] };
    for (const body of [heavy, dear]) {
      for (const path of ["/client/prices", "/client/quotes"]) {
        const r = await t.call("POST", path, { headers: clientKey(client), body });
        assert.equal(r.status, 422, `${path} ${JSON.stringify(r.body)}`);
        assert.equal(r.body.code, "validation_failed");
        assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), ["parcels"]);
        assert.match(r.body.message, /too large to (price|state) exactly/);
      }
      const office = await t.call("POST", "/business/shipments", {
        key: courier.business.api_key,
        body: { ...body, courier_client_id: client.id },
      });
      assert.equal(office.status, 422, JSON.stringify(office.body));
      assert.equal(office.body.errors[0].path, "parcels");
      const bulk = await t.call("POST", "/client/shipments/bulk", {
        headers: clientKey(client),
        body: { shipments: [{ ...body, service_level: "express" }] },
      });
      assert.equal(bulk.status, 200, JSON.stringify(bulk.body));
      assert.equal(bulk.body.data.results[0].error.code, "validation_failed");
      assert.match(bulk.body.data.results[0].error.message, /parcels/);
    }
    // A price past the exact range through its liability cover is refused on declared_value.
    const covering = await newClient(t, await newCourier(t, { liability_cover_pct: 100 }));
    const covered = await t.call("POST", "/client/prices", {
      headers: clientKey(covering),
      body: { ...DOMESTIC, declared_value: "90000000000000", liability_cover: true },
    });
    assert.equal(covered.status, 422, JSON.stringify(covered.body));
    assert.deepEqual(covered.body.errors.map((e: { path: string }) => e.path), ["declared_value"]);
  }));

Deno.test("prices: an amount a JSON number cannot state exactly is refused on its field, never shown rounded", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t, { liability_cover_pct: 100, tax_pct: 0 });
    const client = await newClient(t, courier);
    // spec: courier 2.2 rule 1, 9.4: the cover is the whole declared value; as a JSON number
    // 89999999999979.99 reads 89999999999979.98, a price other than the one charged.
    const r = await t.call("POST", "/client/prices", {
      headers: clientKey(client),
      body: { ...DOMESTIC, declared_value: "89999999999979.99", liability_cover: true },
    });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), ["declared_value"]);
    // Fifteen digits state exactly and are priced: every amount reads back as sent.
    const ok = await t.call("POST", "/client/prices", {
      headers: clientKey(client),
      body: { ...DOMESTIC, declared_value: "9999999999000.01", liability_cover: true },
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const cover = ok.body.data.options[0].lines.find((l: { code: string }) =>
      l.code === "liability_cover"
    );
    assert.equal(String(cover.amount), "9999999999000.01");
  }));

Deno.test("prices: a declared value sent in exponent form is refused naming the value sent, not another", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    // spec: courier 7: a refusal's message names the problem; 1e300 is not 1e+3, nor 1e-21 "0.".
    for (
      const [sent, named] of [
        [1e300, "1e+300"],
        [1.5e30, "1.5e+30"],
        [1e21, "1e+21"],
        [1e-21, "0.000000000000000000001"],
        [1.25e-7, "0.000000125"],
      ] as const
    ) {
      const r = await t.call("POST", "/client/prices", {
        headers: clientKey(client),
        body: { ...DOMESTIC, declared_value: sent, liability_cover: true },
      });
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.equal(r.body.errors[0].path, "declared_value");
      assert.ok(r.body.errors[0].message.endsWith(`: ${named}`), r.body.errors[0].message);
    }
    // The same for a rate card's amounts and percentages.
    const v = await t.call("POST", `/business/courier/rate-cards/${courier.rateCardId}/versions`, {
      key: courier.business.api_key,
      body: { base_charge: 1e-21, tax_pct: 1e25 },
    });
    assert.equal(v.status, 422, JSON.stringify(v.body));
    const messages = Object.fromEntries(
      v.body.errors.map((e: { path: string; message: string }) => [e.path, e.message]),
    );
    assert.ok(messages.base_charge.endsWith(": 0.000000000000000000001"), messages.base_charge);
    assert.ok(messages.tax_pct.endsWith(": 1e+25"), messages.tax_pct);
  }));

Deno.test("prices: collection dates follow the calendar's local day: 23:30 UTC is the next day in Gaborone, and weekends and holidays are skipped", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t);
    const collects = async (iso: string) => {
      t.clock.advanceBy(Date.parse(iso) - t.clock.now());
      const data = await prices(t, client);
      const express = data.options.find((o: { code: string }) => o.code === "express");
      return [express.collection_on, express.earliest_delivery, express.latest_delivery];
    };
    // spec: courier 2.8: Thursday 23:59:59 local (21:59:59Z), after the 14:00 cut-off: Friday.
    assert.deepEqual(await collects("2026-11-05T21:59:59Z"), [
      "2026-11-06",
      "2026-11-09",
      "2026-11-10",
    ]);
    // Thursday 23:30 UTC is Friday 01:30 in Gaborone, before the cut-off: collected Friday.
    assert.deepEqual(await collects("2026-11-05T23:30:00Z"), [
      "2026-11-06",
      "2026-11-09",
      "2026-11-10",
    ]);
    // Friday 23:30 UTC is Saturday in Gaborone: collected Monday.
    assert.deepEqual(await collects("2026-11-06T23:30:00Z"), [
      "2026-11-09",
      "2026-11-10",
      "2026-11-11",
    ]);
    // Thursday 24 December 23:30 UTC is Christmas Day in Gaborone; 26 December is a Saturday
    // holiday: collected Monday 28, delivered Tuesday 29 at the earliest.
    assert.deepEqual(await collects("2026-12-24T23:30:00Z"), [
      "2026-12-28",
      "2026-12-29",
      "2026-12-30",
    ]);
  }));

Deno.test("prices: liability cover without a declared value is refused, naming declared_value", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t);
    const r = await t.call("POST", "/client/prices", {
      headers: clientKey(client),
      body: { ...DOMESTIC, liability_cover: true },
    });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.code, "validation_failed");
    assert.equal(r.body.errors[0].path, "declared_value");
    const covered = await t.call("POST", "/client/prices", {
      headers: clientKey(client),
      body: { ...DOMESTIC, liability_cover: true, declared_value: 1000 },
    });
    assert.equal(covered.status, 200, JSON.stringify(covered.body));
  }));

Deno.test("prices: a latitude without its longitude (or the reverse) is refused, naming the missing one", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t);
    const r = await t.call("POST", "/client/prices", {
      headers: clientKey(client),
      body: { ...DOMESTIC, sender_lat: -24.65, recipient_lng: 25.91 },
    });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.code, "validation_failed");
    assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), [
      "sender_lng",
      "recipient_lat",
    ]);
    assert.match(r.body.message, /sender_lng: required with sender_lat/);
    const paired = await t.call("POST", "/client/prices", {
      headers: clientKey(client),
      body: { ...DOMESTIC, sender_lat: -24.65, sender_lng: 25.91 },
    });
    assert.equal(paired.status, 200, JSON.stringify(paired.body));
  }));

Deno.test("prices: a request wrong in several fields beyond their shapes names each one in one 422, and nothing is offered", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t);
    const ask = (body: Record<string, unknown>) =>
      t.call("POST", "/client/quotes", {
        headers: clientKey(client),
        body: { ...DOMESTIC, ...body },
      });
    const paths = (r: { body: { errors: { path: string }[] } }) =>
      r.body.errors.map((e) => e.path).sort();
    const uncovered = await ask({ liability_cover: true, sender_lat: -24.65 });
    assert.equal(uncovered.status, 422, JSON.stringify(uncovered.body));
    assert.equal(uncovered.body.code, "validation_failed");
    assert.deepEqual(paths(uncovered), ["declared_value", "sender_lng"]);
    const cents = await ask({ declared_value: "10.005", recipient_lng: 25.91 });
    assert.equal(cents.status, 422, JSON.stringify(cents.body));
    assert.deepEqual(paths(cents), ["declared_value", "recipient_lat"]);
    assert.match(cents.body.message, /declared_value: BWP has 2 decimal places: 10\.005/);
    await t.settle();
    const quotes = await t.call("GET", "/client/quotes", { headers: clientKey(client) });
    assert.deepEqual(quotes.body.data, [], "no quote is held");
  }));

Deno.test("prices: an offer is priced on the version in force when made, from its effective_from to the millisecond, and keeps it", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const from = t.clock.now() + 3_600_000;
    const v2 = await t.call("POST", `/business/courier/rate-cards/${courier.rateCardId}/versions`, {
      key: courier.business.api_key,
      body: { per_kg: 20, effective_from: new Date(from).toISOString() },
    });
    assert.equal(v2.status, 201, JSON.stringify(v2.body));
    const transport = (o: { options: { code: string; lines: { amount: number }[] }[] }) =>
      o.options.find((x) => x.code === "express")!.lines[0]!.amount;
    t.clock.advanceBy(3_600_000 - 1);
    const early = await prices(t, client);
    assert.equal(transport(early), 65, "version 1 a millisecond before");
    t.clock.advanceBy(1);
    assert.equal(transport(await prices(t, client)), 80, "version 2 from its effective_from");
    const booked = await book(t, client, early.prices_reference);
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    assert.equal(booked.body.data.total, 88.92, "the offer keeps version 1");
    const read = await t.call("GET", `/client/shipments/${booked.body.data.waybill}`, {
      headers: clientKey(client),
    });
    assert.equal(read.body.data.pricing.rate_card_version, 1);
  }));

Deno.test("prices: a country that is not ISO 3166-1 (ZZ) is refused naming it, for prices and quotes, and nothing is offered", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t);
    for (const path of ["/client/prices", "/client/quotes"]) {
      const r = await t.call("POST", path, {
        headers: clientKey(client),
        body: { ...DOMESTIC, to_country: "ZZ" },
      });
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.equal(r.body.code, "validation_failed");
      assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), ["to_country"]);
      assert.match(r.body.message, /to_country: not an ISO 3166-1 alpha-2 country code: ZZ/);
    }
    await t.settle();
    const quotes = await t.call("GET", "/client/quotes", { headers: clientKey(client) });
    assert.deepEqual(quotes.body.data, [], "no quote is held");
  }));

Deno.test("prices: a credit account used past a lowered limit can cover nothing: available is 0, never negative", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, { settlement_mode: "credit", credit_limit: "100.00" });
    const booked = await book(t, client, (await prices(t, client)).prices_reference);
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    const lowered = await t.call("PATCH", `/business/courier/clients/${client.id}`, {
      key: courier.business.api_key,
      body: { credit_limit: "10.00" },
    });
    assert.equal(lowered.status, 200, JSON.stringify(lowered.body));
    // spec: courier 2.2: available is the amount the client's account can cover.
    const offer = await prices(t, client);
    assert.equal(offer.account.available, 0);
    const a = await account(t, client);
    assert.equal(a.available, 0);
    assert.equal(a.credit_used, 88.92);
    const refused = await book(t, client, offer.prices_reference);
    assert.equal(refused.status, 422);
    assert.equal(refused.body.code, "insufficient_balance");
    assert.equal((await account(t, client)).credit_used, 88.92);
  }));
