/**
 * A courier's catalogue (actors/courier/courier_catalogue.ts; courier 2.8 calendars and service
 * levels, 4.4; CONTRACT "Calendar", "Service level", "Facility"): codes unique, each list bounded,
 * the whole within one stored state; version 1 (no facilities) loads as version 2.
 */
import assert from "node:assert/strict";
import {
  type Calendar,
  calendarById,
  CALENDARS_MAX,
  courierCatalogueActor,
  EMPTY_CATALOGUE,
  FACILITIES_MAX,
  type Facility,
  RATE_CARDS_MAX,
  SERVICE_LEVELS_MAX,
  type ServiceLevel,
  serviceLevelByCode,
} from "../../../actors/courier/courier_catalogue.ts";
import { ActorHarness, kinds } from "../../helpers/actor.ts";
import { HOURS } from "../../helpers/courier.ts";

const T0 = Date.parse("2026-11-02T08:00:00Z");

function calendar(code: string, holidays: string[] = ["2026-12-25"]): Omit<Calendar, "created_at"> {
  return {
    id: `cal_${code}`,
    code,
    name: `${code} office days`,
    timezone: "Africa/Gaborone",
    working_days: [1, 2, 3, 4, 5],
    holidays,
  };
}

function level(code: string, calendar_id = "cal_BW"): Omit<ServiceLevel, "created_at"> {
  return {
    id: `sl_${code}`,
    code,
    name: code,
    transit_days: 2,
    cut_off: "14:00",
    calendar_id,
    at_risk_pct: 75,
    price_adjustment_bp: 0,
    ...HOURS,
  };
}

function facility(code: string): Omit<Facility, "created_at"> {
  return { id: `fac_${code}`, code, name: code, country: "BW", timezone: "Africa/Gaborone" };
}

function withCalendar() {
  const h = new ActorHarness(courierCatalogueActor, { now: T0 });
  h.must({ kind: "add_calendar", calendar: calendar("BW"), by: "staff:usr_1" });
  return h;
}

Deno.test("courier catalogue: calendars, service levels, facilities and rate cards are added with when", () => {
  const h = withCalendar();
  h.must({ kind: "add_service_level", service_level: level("express"), by: "api_key" });
  h.must({ kind: "add_facility", facility: facility("GBE"), by: "api_key" });
  const card = h.must({ kind: "register_rate_card", id: "rc_1", by: "api_key" });
  assert.deepEqual(card.events, [{ kind: "rate_card_registered", id: "rc_1", by: "api_key" }]);
  assert.deepEqual(kinds(h.log), [
    "calendar_added",
    "service_level_added",
    "facility_added",
    "rate_card_registered",
  ]);
  const s = h.must({ kind: "get" }).reply!;
  assert.deepEqual(s.calendars, [{ ...calendar("BW"), created_at: T0 }]);
  assert.deepEqual(serviceLevelByCode(s, "express"), { ...level("express"), created_at: T0 });
  assert.equal(serviceLevelByCode(s, "economy"), null);
  assert.equal(calendarById(s, "cal_BW")?.code, "BW");
  assert.equal(calendarById(s, "cal_ZA"), null);
  assert.deepEqual(s.facilities, [{ ...facility("GBE"), created_at: T0 }]);
  assert.deepEqual(s.rate_card_ids, ["rc_1"]);
  assert.deepEqual(h.replayed(), h.state);
  assert.deepEqual(courierCatalogueActor.project!(h.state), h.state);
});

Deno.test("courier catalogue: codes are unique per courier", () => {
  const h = withCalendar();
  h.refused(
    { kind: "add_calendar", calendar: { ...calendar("BW"), id: "cal_2" }, by: "x" },
    "already_exists",
    "a calendar already has this code: BW",
  );
  h.must({ kind: "add_service_level", service_level: level("express"), by: "x" });
  h.refused(
    { kind: "add_service_level", service_level: { ...level("express"), id: "sl_2" }, by: "x" },
    "already_exists",
    "a service level already has this code: express",
  );
  h.must({ kind: "add_facility", facility: facility("GBE"), by: "x" });
  h.refused(
    { kind: "add_facility", facility: { ...facility("GBE"), id: "fac_2" }, by: "x" },
    "already_exists",
    "a facility already has this code: GBE",
  );
  // A rate card registered again is a no-op.
  h.must({ kind: "register_rate_card", id: "rc_1", by: "x" });
  assert.deepEqual(h.must({ kind: "register_rate_card", id: "rc_1", by: "x" }).events, []);
  assert.deepEqual(h.state.rate_card_ids, ["rc_1"]);
});

Deno.test("courier catalogue: a service level names a calendar of the courier", () => {
  const h = withCalendar();
  const refused = h.refused(
    { kind: "add_service_level", service_level: level("express", "cal_ZA"), by: "x" },
    "validation_failed",
    "invalid request: calendar_id: unknown calendar: cal_ZA",
  );
  assert.deepEqual(refused.details, {
    errors: [{ path: "calendar_id", message: "unknown calendar: cal_ZA" }],
  });
});

Deno.test("courier catalogue: each list is bounded", () => {
  const h = new ActorHarness(courierCatalogueActor, { now: T0 });
  for (let i = 0; i < CALENDARS_MAX; i++) {
    h.must({ kind: "add_calendar", calendar: calendar(`C${i}`), by: "x" });
  }
  h.refused(
    { kind: "add_calendar", calendar: calendar("ONE_MORE"), by: "x" },
    "catalogue_full",
    `a courier keeps at most ${CALENDARS_MAX} calendars`,
  );
  for (let i = 0; i < SERVICE_LEVELS_MAX; i++) {
    h.must({ kind: "add_service_level", service_level: level(`s${i}`, "cal_C0"), by: "x" });
  }
  h.refused(
    { kind: "add_service_level", service_level: level("one_more", "cal_C0"), by: "x" },
    "catalogue_full",
    `a courier keeps at most ${SERVICE_LEVELS_MAX} service levels`,
  );
  for (let i = 0; i < FACILITIES_MAX; i++) {
    h.must({ kind: "add_facility", facility: facility(`F${i}`), by: "x" });
  }
  h.refused(
    { kind: "add_facility", facility: facility("ONE_MORE"), by: "x" },
    "catalogue_full",
    `a courier keeps at most ${FACILITIES_MAX} facilities`,
  );
  const cards = new ActorHarness(courierCatalogueActor, { now: T0 });
  for (let i = 0; i < RATE_CARDS_MAX; i++) {
    cards.must({ kind: "register_rate_card", id: `rc_${i}`, by: "x" });
  }
  cards.refused(
    { kind: "register_rate_card", id: "rc_more", by: "x" },
    "catalogue_full",
    `a courier keeps at most ${RATE_CARDS_MAX} rate cards`,
  );
});

Deno.test("courier catalogue: a change that would not fit one stored state is refused", () => {
  const h = new ActorHarness(courierCatalogueActor, { now: T0 });
  // Calendars of a thousand holidays each (13 bytes apiece) outgrow one value within a few.
  const days = Array.from(
    { length: 1_000 },
    (_, i) => new Date(T0 + i * 86_400_000).toISOString().slice(0, 10),
  );
  let refused = null;
  for (let i = 0; i < CALENDARS_MAX && refused === null; i++) {
    const r = h.send({ kind: "add_calendar", calendar: calendar(`C${i}`, days), by: "x" });
    if ("ok" in r) refused = r;
  }
  assert.ok(refused, "refused before the count bound");
  assert.equal(refused.code, "catalogue_full");
  assert.match(refused.message, /^the courier's catalogue is full: \d+ bytes$/);
});

Deno.test("courier catalogue: a version 1 catalogue (no facilities) loads with none", () => {
  const v1 = { calendars: [], service_levels: [], rate_card_ids: ["rc_1"] };
  assert.deepEqual(courierCatalogueActor.load!(v1, 1), { ...v1, facilities: [] });
  const v2 = { ...EMPTY_CATALOGUE, facilities: [{ ...facility("GBE"), created_at: 1 }] };
  assert.equal(courierCatalogueActor.load!(v2, 2), v2);
  assert.deepEqual(courierCatalogueActor.load!({ calendars: [] }, 2), {
    calendars: [],
    facilities: [],
  });
  for (const bad of [null, "x", { service_levels: [] }]) {
    assert.throws(() => courierCatalogueActor.load!(bad, 2), TypeError);
  }
  assert.equal(courierCatalogueActor.version, 2);
  // A loaded version 1 catalogue takes a facility.
  const h = new ActorHarness(courierCatalogueActor, {
    now: T0,
    state: courierCatalogueActor.load!(v1, 1),
  });
  h.must({ kind: "add_facility", facility: facility("GBE"), by: "x" });
  assert.equal(h.state.facilities.length, 1);
  assert.deepEqual(h.fire("x").events, []);
});
