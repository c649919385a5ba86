import assert from "node:assert/strict";
import type { Calendar, ServiceLevel } from "../../../actors/courier/courier_catalogue.ts";
import {
  type OfferOption,
  type PriceOffer,
  priceOfferActor,
  serviceTermsOf,
} from "../../../actors/courier/price_offer.ts";
import { HOURS } from "../../helpers/courier.ts";

const CALENDAR: Calendar = {
  id: "cal_bw",
  code: "BW",
  name: "Botswana office days",
  timezone: "Africa/Gaborone",
  working_days: [1, 2, 3, 4, 5],
  holidays: ["2026-12-25", "2026-12-26"],
  created_at: 1,
};

function level(code: string, calendar_id = CALENDAR.id): ServiceLevel {
  return {
    id: `sl_${code}`,
    code,
    name: code.toUpperCase(),
    transit_days: 1,
    cut_off: "14:00",
    calendar_id,
    at_risk_pct: 75,
    price_adjustment_bp: 0,
    created_at: 1,
    ...HOURS,
  };
}

function option(code: string, service_terms: Record<string, unknown>): OfferOption {
  return {
    code,
    name: code.toUpperCase(),
    chargeable_grams: 2500,
    lines: [{ code: "transport", label: "Transport", amount_minor: 6500 }],
    tax_minor: 0,
    total_minor: 6500,
    currency: "BWP",
    corridor: null,
    cross_border: false,
    collection_on: "2026-11-02",
    earliest_delivery: "2026-11-03",
    latest_delivery: "2026-11-04",
    possible_later_charges: null,
    service_terms,
  };
}

function offer(options: OfferOption[], calendars?: Record<string, Calendar>): PriceOffer {
  return {
    reference: "prc_1",
    kind: "prices",
    courier_id: "biz_1",
    client_id: "cli_1",
    created_at: 0,
    valid_until: 1_800_000,
    request: {
      parcels: [{ weight_kg: 2.5, length_cm: 30, width_cm: 20, height_cm: 10 }],
      from_country: "BW",
      to_country: "BW",
      declared_value_minor: null,
      liability_cover: false,
      sender: {},
      recipient: {},
      contents: null,
      external_customer_code: null,
      external_billing_reference: null,
      client_order_reference: null,
    },
    rate_card: { id: "rc_1", version: 1 },
    options,
    ...(calendars ? { calendars } : {}),
    account: { settlement_mode: "prepaid", currency: "BWP", available_minor: 0 },
  } as PriceOffer;
}

Deno.test("price offer: a version-1 offer (each option carrying its calendar) loads with each calendar once and freezes the same terms", () => {
  const other: Calendar = { ...CALENDAR, id: "cal_za", code: "ZA", holidays: ["2026-12-16"] };
  const v1Terms = [
    { ...level("express"), calendar: CALENDAR },
    { ...level("economy"), calendar: CALENDAR },
    { ...level("cross", other.id), calendar: other },
  ];
  const v1 = offer(v1Terms.map((terms) => option(terms.code, terms)));
  const loaded = priceOfferActor.load!(structuredClone(v1), 1) as PriceOffer;
  assert.ok(loaded);
  assert.deepEqual(loaded.calendars, { [CALENDAR.id]: CALENDAR, [other.id]: other });
  for (const [i, o] of loaded.options.entries()) {
    assert.equal("calendar" in o.service_terms, false, "held once, in calendars");
    // spec: courier 2.3: the shipment freezes the service level and calendar as priced.
    assert.deepEqual(serviceTermsOf(loaded, o), v1Terms[i]);
  }
  const json = (o: PriceOffer) => JSON.stringify(o).length;
  assert.ok(json(loaded) < json(v1));
});

Deno.test("price offer: a version-2 offer loads as stored; its options name their calendar", () => {
  const v2 = offer(
    [option("express", { ...level("express") })],
    { [CALENDAR.id]: CALENDAR },
  );
  const loaded = priceOfferActor.load!(structuredClone(v2), 2);
  assert.deepEqual(loaded, v2);
  assert.deepEqual(serviceTermsOf(v2, v2.options[0]!), { ...level("express"), calendar: CALENDAR });
  assert.equal(priceOfferActor.load!(null, 2), null);
  assert.deepEqual(priceOfferActor.load!({ voided_at: 5 }, 2), { voided_at: 5 });
  // An offer whose calendar is missing is a bug, never a shipment without its calendar.
  assert.throws(() => serviceTermsOf(offer(v2.options.slice(), {}), v2.options[0]!), /calendar/);
});

Deno.test("price offer: a voided reference takes no offer, answers none, and a made one cannot be voided", () => {
  const ctx = { now: 7, newId: (p: string) => `${p}_1` };
  const made = offer([option("express", { ...level("express") })], { [CALENDAR.id]: CALENDAR });
  const voided = priceOfferActor.decide(null, { kind: "void" }, ctx);
  assert.ok(voided.ok);
  let state = priceOfferActor.initial;
  for (const e of voided.events) state = priceOfferActor.evolve(state, e);
  assert.deepEqual(state, { voided_at: 7 });
  const again = priceOfferActor.decide(state, { kind: "void" }, ctx);
  assert.ok(again.ok);
  assert.equal(again.events.length, 0);
  const make = priceOfferActor.decide(state, { kind: "make", offer: made }, ctx);
  assert.equal(make.ok ? "made" : make.code, "already_exists");
  const get = priceOfferActor.decide(state, { kind: "get" }, ctx);
  assert.equal(get.ok ? "got" : get.code, "not_found");
  const onOffer = priceOfferActor.decide(made, { kind: "void" }, ctx);
  assert.equal(onOffer.ok ? "voided" : onOffer.code, "already_exists");
});

Deno.test("price offer: a quote's booking moves off a withdrawn waybill once; held prices and copies are not booked again", () => {
  const ctx = { now: 7, newId: (p: string) => `${p}_1` };
  const quote = {
    ...offer([option("express", { ...level("express") })], { [CALENDAR.id]: CALENDAR }),
    reference: "qt_1",
    kind: "quote" as const,
  };
  const rebook = (state: PriceOffer, withdrawn: string, reference: string) => {
    const d = priceOfferActor.decide(state, { kind: "rebook", withdrawn, reference }, ctx);
    assert.ok(d.ok, JSON.stringify(d));
    let next: PriceOffer = state;
    for (const e of d.events) next = priceOfferActor.evolve(next, e) as PriceOffer;
    return next;
  };
  const moved = rebook(quote, "qt_1", "qt_2");
  assert.equal(moved.rebooked_as, "qt_2");
  // A second booking that found the same withdrawal is answered the copy the first named.
  assert.equal(rebook(moved, "qt_1", "qt_3").rebooked_as, "qt_2");
  // The copy's own booking withdrawn in turn moves it on.
  assert.equal(rebook(moved, "qt_2", "qt_4").rebooked_as, "qt_4");
  // Only the quote is listed: its copy is not a quotation of its own.
  const copy = { ...quote, reference: "qt_2", rebooks: "qt_1" };
  assert.equal(priceOfferActor.project!(copy), undefined);
  assert.equal((priceOfferActor.project!(moved) as { rebooked_as?: string }).rebooked_as, "qt_2");
  for (const s of [copy, { ...quote, kind: "prices" as const }]) {
    const d = priceOfferActor.decide(
      s,
      { kind: "rebook", withdrawn: s.reference, reference: "x" },
      ctx,
    );
    assert.equal(d.ok ? "rebooked" : d.code, "not_a_quote");
  }
});
