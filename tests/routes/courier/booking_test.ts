import assert from "node:assert/strict";
import fc from "fast-check";
import { postChunked, type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  chargeOnly,
  type Client,
  clientKey,
  type Courier,
  DOMESTIC,
  HOURS,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";
import {
  CALENDARS_MAX,
  courierCatalogueActor,
  SERVICE_LEVELS_MAX,
} from "../../../actors/courier/courier_catalogue.ts";
import { priceOfferActor } from "../../../actors/courier/price_offer.ts";
import { asShipment, shipmentActor } from "../../../actors/courier/shipment/mod.ts";
import { courierClientActor } from "../../../actors/courier/courier_client.ts";
import { claimId, referenceClaimActor } from "../../../actors/courier/reference_claim.ts";
import { commandKind, holdAsk } from "../../helpers/faults.ts";
import {
  STOPPED_AFTER_CLAIM_MS,
  STOPPED_AFTER_EXPIRY_MS,
} from "../../../src/courier/flows/booking/mod.ts";
import { completeStalledBookings } from "../../../src/courier/reactors/stalled_bookings.ts";
import { waybillOf } from "../../../src/courier/rules/waybill.ts";
import { HOLIDAYS_MAX } from "../../../routes/courier/service_levels.ts";
import { calendarView, serviceLevelView } from "../../../routes/courier/answers/service_levels.ts";
import {
  STALLED_BOOKING_MS,
  STALLED_BOOKINGS_PER_SWEEP,
  STATE_BYTES_MAX,
} from "../../../src/limits.ts";
import { formatMinor, toMinor } from "../../../src/domain/money.ts";
import { priceOption } from "../../../src/courier/rules/pricing.ts";
import type { RateCardTerms } from "../../../src/courier/rules/rate_card.ts";

async function prices(t: TestEnv, client: Client, body: Record<string, unknown> = DOMESTIC) {
  const r = await t.call("POST", "/client/prices", { headers: clientKey(client), body });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data;
}

async function book(
  t: TestEnv,
  client: Client,
  prices_reference: string,
  service_level = "express",
) {
  return await t.call("POST", "/client/book", {
    headers: clientKey(client),
    body: { prices_reference, service_level, dangerous_goods_confirmed: true },
  });
}

async function account(t: TestEnv, client: Client) {
  return (await t.call("GET", "/client/account", { headers: clientKey(client) })).body.data;
}

/**
 * Prices for the client, then the booking's first commit alone (its charge, keeping its request
 * as the booking flow does), as if the process stopped right after it.
 */
async function chargedBooking(t: TestEnv, courier: Courier, client: Client) {
  const offer = await prices(t, client);
  const waybill = waybillOf(courier.business.id, offer.prices_reference);
  await chargeOnly(t, courier.business.id, client.id, waybill, {
    prices_reference: offer.prices_reference,
    dangerous_goods_confirmed: true,
    by: `client:${client.id}`,
  });
  return { offer, waybill };
}

async function ready(
  t: TestEnv,
  settings: Record<string, unknown> = {},
): Promise<[Courier, Client]> {
  const courier = await newCourier(t);
  return [courier, await newClient(t, courier, settings)];
}

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

Deno.test("book: 201 with waybill and tracking URL; the same request again books nothing", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const offer = await prices(t, client);
    const first = await book(t, client, offer.prices_reference);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const { waybill, tracking_url } = first.body.data;
    assert.match(waybill, /^WB[A-Z0-9]{12,}$/);
    assert.ok(tracking_url.split("/").at(-1).length >= 20);
    assert.equal(first.body.data.already_booked, false);
    const again = await book(t, client, offer.prices_reference);
    assert.equal(again.status, 200);
    assert.equal(again.body.data.already_booked, true);
    assert.equal(again.body.data.waybill, waybill);
    assert.equal(again.body.data.tracking_url, tracking_url);
    assert.equal((await account(t, client)).balance, 411.08); // 500 - 88.92, once
    const other = await book(t, client, offer.prices_reference, "economy");
    assert.equal(other.status, 409, "one offer books one shipment");
    // Sent again with another dangerous goods answer, it is not the same request: answered as
    // already booked, the caller would believe the shipment carries the answer it sent.
    const answered = await t.call("POST", "/client/book", {
      headers: clientKey(client),
      body: {
        prices_reference: offer.prices_reference,
        service_level: "express",
        dangerous_goods_confirmed: false,
      },
    });
    assert.equal(answered.status, 409, JSON.stringify(answered.body));
    assert.equal(answered.body.code, "reference_conflict");
    assert.match(answered.body.message, /dangerous_goods_confirmed true/);
    assert.equal((await account(t, client)).balance, 411.08);
  }));

Deno.test("book: service_level is read trimmed, as POST /client/shipments and bulk rows read it", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const offer = await prices(t, client);
    const first = await book(t, client, offer.prices_reference, " express ");
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const again = await book(t, client, offer.prices_reference, "express");
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.data.waybill, first.body.data.waybill);
    assert.equal((await account(t, client)).balance, 411.08); // charged once
  }));

Deno.test("book: expired prices answer 422 prices_expired; the operator's hold applies", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const offer = await prices(t, client);
    t.clock.advanceBy(30 * 60_000 + 1);
    const late = await book(t, client, offer.prices_reference);
    assert.equal(late.status, 422);
    assert.equal(late.body.code, "prices_expired");
    assert.equal((await account(t, client)).balance, 500);
    await t.call("PUT", "/operator/settings", { operator: true, body: { price_hold_minutes: 45 } });
    const longer = await prices(t, client);
    assert.equal(Date.parse(longer.valid_until) - t.clock.now(), 45 * 60_000);
    t.clock.advanceBy(44 * 60_000);
    assert.equal((await book(t, client, longer.prices_reference)).status, 201);
  }));

Deno.test("book: held prices book at exactly valid_until and not a millisecond after", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const onTime = await prices(t, client);
    const late = await prices(t, client);
    // spec: courier 2.2 rule 2, 8: held for the operator's minutes (default 30), to the ms.
    t.clock.advanceBy(Date.parse(onTime.valid_until) - t.clock.now());
    assert.equal(t.clock.now(), Date.parse(late.valid_until));
    const at = await book(t, client, onTime.prices_reference);
    assert.equal(at.status, 201, JSON.stringify(at.body));
    t.clock.advanceBy(1);
    const after = await book(t, client, late.prices_reference);
    assert.equal(after.status, 422, JSON.stringify(after.body));
    assert.equal(after.body.code, "prices_expired");
    assert.equal((await account(t, client)).balance, 411.08, "the expired one charged nothing");
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

Deno.test("book: a retry completes a booking charged before a crash, even once its prices expired", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const offer = await prices(t, client);
    const waybill = waybillOf(courier.business.id, offer.prices_reference);
    // The booking's first commit, as if the process stopped right after it.
    await chargeOnly(t, courier.business.id, client.id, waybill);
    t.clock.advanceBy(30 * 60_000 + 1);
    const other = await book(t, client, offer.prices_reference, "economy");
    assert.equal(other.status, 409, "only the option charged is booked");
    assert.equal(other.body.code, "reference_conflict");
    const retry = await book(t, client, offer.prices_reference);
    assert.equal(retry.status, 201, JSON.stringify(retry.body));
    assert.equal(retry.body.data.waybill, waybill);
    const again = await book(t, client, offer.prices_reference);
    assert.equal(again.status, 200);
    assert.equal(again.body.data.already_booked, true);
    assert.equal((await account(t, client)).balance, 411.08, "charged once");
    // Prices that expired uncharged still book nothing.
    const late = await prices(t, client);
    t.clock.advanceBy(30 * 60_000 + 1);
    assert.equal((await book(t, client, late.prices_reference)).body.code, "prices_expired");
    assert.equal((await account(t, client)).balance, 411.08);
  }));

Deno.test("book: a booking charged before a crash and never sent again is completed by the sweep", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    // The booking's first commit, keeping its request as the booking flow does; then the process
    // stopped, and the client never sends the request again.
    const { offer, waybill } = await chargedBooking(t, courier, client);
    await t.settle();
    const read = () =>
      t.call("GET", `/client/shipments/${waybill}`, { headers: clientKey(client) });
    assert.equal(
      await completeStalledBookings(t.env, t.clock.now()),
      0,
      "a retry may be on its way",
    );
    assert.equal((await read()).status, 404);
    // Past its prices' expiry too: the charge stands for the booking.
    t.clock.advanceBy(STALLED_BOOKING_MS + 30 * 60_000);
    assert.equal(await completeStalledBookings(t.env, t.clock.now()), 1);
    const made = await read();
    assert.equal(made.status, 200, JSON.stringify(made.body));
    assert.equal(made.body.data.dangerous_goods_confirmed, true);
    assert.equal(made.body.data.pricing.total, 88.92);
    assert.equal(made.body.data.pricing.prices_reference, offer.prices_reference);
    await t.settle();
    assert.equal(await completeStalledBookings(t.env, t.clock.now()), 0, "completed once");
    // The client's late retry finds it booked, and the account was charged once.
    const retry = await book(t, client, offer.prices_reference);
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    assert.equal(retry.body.data.already_booked, true);
    assert.equal(retry.body.data.waybill, waybill);
    assert.equal((await account(t, client)).balance, 411.08);
  }));

Deno.test("book: the sweep leaves a charge that kept no request to the client's retry", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const offer = await prices(t, client);
    const waybill = waybillOf(courier.business.id, offer.prices_reference);
    await chargeOnly(t, courier.business.id, client.id, waybill);
    await t.settle();
    t.clock.advanceBy(STALLED_BOOKING_MS + 1);
    assert.equal(await completeStalledBookings(t.env, t.clock.now()), 0);
    const retry = await book(t, client, offer.prices_reference);
    assert.equal(retry.status, 201, JSON.stringify(retry.body));
    assert.equal((await account(t, client)).balance, 411.08);
  }));

Deno.test("book: the sweep leaves bookings that were made whole", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const offer = await prices(t, client);
    assert.equal((await book(t, client, offer.prices_reference)).status, 201);
    await t.settle();
    t.clock.advanceBy(STALLED_BOOKING_MS + 1);
    assert.equal(await completeStalledBookings(t.env, t.clock.now()), 0);
    assert.equal((await account(t, client)).balance, 411.08);
  }));

Deno.test("book: charges the sweep cannot complete never hold up the stalled bookings after them", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "10000.00");
    // A sweep's worth of charges kept before their request was recorded (left to the client's
    // retry), older than a booking the sweep can complete.
    for (let i = 0; i < STALLED_BOOKINGS_PER_SWEEP; i++) {
      await chargeOnly(t, courier.business.id, client.id, `WBLEGACY${String(i).padStart(4, "0")}`);
    }
    t.clock.advanceBy(1_000);
    const { waybill } = await chargedBooking(t, courier, client);
    await t.settle();
    t.clock.advanceBy(STALLED_BOOKING_MS + 1);
    // Nothing is ever lost: whatever stays unfinished, each sweep goes on past it, so the client
    // who paid gets its shipment within a few sweeps, not a month later.
    let completed = 0;
    for (let sweep = 0; sweep < 3 && completed === 0; sweep++) {
      completed += await completeStalledBookings(t.env, t.clock.now());
    }
    assert.equal(completed, 1);
    const made = await t.env.runtime.read(shipmentActor, courier.business.id, waybill, {
      kind: "get",
    });
    assert.ok(made.ok, "the paid booking has its shipment");
  }));

Deno.test("book: a booking the sweep completes keeps the time and terms it was charged at", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, { settlement_mode: "external" });
    // 13:55 in Gaborone, five minutes before the services' 14:00 cut-off.
    t.clock.advanceBy(3 * 3_600_000 + 55 * 60_000);
    const offer = await prices(t, client);
    const express = offer.options.find((o: { code: string }) => o.code === "express");
    assert.equal(express.collection_on, "2026-11-02");
    const waybill = waybillOf(courier.business.id, offer.prices_reference);
    const chargedAt = t.clock.now();
    await t.env.runtime.ask(courierClientActor, courier.business.id, client.id, {
      kind: "charge_booking",
      waybill,
      amount_minor: 8_892,
      currency: "BWP",
      service_level: "express",
      booking: {
        prices_reference: offer.prices_reference,
        dangerous_goods_confirmed: false,
        by: `client:${client.id}`,
      },
      by: `client:${client.id}`,
    }, { idempotencyKey: `charge:${waybill}`, permanent: true });
    await t.settle();
    // Meanwhile the courier moves the client to credit (nothing external is a balance).
    const moved = await t.call("PATCH", `/business/courier/clients/${client.id}`, {
      key: courier.business.api_key,
      body: { settlement_mode: "credit", credit_limit: "1000.00" },
    });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    // The sweep runs past the cut-off; the booking was made (charged) before it.
    t.clock.advanceBy(STALLED_BOOKING_MS + 1);
    assert.equal(await completeStalledBookings(t.env, t.clock.now()), 1);
    const made = await t.env.runtime.read(shipmentActor, courier.business.id, waybill, {
      kind: "get",
    });
    assert.ok(made.ok);
    const s = asShipment(made.reply);
    // spec: courier 2.2 rule 3, 2.3: the frozen snapshot is the one paid for, at its commit point.
    assert.equal(s.booked_at, chargedAt);
    assert.equal(s.pricing.promise.collection_on, express.collection_on);
    assert.equal(s.pricing.promise.latest_delivery, express.latest_delivery);
    assert.equal(s.pricing.settlement_mode, "external");
  }));

Deno.test("book: a booking checked before the cut-off and charged just after it keeps the dates shown", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    // A millisecond before the services' 14:00 cut-off in Gaborone.
    t.clock.advanceBy(4 * 3_600_000 - 1);
    const offer = await prices(t, client);
    const express = offer.options.find((o: { code: string }) => o.code === "express");
    assert.equal(express.collection_on, "2026-11-02");
    // The cut-off passes between the booking's check of the dates and its charge.
    const runtime = t.env.runtime;
    const ask = runtime.ask.bind(runtime);
    runtime.ask = ((...args: Parameters<typeof ask>) => {
      const command = args[3] as { kind?: string };
      if (command.kind === "charge_booking") t.clock.advanceBy(2);
      return ask(...args);
    }) as typeof runtime.ask;
    const r = await book(t, client, offer.prices_reference);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    // spec: courier 2.2 rule 3: only what was shown can be booked, and the dates were shown.
    assert.equal(r.body.data.collection_on, express.collection_on);
    assert.equal(r.body.data.earliest_delivery, express.earliest_delivery);
    assert.equal(r.body.data.latest_delivery, express.latest_delivery);
    const made = await t.env.runtime.read(shipmentActor, courier.business.id, r.body.data.waybill, {
      kind: "get",
    });
    assert.ok(made.ok);
    assert.equal(asShipment(made.reply).pricing.promise.collection_on, express.collection_on);
  }));

Deno.test("book: only what was shown can be booked", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const offer = await prices(t, client);
    const r = await book(t, client, offer.prices_reference, "overnight");
    assert.equal(r.status, 422);
    assert.match(r.body.message, /overnight/);
    const unknown = await book(t, client, "prc_doesnotexist");
    assert.equal(unknown.status, 404);
  }));

async function concurrentBookings(t: TestEnv, client: Client): Promise<number[]> {
  const offers = [];
  for (let i = 0; i < 100; i++) offers.push(await prices(t, client));
  const answers = await Promise.all(offers.map((o) => book(t, client, o.prices_reference)));
  return answers.map((a) => a.status);
}

Deno.test("book: 100 simultaneous prepaid bookings against a balance covering 20 book exactly 20", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, String((88.92 * 20).toFixed(2)));
    const statuses = await concurrentBookings(t, client);
    assert.equal(statuses.filter((s) => s === 201).length, 20);
    assert.equal(statuses.filter((s) => s === 422).length, 80);
    const a = await account(t, client);
    assert.equal(a.balance, 0);
    assert.equal(a.available, 0);
    // Exactly the 20 booked exist: a refused booking leaves no shipment behind.
    await t.settle();
    const listed = await t.call("GET", "/client/shipments?limit=200", {
      headers: clientKey(client),
    });
    assert.equal(listed.body.data.length, 20, JSON.stringify(listed.body.meta));
  }));

Deno.test("book: 100 simultaneous credit bookings against a limit covering 20 book exactly 20", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, {
      settlement_mode: "credit",
      credit_limit: (88.92 * 20).toFixed(2),
    });
    const statuses = await concurrentBookings(t, client);
    assert.equal(statuses.filter((s) => s === 201).length, 20);
    const a = await account(t, client);
    assert.equal(a.credit_used, 1778.4);
    assert.equal(a.available, 0);
  }));

Deno.test("book: a prepaid account that cannot cover the price is refused and charged nothing", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "50.00");
    const offer = await prices(t, client);
    const r = await book(t, client, offer.prices_reference);
    assert.equal(r.status, 422);
    assert.equal(r.body.code, "insufficient_balance");
    assert.match(r.body.message, /available 50\.00 BWP, needed 88\.92 BWP/);
    assert.equal((await account(t, client)).balance, 50);
    // The refused offer can still be booked once the money is there.
    await topUp(t, courier, client, "100.00");
    assert.equal((await book(t, client, offer.prices_reference)).status, 201);
  }));

Deno.test("book: external settlement books without a receivable", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, { settlement_mode: "external" });
    const offer = await prices(t, client);
    assert.equal(offer.account.available, null);
    assert.equal((await book(t, client, offer.prices_reference)).status, 201);
    const a = await account(t, client);
    assert.equal(a.credit_used, null, "no credit line");
    assert.equal(a.balance, 0);
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

Deno.test("book: with unique_external_reference a repeated reference answers 409 duplicate_order", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, { unique_external_reference: true });
    await topUp(t, courier, client, "50.00");
    const body = { ...DOMESTIC, client_order_reference: "ORD-1001" };
    // A refused booking leaves the reference free.
    const poor = await book(t, client, (await prices(t, client, body)).prices_reference);
    assert.equal(poor.status, 422);
    await topUp(t, courier, client, "500.00");
    const first = await book(t, client, (await prices(t, client, body)).prices_reference);
    assert.equal(first.status, 201);
    const second = await book(t, client, (await prices(t, client, body)).prices_reference);
    assert.equal(second.status, 409);
    assert.equal(second.body.code, "duplicate_order");
    const other = await book(
      t,
      client,
      (await prices(t, client, { ...DOMESTIC, client_order_reference: "ORD-1002" }))
        .prices_reference,
    );
    assert.equal(other.status, 201);
  }));

Deno.test("book: once unique_external_reference is set, a reference booked before it is a duplicate_order", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const ordered = { ...DOMESTIC, client_order_reference: "ORD-7" };
    const billed = { ...DOMESTIC, external_billing_reference: "INV-9" };
    const firstOffer = (await prices(t, client, ordered)).prices_reference;
    const first = await book(t, client, firstOffer);
    assert.equal(first.status, 201);
    const byBilling = await book(t, client, (await prices(t, client, billed)).prices_reference);
    assert.equal(byBilling.status, 201);
    const set = await t.call("PATCH", `/business/courier/clients/${client.id}`, {
      key: courier.business.api_key,
      body: { unique_external_reference: true },
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    await t.settle();
    // spec: courier 4.2: a second booking with the same external reference, however late the
    // flag was set, answers 409 naming the booking that holds the reference.
    for (const body of [ordered, ordered, billed]) {
      const again = await book(t, client, (await prices(t, client, body)).prices_reference);
      assert.equal(again.status, 409, JSON.stringify(again.body));
      assert.equal(again.body.code, "duplicate_order");
      const holder = body === billed ? byBilling : first;
      assert.equal(again.body.waybill, holder.body.data.waybill);
    }
    // The same booking sent again is still the booking it made, not a duplicate of itself.
    const retried = await book(t, client, firstOffer);
    assert.equal(retried.status, 200, JSON.stringify(retried.body));
    assert.equal(retried.body.data.already_booked, true);
    // Another client's reference is its own: the same order number books there.
    const other = await newClient(t, courier, { unique_external_reference: true });
    await topUp(t, courier, other, "500.00");
    const theirs = await book(t, other, (await prices(t, other, ordered)).prices_reference);
    assert.equal(theirs.status, 201);
    // Nothing was charged for the refused bookings: two bookings of 88.92 each.
    assert.equal((await account(t, client)).balance, 322.16);
  }));

Deno.test("book: the shipment keeps its frozen pricing after a new rate-card version", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const booked = await book(t, client, (await prices(t, client)).prices_reference);
    const waybill = booked.body.data.waybill;
    t.clock.advanceBy(1000); // a version starts after the one before (courier 4.2)
    const v2 = await t.call("POST", `/business/courier/rate-cards/${courier.rateCardId}/versions`, {
      key: courier.business.api_key,
      body: { per_kg: 20, effective_from: new Date(t.clock.now()).toISOString() },
    });
    assert.equal(v2.status, 201, JSON.stringify(v2.body));
    t.clock.advanceBy(1000);
    const fresh = await prices(t, client);
    assert.equal(
      fresh.options.find((o: { code: string }) => o.code === "express").lines[0].amount,
      80,
    );
    const read = await t.call("GET", `/client/shipments/${waybill}`, {
      headers: clientKey(client),
    });
    assert.equal(read.status, 200);
    assert.equal(read.body.data.pricing.rate_card_version, 1);
    assert.equal(read.body.data.pricing.lines[0].amount, 65);
    assert.equal(read.body.data.pricing.total, 88.92);
    assert.equal(read.body.data.dangerous_goods_confirmed, true);
    assert.equal(read.body.data.service_terms.code, "express");
    assert.equal(read.body.data.service_terms.transit_days, 1);
  }));

Deno.test("book: a client sees only its own shipments and offers", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const other = await newClient(t, courier);
    await topUp(t, courier, client, "500.00");
    const offer = await prices(t, client);
    const booked = await book(t, client, offer.prices_reference);
    const waybill = booked.body.data.waybill;
    const peek = await t.call("GET", `/client/shipments/${waybill}`, { headers: clientKey(other) });
    assert.equal(peek.status, 404);
    const steal = await book(t, other, offer.prices_reference);
    assert.equal(steal.status, 404);
    // Another courier's client cannot see it either.
    const elsewhere = await newCourier(t);
    const stranger = await newClient(t, elsewhere);
    assert.equal(
      (await t.call("GET", `/client/shipments/${waybill}`, { headers: clientKey(stranger) }))
        .status,
      404,
    );
  }));

Deno.test("office booking: priced on the client's card and settled by its mode; found by any reference", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const r = await t.call("POST", "/business/shipments", {
      key: courier.business.api_key,
      body: {
        ...DOMESTIC,
        courier_client_id: client.id,
        service_level: "express",
        external_customer_code: "CUST-77",
        external_billing_reference: "PO-2026-11",
      },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.data.total, 88.92);
    assert.equal((await account(t, client)).balance, 411.08);
    await t.settle();
    // A waybill typed or scanned in lower case is found too.
    const waybill: string = r.body.data.waybill;
    for (const q of [waybill, waybill.toLowerCase(), "CUST-77", "PO-2026-11"]) {
      const found = await t.call("GET", `/business/courier/shipments?q=${q}`, {
        key: courier.business.api_key,
      });
      assert.equal(found.status, 200);
      assert.deepEqual(found.body.data.map((s: { waybill: string }) => s.waybill), [waybill], q);
    }
    // The search finds by prefix in any case (issue 42); exact lookups stay exact elsewhere.
    const lower = await t.call("GET", "/business/courier/shipments?q=po-2026", {
      key: courier.business.api_key,
    });
    assert.deepEqual(lower.body.data.map((s: { waybill: string }) => s.waybill), [waybill]);
    const elsewhere = await newCourier(t);
    const none = await t.call("GET", "/business/courier/shipments?q=CUST-77", {
      key: elsewhere.business.api_key,
    });
    assert.deepEqual(none.body.data, []);
    const otherClient = await t.call("POST", "/business/shipments", {
      key: elsewhere.business.api_key,
      body: { ...DOMESTIC, courier_client_id: client.id },
    });
    assert.equal(otherClient.status, 404);
  }));

Deno.test("quotes: held 7 days, listed, and booked like prices", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const q = await t.call("POST", "/client/quotes", {
      headers: clientKey(client),
      body: DOMESTIC,
    });
    assert.equal(q.status, 201);
    const reference = q.body.data.quote_reference;
    assert.match(reference, /^qt_/);
    assert.equal(Date.parse(q.body.data.valid_until) - t.clock.now(), 7 * 86_400_000);
    await t.settle();
    const list = await t.call("GET", "/client/quotes", { headers: clientKey(client) });
    assert.deepEqual(list.body.data.map((x: { quote_reference: string }) => x.quote_reference), [
      reference,
    ]);
    t.clock.advanceBy(6 * 86_400_000);
    const booked = await t.call("POST", `/client/quotes/${reference}/book`, {
      headers: clientKey(client),
      body: { service_level: "economy" },
    });
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    const late = await t.call("POST", "/client/quotes", {
      headers: clientKey(client),
      body: DOMESTIC,
    });
    t.clock.advanceBy(7 * 86_400_000 + 1);
    const expired = await t.call("POST", `/client/quotes/${late.body.data.quote_reference}/book`, {
      headers: clientKey(client),
      body: { service_level: "economy" },
    });
    assert.equal(expired.body.code, "prices_expired");
  }));

Deno.test("quotes: a quote booked on day 6 keeps the version it was priced on after a new one came into force; on day 8 it is expired", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const early = await t.call("POST", "/client/quotes", {
      headers: clientKey(client),
      body: DOMESTIC,
    });
    const late = await t.call("POST", "/client/quotes", {
      headers: clientKey(client),
      body: DOMESTIC,
    });
    const v2 = await t.call("POST", `/business/courier/rate-cards/${courier.rateCardId}/versions`, {
      key: courier.business.api_key,
      body: { per_kg: 20, effective_from: new Date(t.clock.now() + 86_400_000).toISOString() },
    });
    assert.equal(v2.status, 201, JSON.stringify(v2.body));
    t.clock.advanceBy(6 * 86_400_000);
    assert.equal(
      (await prices(t, client)).options.find((o: { code: string }) => o.code === "express")
        .lines[0].amount,
      80,
      "version 2 is in force",
    );
    const booked = await t.call("POST", `/client/quotes/${early.body.data.quote_reference}/book`, {
      headers: clientKey(client),
      body: { service_level: "express" },
    });
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    assert.equal(booked.body.data.total, 88.92, "the quoted price, on version 1");
    t.clock.advanceBy(2 * 86_400_000);
    const read = await t.call("GET", `/client/shipments/${booked.body.data.waybill}`, {
      headers: clientKey(client),
    });
    assert.equal(read.body.data.pricing.rate_card_version, 1);
    assert.equal(read.body.data.pricing.total, 88.92);
    assert.deepEqual(
      read.body.data.pricing.lines.map((l: { code: string; amount: number }) => [l.code, l.amount]),
      [["transport", 65], ["service_level", 13], ["tax", 10.92]],
    );
    const expired = await t.call("POST", `/client/quotes/${late.body.data.quote_reference}/book`, {
      headers: clientKey(client),
      body: { service_level: "express" },
    });
    assert.equal(expired.status, 422, JSON.stringify(expired.body));
    assert.equal(expired.body.code, "prices_expired");
    assert.equal((await account(t, client)).balance, 411.08);
  }));

async function quote(t: TestEnv, client: Client): Promise<string> {
  const q = await t.call("POST", "/client/quotes", { headers: clientKey(client), body: DOMESTIC });
  assert.equal(q.status, 201, JSON.stringify(q.body));
  return q.body.data.quote_reference;
}

Deno.test("quotes: the list pages newest first with limit and cursor, never skipping or repeating one", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t);
    const made: string[] = [];
    // Two made in the same millisecond, so the order must not rest on the time alone.
    for (const step of [0, 1, 0, 1, 1]) {
      t.clock.advanceBy(step);
      made.push(await quote(t, client));
    }
    await t.settle();
    const seen: { quote_reference: string; created_at: string }[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 5; page++) {
      const query: string = cursor ? `?limit=2&cursor=${cursor}` : "?limit=2";
      const r = await t.call("GET", `/client/quotes${query}`, { headers: clientKey(client) });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.ok(r.body.data.length <= 2);
      seen.push(...r.body.data);
      cursor = r.body.meta.next_cursor;
      if (!cursor) break;
    }
    assert.equal(cursor, null, "the last page says so");
    assert.deepEqual(seen.map((q) => q.quote_reference).sort(), [...made].sort(), "each once");
    const times = seen.map((q) => Date.parse(q.created_at));
    assert.deepEqual(times, [...times].sort((a, b) => b - a), "newest first");
    const bad = await t.call("GET", "/client/quotes?cursor=nonsense", {
      headers: clientKey(client),
    });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.errors[0].path, "cursor");
  }));

Deno.test("quotes: the list shows each quote's prices and the waybill it was booked as", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const reference = await quote(t, client);
    await t.settle();
    const before = await t.call("GET", "/client/quotes", { headers: clientKey(client) });
    const [listed] = before.body.data;
    assert.equal(listed.quote_reference, reference);
    assert.deepEqual(listed.options, [
      { code: "express", total: 88.92, currency: "BWP" },
      { code: "economy", total: 74.1, currency: "BWP" },
    ]);
    assert.equal(listed.booking, null);
    const booked = await t.call("POST", `/client/quotes/${reference}/book`, {
      headers: clientKey(client),
      body: { service_level: "express" },
    });
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    await t.settle();
    const after = await t.call("GET", "/client/quotes", { headers: clientKey(client) });
    assert.deepEqual(after.body.data[0].booking, { waybill: booked.body.data.waybill });
  }));

Deno.test("quotes: the list gives each quote's status: open up to its valid_until, booked, or expired after it", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const toBook = await quote(t, client);
    const bookedLate = await quote(t, client);
    const unbooked = await quote(t, client);
    const statuses = async () => {
      await t.settle();
      const r = await t.call("GET", "/client/quotes", { headers: clientKey(client) });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return Object.fromEntries(
        r.body.data.map((q: { quote_reference: string; status: string; booking: unknown }) => [
          q.quote_reference,
          [q.status, q.booking],
        ]),
      );
    };
    const bookQuote = (reference: string) =>
      t.call("POST", `/client/quotes/${reference}/book`, {
        headers: clientKey(client),
        body: { service_level: "express" },
      });
    const first = await bookQuote(toBook);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const waybill = { waybill: first.body.data.waybill };
    assert.deepEqual(await statuses(), {
      [toBook]: ["booked", waybill],
      [bookedLate]: ["open", null],
      [unbooked]: ["open", null],
    });
    // At valid_until a quote is still bookable, so still open (courier 8: held 7 days).
    t.clock.advanceBy(7 * 86_400_000);
    assert.equal((await statuses())[unbooked][0], "open");
    const last = await bookQuote(bookedLate);
    assert.equal(last.status, 201, JSON.stringify(last.body));
    t.clock.advanceBy(1);
    assert.equal((await bookQuote(unbooked)).body.code, "prices_expired");
    assert.deepEqual(await statuses(), {
      [toBook]: ["booked", waybill],
      [bookedLate]: ["booked", { waybill: last.body.data.waybill }],
      [unbooked]: ["expired", null],
    });
  }));

Deno.test("quotes: booking a saved quote takes a quote's reference only; held prices answer 404", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const offer = await prices(t, client);
    const r = await t.call("POST", `/client/quotes/${offer.prices_reference}/book`, {
      headers: clientKey(client),
      body: { service_level: "express" },
    });
    assert.equal(r.status, 404, JSON.stringify(r.body));
    assert.equal(r.body.code, "not_found");
    assert.equal((await account(t, client)).balance, 500, "nothing charged");
    assert.equal((await book(t, client, offer.prices_reference)).status, 201, "still bookable");
  }));

Deno.test("quotes: a quote is bookable up to its valid_until, exactly 7 days, and not a millisecond after", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const onTime = await quote(t, client);
    const late = await quote(t, client);
    t.clock.advanceBy(7 * 86_400_000);
    const at = await t.call("POST", `/client/quotes/${onTime}/book`, {
      headers: clientKey(client),
      body: { service_level: "express" },
    });
    assert.equal(at.status, 201, JSON.stringify(at.body));
    t.clock.advanceBy(1);
    const after = await t.call("POST", `/client/quotes/${late}/book`, {
      headers: clientKey(client),
      body: { service_level: "express" },
    });
    assert.equal(after.status, 422);
    assert.equal(after.body.code, "prices_expired");
    assert.match(after.body.message, /expired/);
    assert.equal((await account(t, client)).balance, 411.08, "the expired one charged nothing");
    const twice = await t.call("POST", `/client/quotes/${onTime}/book`, {
      headers: clientKey(client),
      body: { service_level: "express" },
    });
    assert.equal(twice.status, 200, "booked in time, answered as booked after expiry");
    assert.equal(twice.body.data.already_booked, true);
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

async function office(
  t: TestEnv,
  courier: Courier,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return await t.call("POST", "/business/shipments", {
    key: courier.business.api_key,
    headers,
    body,
  });
}

Deno.test("office booking: the same request again books once and answers already_booked", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, { unique_external_reference: true });
    await topUp(t, courier, client, "500.00");
    const row = { ...DOMESTIC, courier_client_id: client.id, service_level: "express" };
    const key = { "Idempotency-Key": "office-order-1" };
    const first = await office(t, courier, row, key);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.body.data.already_booked, false);
    const again = await office(t, courier, row, key);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.data.already_booked, true);
    assert.equal(again.body.data.waybill, first.body.data.waybill);
    // The same key with other details is refused and books nothing.
    const changed = await office(t, courier, { ...row, contents: "Books" }, key);
    assert.equal(changed.status, 409, JSON.stringify(changed.body));
    assert.equal(changed.body.code, "idempotency_key_reused");
    // The idempotency_key field works as the header does.
    const byField = { ...row, idempotency_key: "office-order-2" };
    const f1 = await office(t, courier, byField);
    const f2 = await office(t, courier, byField);
    assert.equal(f1.status, 201, JSON.stringify(f1.body));
    assert.equal(f2.status, 200, JSON.stringify(f2.body));
    assert.equal(f2.body.data.waybill, f1.body.data.waybill);
    // Under unique_external_reference the client_order_reference is the identity, as for the
    // client's own one-call booking: the same order again is already booked, not booked twice.
    const ordered = { ...row, client_order_reference: "SHOP-9" };
    const o1 = await office(t, courier, ordered);
    const o2 = await office(t, courier, ordered);
    assert.equal(o1.status, 201, JSON.stringify(o1.body));
    assert.equal(o2.status, 200, JSON.stringify(o2.body));
    assert.equal(o2.body.data.waybill, o1.body.data.waybill);
    const dup = await office(t, courier, { ...ordered, service_level: "economy" });
    assert.equal(dup.status, 409, JSON.stringify(dup.body));
    assert.equal(dup.body.code, "duplicate_order");
    // Without a chosen service the cheapest is booked, and the same request is still one booking.
    const cheapest = { ...DOMESTIC, courier_client_id: client.id, idempotency_key: "office-3" };
    const c1 = await office(t, courier, cheapest);
    const c2 = await office(t, courier, cheapest);
    assert.equal(c1.status, 201, JSON.stringify(c1.body));
    assert.equal(c1.body.data.service_level, "economy");
    assert.equal(c2.status, 200, JSON.stringify(c2.body));
    assert.equal(c2.body.data.waybill, c1.body.data.waybill);
    // Three express bookings of 88.92 and one economy booking, each charged once.
    assert.equal(
      (await account(t, client)).balance,
      Number((500 - 3 * 88.92 - c1.body.data.total).toFixed(2)),
    );
  }));

Deno.test("office booking: the office's Idempotency-Key sent again for another client is refused and books nothing", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const first = await newClient(t, courier);
    const second = await newClient(t, courier);
    await topUp(t, courier, first, "500.00");
    await topUp(t, courier, second, "500.00");
    const row = { ...DOMESTIC, service_level: "express" };
    const key = { "Idempotency-Key": "office-order-7" };
    const booked = await office(t, courier, { ...row, courier_client_id: first.id }, key);
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    // The key is the office's: the same key with another client is another request.
    const reused = await office(t, courier, { ...row, courier_client_id: second.id }, key);
    assert.equal(reused.status, 409, JSON.stringify(reused.body));
    assert.equal(reused.body.code, "idempotency_key_reused");
    assert.equal(reused.body.waybill, booked.body.data.waybill);
    assert.equal((await account(t, second)).balance, 500);
    // The same request again is still the one booking.
    const again = await office(t, courier, { ...row, courier_client_id: first.id }, key);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.data.waybill, booked.body.data.waybill);
    assert.equal((await account(t, first)).balance, 411.08);
  }));

Deno.test("office booking: settled by the client's mode; a refusal books and charges nothing", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const row = { ...DOMESTIC, service_level: "express" };
    const prepaid = await newClient(t, courier);
    await topUp(t, courier, prepaid, "100.00");
    const one = await office(t, courier, { ...row, courier_client_id: prepaid.id });
    assert.equal(one.status, 201, JSON.stringify(one.body));
    const short = await office(t, courier, { ...row, courier_client_id: prepaid.id });
    assert.equal(short.status, 422, JSON.stringify(short.body));
    assert.equal(short.body.code, "insufficient_balance");
    assert.equal((await account(t, prepaid)).balance, 11.08);

    const credit = await newClient(t, courier, { settlement_mode: "credit", credit_limit: 100 });
    assert.equal((await office(t, courier, { ...row, courier_client_id: credit.id })).status, 201);
    const over = await office(t, courier, { ...row, courier_client_id: credit.id });
    assert.equal(over.status, 422);
    assert.equal(over.body.code, "insufficient_balance");
    assert.equal((await account(t, credit)).credit_used, 88.92);

    const external = await newClient(t, courier, { settlement_mode: "external" });
    for (let i = 0; i < 2; i++) {
      const r = await office(t, courier, { ...row, courier_client_id: external.id });
      assert.equal(r.status, 201, JSON.stringify(r.body));
    }
    const ext = await account(t, external);
    assert.equal(ext.credit_used, null, "no credit line");
    assert.equal(ext.balance, 0);

    // An unknown client is named, and nothing is booked.
    const unknown = await office(t, courier, { ...row, courier_client_id: "cli_nobody" });
    assert.equal(unknown.status, 404, JSON.stringify(unknown.body));
    assert.equal(unknown.body.code, "not_found");
    assert.match(unknown.body.message, /courier_client_id not found: cli_nobody/);
    // Booking needs shipments:create (a partner key without it is refused).
    const partner = await t.call(
      "POST",
      `/operator/businesses/${courier.business.id}/partner-keys`,
      {
        operator: true,
        body: { partner: "viewer", scopes: ["shipments:view-own"] },
      },
    );
    assert.equal(partner.status, 201, JSON.stringify(partner.body));
    const refused = await t.call("POST", "/business/shipments", {
      key: partner.body.data.key,
      body: { ...row, courier_client_id: prepaid.id },
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, "scope_denied");
    assert.equal((await account(t, prepaid)).balance, 11.08);
  }));

Deno.test("search: every shipment with a reference is found, newest first, page by page; never another courier's", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, { settlement_mode: "external" });
    const rows = Array.from({ length: 53 }, (_, i) => ({
      ...DOMESTIC,
      service_level: "economy",
      external_customer_code: "CUST-MANY",
      client_order_reference: `ORD-${i}`,
    }));
    const bulk = await t.call("POST", "/client/shipments/bulk", {
      headers: clientKey(client),
      body: { shipments: rows },
    });
    assert.equal(bulk.status, 200, JSON.stringify(bulk.body));
    assert.equal(bulk.body.data.booked, 53);
    // Another courier's shipment with the same reference stays its own.
    const [elsewhere, theirs] = await ready(t, { settlement_mode: "external" });
    const foreign = await office(t, elsewhere, {
      ...DOMESTIC,
      courier_client_id: theirs.id,
      external_customer_code: "CUST-MANY",
    });
    assert.equal(foreign.status, 201, JSON.stringify(foreign.body));
    await t.settle();
    const seen: string[] = [];
    const order: { booked_at: string; waybill: string }[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const qs: string = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`;
      const r = await t.call("GET", `/business/courier/shipments?q=CUST-MANY&limit=20${qs}`, {
        key: courier.business.api_key,
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.ok(r.body.data.length <= 20);
      seen.push(...r.body.data.map((s: { waybill: string }) => s.waybill));
      order.push(...r.body.data.map((s: { booked_at: string; waybill: string }) => s));
      cursor = r.body.meta.next_cursor;
      pages++;
    } while (cursor !== null && pages < 10);
    assert.equal(pages, 3);
    assert.equal(seen.length, 53);
    assert.equal(new Set(seen).size, 53);
    assert.ok(!seen.includes(foreign.body.data.waybill));
    // Newest booked first, ties by waybill, so pages never skip or repeat a row.
    for (let i = 1; i < order.length; i++) {
      const [a, b] = [order[i - 1]!, order[i]!];
      assert.ok(
        a.booked_at > b.booked_at || (a.booked_at === b.booked_at && a.waybill > b.waybill),
        `${a.waybill} before ${b.waybill}`,
      );
    }
    const expected = bulk.body.data.results.map((r: { waybill: string }) => r.waybill);
    assert.deepEqual([...seen].sort(), [...expected].sort());
    // Without a limit, one page of 50, and the rest is named by the cursor.
    const first = await t.call("GET", "/business/courier/shipments?q=CUST-MANY", {
      key: courier.business.api_key,
    });
    assert.equal(first.body.data.length, 50);
    assert.notEqual(first.body.meta.next_cursor, null);
    // A prefix finds in any case (issue 42: search finds), still never another courier's;
    // wildcards are taken literally; a bad cursor or limit is refused, naming it.
    for (const q of ["CUST", "cust-man"]) {
      const r = await t.call("GET", `/business/courier/shipments?q=${encodeURIComponent(q)}`, {
        key: courier.business.api_key,
      });
      assert.equal(r.status, 200);
      const found = r.body.data.map((s: { waybill: string }) => s.waybill);
      assert.equal(found.length, 50, q);
      assert.ok(found.every((w: string) => expected.includes(w)), q);
    }
    for (const q of ["%", "ORD-1%"]) {
      const r = await t.call("GET", `/business/courier/shipments?q=${encodeURIComponent(q)}`, {
        key: courier.business.api_key,
      });
      assert.equal(r.status, 200);
      assert.deepEqual(r.body.data, [], q);
    }
    const badCursor = await t.call("GET", "/business/courier/shipments?q=CUST-MANY&cursor=x", {
      key: courier.business.api_key,
    });
    assert.equal(badCursor.status, 422);
    assert.equal(badCursor.body.code, "validation_failed");
    assert.match(badCursor.body.message, /cursor/);
    const noQuery = await t.call("GET", "/business/courier/shipments", {
      key: courier.business.api_key,
    });
    assert.equal(noQuery.status, 422);
    assert.match(noQuery.body.message, /q/);
  }));

Deno.test("book: a quote booked days later collects when it can; held prices past the cut-off have expired", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const promiseOf = async (waybill: string) =>
      (await t.call("GET", `/client/shipments/${waybill}`, { headers: clientKey(client) })).body
        .data.pricing.promise;
    // Monday 2 November 10:00 in Gaborone (UTC+2), before the 14:00 cut-off: collected today.
    const q = await t.call("POST", "/client/quotes", {
      headers: clientKey(client),
      body: DOMESTIC,
    });
    const shown = q.body.data.options.find((o: { code: string }) => o.code === "express");
    assert.equal(shown.collection_on, "2026-11-02");
    // spec: courier 2.8: booked on Thursday, the quote cannot be collected on Monday.
    t.clock.advanceBy(3 * 86_400_000);
    const booked = await t.call("POST", `/client/quotes/${q.body.data.quote_reference}/book`, {
      headers: clientKey(client),
      body: { service_level: "express" },
    });
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    assert.deepEqual(await promiseOf(booked.body.data.waybill), {
      collection_on: "2026-11-05",
      earliest_delivery: "2026-11-06",
      latest_delivery: "2026-11-09",
    });
    // Prices at 13:59 on Thursday showed collection on Thursday; at 14:01 that promise is gone:
    // only what was shown can be booked (2.2 rule 3), so they have expired, and nothing is charged.
    t.clock.advanceBy(3 * 3_600_000 + 59 * 60_000);
    const offer = await prices(t, client);
    assert.equal(
      offer.options.find((o: { code: string }) => o.code === "express").collection_on,
      "2026-11-05",
    );
    const balance = async () =>
      (await t.call("GET", "/client/account", { headers: clientKey(client) })).body.data.balance;
    const before = await balance();
    assert.ok(before > 0);
    t.clock.advanceBy(2 * 60_000);
    const late = await book(t, client, offer.prices_reference);
    assert.equal(late.status, 422, JSON.stringify(late.body));
    assert.equal(late.body.code, "prices_expired");
    assert.match(late.body.message, /cut-off.*2026-11-05.*2026-11-06/);
    assert.equal(await balance(), before, "nothing charged");
    // Prices asked again show Friday, and are booked as shown; a retry answers the same.
    const fresh = await prices(t, client);
    const latePromise = {
      collection_on: "2026-11-06",
      earliest_delivery: "2026-11-09",
      latest_delivery: "2026-11-10",
    };
    const shownLate = fresh.options.find((o: { code: string }) => o.code === "express");
    assert.equal(shownLate.collection_on, latePromise.collection_on);
    const made = await book(t, client, fresh.prices_reference);
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.deepEqual(await promiseOf(made.body.data.waybill), latePromise);
    const { collection_on, earliest_delivery, latest_delivery } = made.body.data;
    assert.deepEqual({ collection_on, earliest_delivery, latest_delivery }, latePromise);
    const again = await book(t, client, fresh.prices_reference);
    assert.equal(again.body.data.already_booked, true);
    assert.equal(again.body.data.collection_on, latePromise.collection_on);
    // Booked before the cut-off, the promise is what the prices showed.
    const onTime = await prices(t, client);
    const shownOnTime = onTime.options.find((o: { code: string }) => o.code === "express");
    const early = await book(t, client, onTime.prices_reference);
    const promise = await promiseOf(early.body.data.waybill);
    assert.deepEqual(promise, {
      collection_on: shownOnTime.collection_on,
      earliest_delivery: shownOnTime.earliest_delivery,
      latest_delivery: shownOnTime.latest_delivery,
    });
  }));

Deno.test("book: each offer's waybill is the next number of the service's sequence, the same on every retry", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const waybills: string[] = [];
    for (let i = 0; i < 3; i++) {
      const offer = await prices(t, client);
      assert.match(offer.prices_reference, /^prc_W[2-9A-HJ-NP-Z]{13}$/);
      const first = await book(t, client, offer.prices_reference);
      assert.equal(first.status, 201, JSON.stringify(first.body));
      const again = await book(t, client, offer.prices_reference);
      assert.equal(again.body.data.waybill, first.body.data.waybill);
      assert.equal(first.body.data.waybill, waybillOf(courier.business.id, offer.prices_reference));
      waybills.push(first.body.data.waybill);
    }
    assert.ok(waybills.every((w) => /^WB[2-9A-HJ-NP-Z]{13}$/.test(w)));
    assert.deepEqual([...waybills].sort(), waybills, "in the order the offers were made");
    assert.equal(new Set(waybills).size, 3);
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

Deno.test("book: once unique_external_reference is set, each earlier booking sent again is already booked, not a duplicate of the first", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const ordered = { ...DOMESTIC, client_order_reference: "ORD-TWICE" };
    // Without the flag a reference may repeat: two bookings carry it.
    const firstOffer = (await prices(t, client, ordered)).prices_reference;
    const secondOffer = (await prices(t, client, ordered)).prices_reference;
    const first = await book(t, client, firstOffer);
    const second = await book(t, client, secondOffer);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(second.status, 201, JSON.stringify(second.body));
    const set = await t.call("PATCH", `/business/courier/clients/${client.id}`, {
      key: courier.business.api_key,
      body: { unique_external_reference: true },
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    await t.settle();
    // spec: courier 4.1, 7: the same request again answers 200 already_booked and books nothing,
    // whichever of the two it was, and however often it is sent.
    const replays: [string, typeof first][] = [
      [secondOffer, second],
      [firstOffer, first],
      [secondOffer, second],
    ];
    for (const [offer, made] of replays) {
      const again = await book(t, client, offer);
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.equal(again.body.data.already_booked, true);
      assert.equal(again.body.data.waybill, made.body.data.waybill);
    }
    // A new booking with the reference is still a duplicate order, of the first booking.
    const third = await book(t, client, (await prices(t, client, ordered)).prices_reference);
    assert.equal(third.status, 409, JSON.stringify(third.body));
    assert.equal(third.body.code, "duplicate_order");
    assert.equal(third.body.waybill, first.body.data.waybill);
    assert.equal((await account(t, client)).balance, 322.16, "two bookings charged, once each");
  }));

Deno.test("search: each shipment found carries its next milestone, due time, owner, estimate and health", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const booked = await book(t, client, (await prices(t, client)).prices_reference);
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    await t.settle();
    const r = await t.call("GET", `/business/courier/shipments?q=${booked.body.data.waybill}`, {
      key: courier.business.api_key,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const [found] = r.body.data;
    // spec: courier 2.3: every shipment carries these, and 3.2: health is what operations sees.
    assert.equal(found.status, "booked");
    assert.equal(found.health, "on_schedule");
    assert.equal(found.next_milestone, "collection");
    assert.equal(found.next_owner, "courier");
    assert.ok(!Number.isNaN(Date.parse(found.next_due_at)), JSON.stringify(found));
    assert.equal(found.estimated_delivery_on, found.pricing.promise.earliest_delivery);
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

/** A version's terms as the route takes them: minor units, basis points and grams as decimals. */
const cardTermsArb = fc.record({
  base_charge: fc.integer({ min: 0, max: 100_000 }),
  per_kg: fc.integer({ min: 0, max: 10_000 }),
  included_grams: fc.integer({ min: 0, max: 5_000 }),
  volumetric_divisor: fc.integer({ min: 1_000, max: 6_000 }),
  minimum_charge: fc.integer({ min: 0, max: 200_000 }),
  collection_fee: fc.integer({ min: 0, max: 2_000 }),
  delivery_fee: fc.integer({ min: 0, max: 2_000 }),
  discount_bp: fc.integer({ min: 0, max: 10_000 }),
  surcharge_bp: fc.integer({ min: 0, max: 100_000 }),
  tax_bp: fc.integer({ min: 0, max: 10_000 }),
  tax_inclusive: fc.boolean(),
  liability_cover_bp: fc.integer({ min: 0, max: 10_000 }),
  corridor: fc.option(
    fc.record({
      base_charge: fc.integer({ min: 0, max: 100_000 }),
      per_kg: fc.integer({ min: 0, max: 10_000 }),
    }),
    { nil: null },
  ),
});

const requestArb = fc.record({
  parcels: fc.array(
    fc.record({
      weight_kg: fc.integer({ min: 1, max: 200_000 }).map((g) => g / 1000),
      length_cm: fc.integer({ min: 1, max: 2_000 }).map((mm) => mm / 10),
      width_cm: fc.integer({ min: 1, max: 2_000 }).map((mm) => mm / 10),
      height_cm: fc.integer({ min: 1, max: 2_000 }).map((mm) => mm / 10),
    }),
    { minLength: 1, maxLength: 5 },
  ),
  to_country: fc.constantFrom("BW", "ZA"),
  declared_minor: fc.option(fc.integer({ min: 0, max: 100_000_000 }), { nil: null }),
  liability_cover: fc.boolean(),
});

const pct = (bp: number) => formatMinor(bp, "BWP");

Deno.test("prices: for random cards published through the API and random parcels, every option shows the domain's exact lines, in spec order, adding up to the total (property)", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const key = courier.business.api_key;
    const adjustments: Record<string, number> = { express: 2_000, economy: 0 };
    await fc.assert(
      fc.asyncProperty(cardTermsArb, requestArb, async (card, req) => {
        t.clock.advanceBy(1);
        const corridors = card.corridor === null ? [] : [{
          from: "BW",
          to: "ZA",
          base_charge: formatMinor(card.corridor.base_charge, "BWP"),
          per_kg: formatMinor(card.corridor.per_kg, "BWP"),
          label: "Gaborone-Johannesburg",
        }];
        // A card of its own each run (and for each shrinking step): one card's versions are
        // bounded (rate_card_full), and a shrink runs the property many more times.
        const published = await t.call(
          "POST",
          "/business/courier/rate-cards",
          {
            key,
            body: {
              currency: "BWP",
              tax_label: "VAT",
              customs_admin_fee: 75,
              base_charge: formatMinor(card.base_charge, "BWP"),
              per_kg: formatMinor(card.per_kg, "BWP"),
              included_kg: card.included_grams / 1000,
              volumetric_divisor: card.volumetric_divisor,
              minimum_charge: formatMinor(card.minimum_charge, "BWP"),
              collection_fee: formatMinor(card.collection_fee, "BWP"),
              delivery_fee: formatMinor(card.delivery_fee, "BWP"),
              discount_pct: pct(card.discount_bp),
              surcharge_pct: pct(card.surcharge_bp),
              tax_pct: pct(card.tax_bp),
              tax_inclusive: card.tax_inclusive,
              corridors,
              liability_cover_pct: pct(card.liability_cover_bp),
              name: `Card ${t.clock.now()}`,
            },
          },
        );
        assert.equal(published.status, 201, JSON.stringify(published.body));
        const assigned = await t.call("PATCH", `/business/courier/clients/${client.id}`, {
          key,
          body: { rate_card_id: published.body.data.id },
        });
        assert.equal(assigned.status, 200, JSON.stringify(assigned.body));
        const body = {
          ...DOMESTIC,
          parcels: req.parcels,
          to_country: req.to_country,
          liability_cover: req.liability_cover && req.declared_minor !== null,
          ...(req.declared_minor === null
            ? {}
            : { declared_value: formatMinor(req.declared_minor, "BWP") }),
        };
        const data = await prices(t, client, body);
        const terms: RateCardTerms = {
          currency: "BWP",
          base_charge: card.base_charge,
          per_kg: card.per_kg,
          included_grams: card.included_grams,
          volumetric_divisor: card.volumetric_divisor,
          minimum_charge: card.minimum_charge,
          collection_fee: card.collection_fee,
          delivery_fee: card.delivery_fee,
          discount_bp: card.discount_bp,
          surcharge_bp: card.surcharge_bp,
          tax_bp: card.tax_bp,
          tax_inclusive: card.tax_inclusive,
          tax_label: "VAT",
          corridors: corridors.length === 0 ? [] : [{
            from: "BW",
            to: "ZA",
            base_charge: card.corridor!.base_charge,
            per_kg: card.corridor!.per_kg,
            label: "Gaborone-Johannesburg",
          }],
          liability_cover_bp: card.liability_cover_bp,
          redelivery_fee: 0,
          return_fee: 0,
          claim_window_days: 30,
          customs_admin_fee: 7_500,
          errand_fee: 0,
          failed_collection_fee: 0,
          cold_chain_fee: 0,
          waiting_fee: 0,
        };
        const minor = (n: number) => {
          const m = toMinor(n, "BWP");
          assert.ok(m.ok, `not a 2-decimal amount: ${n}`);
          return m.minor;
        };
        for (const o of data.options) {
          const want = priceOption(terms, {
            code: o.code,
            name: o.name,
            adjustment_bp: adjustments[o.code]!,
          }, {
            parcels: req.parcels,
            from_country: "BW",
            to_country: req.to_country,
            declared_value_minor: req.declared_minor,
            liability_cover: body.liability_cover,
          });
          const shown: [string, number][] = o.lines.map((
            l: { code: string; amount: number },
          ) => [l.code, minor(l.amount)]);
          assert.deepEqual(shown, want.lines.map((l) => [l.code, l.amount_minor]));
          assert.equal(minor(o.total), want.total_minor);
          assert.equal(minor(o.tax), want.tax_minor);
          assert.equal(shown.reduce((s, [, a]) => s + a, 0), want.total_minor);
          const tax = o.lines.at(-1);
          assert.equal(tax.code, "tax");
          assert.equal(tax.included, card.tax_inclusive);
          assert.equal(minor(tax.tax), want.tax_minor);
          // The view states grams as kilograms (a decimal): compared as the same decimal.
          assert.equal(o.chargeable_kg, want.chargeable_grams / 1000);
          assert.ok(
            o.lines.every((l: { code: string; amount: number }) =>
              l.amount >= 0 || l.code === "discount" || l.code === "service_level"
            ),
          );
        }
      }),
      { numRuns: 25 },
    );
  }));

Deno.test("book: a reference claimed by a booking that stopped before its charge is free once its prices expired", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, { unique_external_reference: true });
    await topUp(t, courier, client, "500.00");
    const body = { ...DOMESTIC, client_order_reference: "ORD-CRASH" };
    const offer = await prices(t, client, body);
    const waybill = waybillOf(courier.business.id, offer.prices_reference);
    // Booked a second before its prices expire, the booking's first commit, as if the process
    // stopped right after it: the reference is claimed, nothing is charged, no shipment exists.
    t.clock.advanceBy(30 * 60_000 - 1_000);
    const claimed = await t.env.runtime.ask(
      referenceClaimActor,
      courier.business.id,
      claimId(client.id, "ORD-CRASH"),
      { kind: "claim", waybill, reference: offer.prices_reference },
    );
    assert.ok(claimed.ok);
    // While its prices hold, the booking may still complete: the reference stays with it.
    const early = await book(t, client, (await prices(t, client, body)).prices_reference);
    assert.equal(early.status, 409, JSON.stringify(early.body));
    assert.equal(early.body.code, "duplicate_order");
    t.clock.advanceBy(1_001);
    // Just expired, it may be on its way to its charge: the reference stays with it a moment.
    const just = await book(t, client, (await prices(t, client, body)).prices_reference);
    assert.equal(just.body.code, "duplicate_order", JSON.stringify(just.body));
    t.clock.advanceBy(STOPPED_AFTER_EXPIRY_MS);
    // The stopped booking can never be charged now: it no longer holds the reference for ever.
    const retry = await book(t, client, offer.prices_reference);
    assert.equal(retry.body.code, "prices_expired");
    const next = await book(t, client, (await prices(t, client, body)).prices_reference);
    assert.equal(next.status, 201, JSON.stringify(next.body));
    assert.equal((await account(t, client)).balance, 411.08, "charged once");
    const again = await book(t, client, (await prices(t, client, body)).prices_reference);
    assert.equal(again.status, 409);
    assert.equal(again.body.waybill, next.body.data.waybill);
  }));

Deno.test("book: a booking stalled before its charge until long past its prices' expiry never charges once another booking took its reference over", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, { unique_external_reference: true });
    await topUp(t, courier, client, "500.00");
    const body = { ...DOMESTIC, client_order_reference: "ORD-STALL" };
    const offer = await prices(t, client, body);
    // The booking claimed the reference in time, then stalled before its charge (a GC pause, a
    // slow store) for far longer than STOPPED_AFTER_EXPIRY_MS after its prices expired.
    const charge = holdAsk(t.env.runtime, commandKind("charge_booking"));
    const first = book(t, client, offer.prices_reference);
    await charge.reached;
    t.clock.advanceBy(30 * 60_000 + STOPPED_AFTER_EXPIRY_MS + 10 * 60_000);
    const next = await book(t, client, (await prices(t, client, body)).prices_reference);
    assert.equal(next.status, 201, JSON.stringify(next.body));
    // spec: courier 4.2: one shipment per external reference: the stalled booking, waking, is
    // refused and charges nothing.
    charge.open();
    const late = await first;
    assert.equal(late.status, 422, JSON.stringify(late.body));
    assert.equal(late.body.code, "prices_expired");
    assert.equal((await account(t, client)).balance, 411.08, "charged once");
    const stalled = waybillOf(courier.business.id, offer.prices_reference);
    const made = await t.env.runtime.read(shipmentActor, courier.business.id, stalled, {
      kind: "get",
    });
    assert.equal(made.ok, false, "no shipment for the stalled booking");
    assert.equal((await book(t, client, offer.prices_reference)).body.code, "prices_expired");
    await t.settle();
    assert.equal(await completeStalledBookings(t.env, t.clock.now() + STALLED_BOOKING_MS), 0);
    assert.equal((await account(t, client)).balance, 411.08);
  }));

Deno.test("book: a saved quote's booking stalled after claiming its reference holds it minutes, not 7 days, and never charges once another booking took it over", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, { unique_external_reference: true });
    await topUp(t, courier, client, "500.00");
    const body = { ...DOMESTIC, client_order_reference: "ORD-QUOTE" };
    const q = await t.call("POST", "/client/quotes", { headers: clientKey(client), body });
    assert.equal(q.status, 201, JSON.stringify(q.body));
    const quote = q.body.data.quote_reference;
    const bookQuote = () =>
      t.call("POST", `/client/quotes/${quote}/book`, {
        headers: clientKey(client),
        body: { service_level: "express" },
      });
    // The quote's booking claims the reference, then stalls (or its process stops) before its
    // charge, while the quote holds 7 days.
    const charge = holdAsk(t.env.runtime, commandKind("charge_booking"));
    const first = bookQuote();
    await charge.reached;
    t.clock.advanceBy(60_000);
    // Claimed a moment ago, it may be on its way to its charge: the reference stays with it.
    const early = await book(t, client, (await prices(t, client, body)).prices_reference);
    assert.equal(early.status, 409, JSON.stringify(early.body));
    assert.equal(early.body.code, "duplicate_order");
    assert.deepEqual(Object.keys(early.body).filter((k) => k.includes("claimed")), []);
    t.clock.advanceBy(STOPPED_AFTER_CLAIM_MS);
    // spec: courier 4.2: a reference is a duplicate only of a booking that exists.
    const next = await book(t, client, (await prices(t, client, body)).prices_reference);
    assert.equal(next.status, 201, JSON.stringify(next.body));
    charge.open();
    // spec: courier 4.2, 7: waking, or sent again, it is a duplicate of the booking that holds
    // the reference now, named by its waybill (not expired: the quote still holds).
    for (const answer of [await first, await bookQuote()]) {
      assert.equal(answer.status, 409, JSON.stringify(answer.body));
      assert.equal(answer.body.code, "duplicate_order");
      assert.equal(answer.body.waybill, next.body.data.waybill);
    }
    assert.equal((await account(t, client)).balance, 411.08, "charged once");
  }));

Deno.test("book: a reference held by a booking charged before a crash stays with it after its prices expired", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, { unique_external_reference: true });
    await topUp(t, courier, client, "500.00");
    const body = { ...DOMESTIC, client_order_reference: "ORD-PAID" };
    const offer = await prices(t, client, body);
    const waybill = waybillOf(courier.business.id, offer.prices_reference);
    await t.env.runtime.ask(
      referenceClaimActor,
      courier.business.id,
      claimId(client.id, "ORD-PAID"),
      {
        kind: "claim",
        waybill,
        reference: offer.prices_reference,
      },
    );
    await chargeOnly(t, courier.business.id, client.id, waybill);
    t.clock.advanceBy(30 * 60_000 + 1);
    const other = await book(t, client, (await prices(t, client, body)).prices_reference);
    assert.equal(other.status, 409, JSON.stringify(other.body));
    assert.equal(other.body.code, "duplicate_order");
    const retry = await book(t, client, offer.prices_reference);
    assert.equal(retry.status, 201, JSON.stringify(retry.body));
    assert.equal((await account(t, client)).balance, 411.08, "charged once");
  }));

Deno.test("bad input: text Postgres cannot keep (NUL, an unpaired surrogate) is refused 422 naming the field, and nothing is kept", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const key = courier.business.api_key;
    const refused = (
      r: { status: number; body: { code: string; errors?: { path: string }[] } },
    ) => {
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.equal(r.body.code, "validation_failed");
      return (r.body.errors ?? []).map((e) => e.path).sort();
    };
    // Accepted, such a booking was charged and then never reached the query side: the ledger
    // entry missing from statements and exports, the shipment from search.
    for (const path of ["/client/prices", "/client/quotes"]) {
      const r = await t.call("POST", path, {
        headers: clientKey(client),
        body: { ...DOMESTIC, contents: "Medicines\u0000", client_order_reference: "A-\ud800" },
      });
      assert.deepEqual(refused(r), ["client_order_reference", "contents"], path);
    }
    const office = await t.call("POST", "/business/shipments", {
      key,
      body: { ...DOMESTIC, courier_client_id: client.id, external_billing_reference: "B\u0000" },
    });
    assert.deepEqual(refused(office), ["external_billing_reference"]);
    const topped = await t.call("POST", `/business/courier/clients/${client.id}/billing/top-up`, {
      key,
      body: { amount: "1.00", currency: "BWP", reference: "EFT\u0000" },
    });
    assert.deepEqual(refused(topped), ["reference"]);
    // Searches and cursors answered 500.
    assert.deepEqual(
      refused(await t.call("GET", "/business/courier/shipments?q=WB%00", { key })),
      ["q"],
    );
    const cursor = btoa(JSON.stringify([1, "qt_\u0000"])).replaceAll("=", "");
    assert.deepEqual(
      refused(
        await t.call("GET", `/client/quotes?cursor=${cursor}`, { headers: clientKey(client) }),
      ),
      ["cursor"],
    );
    await t.settle();
    const account = await t.call("GET", "/client/account", { headers: clientKey(client) });
    assert.equal(account.body.data.balance, 500);
    const quotes = await t.call("GET", "/client/quotes", { headers: clientKey(client) });
    assert.deepEqual(quotes.body.data, []);
    const shipments = await t.call("GET", "/client/shipments", { headers: clientKey(client) });
    assert.deepEqual(shipments.body.data, []);
  }));

Deno.test("bad input: a JSON body past the request cap is refused 413 also when it declares no length (chunked), and nothing is priced", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    const bytes = new TextEncoder().encode(
      JSON.stringify({ ...DOMESTIC, contents: "Medicines", padding: "x".repeat(2_000_000) }),
    );
    const res = await postChunked(t, "/client/prices", {
      ...clientKey(client),
      "Content-Type": "application/json",
    }, bytes);
    const answer = await res.json();
    assert.equal(res.status, 413, JSON.stringify(answer).slice(0, 300));
    assert.equal(answer.code, "payload_too_large");
    await t.settle();
    const offers = await t.env.db.selectFrom("snapshots").select("id")
      .where("type", "=", priceOfferActor.type).where("tenant", "=", courier.business.id)
      .execute();
    assert.deepEqual(offers, []);
  }));

Deno.test("book: the shipment shows the pricing inputs it froze: declared value and liability cover, as priced", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t, { liability_cover_pct: 2 });
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500.00");
    const covered = await prices(t, client, {
      ...DOMESTIC,
      declared_value: "1250.50",
      liability_cover: true,
      external_billing_reference: "COVER-1",
    });
    const express = covered.options.find((o: { code: string }) => o.code === "express");
    // 2 % of 1,250.50 = 25.01: the line the shipment's inputs must explain.
    assert.deepEqual(
      express.lines.find((l: { code: string }) => l.code === "liability_cover").amount,
      25.01,
    );
    const booked = await book(t, client, covered.prices_reference);
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    const plain = await book(t, client, (await prices(t, client)).prices_reference);
    assert.equal(plain.status, 201, JSON.stringify(plain.body));
    await t.settle();
    // spec: courier 2.3: the frozen pricing snapshot keeps its inputs; 2.1 declared_value and
    // liability_cover are inputs as much as the parcels are.
    const read = async (waybill: string) =>
      (await t.call("GET", `/client/shipments/${waybill}`, { headers: clientKey(client) })).body
        .data;
    const mine = await read(booked.body.data.waybill);
    assert.equal(mine.declared_value, 1250.5);
    assert.equal(mine.liability_cover, true);
    const other = await read(plain.body.data.waybill);
    assert.equal(other.declared_value, null);
    assert.equal(other.liability_cover, false);
    const found = await t.call("GET", "/business/courier/shipments?q=COVER-1", {
      key: courier.business.api_key,
    });
    assert.equal(found.status, 200, JSON.stringify(found.body));
    assert.equal(found.body.data[0].declared_value, 1250.5);
    assert.equal(found.body.data[0].liability_cover, true);
  }));
