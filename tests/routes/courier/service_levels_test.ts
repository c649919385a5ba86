import assert from "node:assert/strict";
import { type CreatedBusiness, type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  bookShipment,
  courierWithScopes,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";
import { HOLIDAYS_MAX } from "../../../routes/courier/service_levels.ts";

/** A courier with the platform on and the given scopes stored on its key. */
function courier(
  t: TestEnv,
  scopes: readonly string[] = ["runs:override"],
): Promise<CreatedBusiness> {
  return courierWithScopes(t, scopes);
}

const CALENDAR = {
  code: "BW-WEEKDAYS",
  name: "Botswana weekdays",
  timezone: "Africa/Gaborone",
  working_days: [5, 1, 2, 3, 4],
  holidays: ["2026-12-25", "2026-12-26", "2026-12-25"],
};

const HOURS = {
  collection_due_hours: 4,
  depot_dwell_hours: 8,
  border_presentation_hours: 6,
  customs_wait_hours: 24,
  linehaul_hours: 10,
  destination_dwell_hours: 8,
  delivery_attempt_hours: 4.5,
  redelivery_due_hours: 24,
  no_scan_hours: 12,
};

async function addCalendar(t: TestEnv, b: CreatedBusiness, body: unknown = CALENDAR) {
  const r = await t.call("POST", "/business/courier/calendars", { key: b.api_key, body });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.data;
}

function serviceLevel(calendar_id: string, overrides: Record<string, unknown> = {}) {
  return {
    code: "EXPRESS",
    name: "Express cross-border",
    transit_days: 2,
    cut_off: "16:00",
    calendar_id,
    ...HOURS,
    ...overrides,
  };
}

Deno.test("calendars API: adding one needs runs:override and answers {id, code, ...}", () =>
  withTestEnv(async (t) => {
    const b = await courier(t, []);
    const denied = await t.call("POST", "/business/courier/calendars", {
      key: b.api_key,
      body: CALENDAR,
    });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.code, "scope_denied");
    assert.match(denied.body.message, /runs:override/);
    await t.call("PATCH", `/operator/businesses/${b.id}`, {
      operator: true,
      body: { api_key_scopes: ["runs:override"] },
    });
    const cal = await addCalendar(t, b);
    assert.match(cal.id, /^cal_/);
    assert.equal(cal.code, "BW-WEEKDAYS");
    assert.equal(cal.timezone, "Africa/Gaborone");
    assert.deepEqual(cal.working_days, [1, 2, 3, 4, 5], "sorted");
    assert.deepEqual(cal.holidays, ["2026-12-25", "2026-12-26"], "sorted, once each");
    const listed = await t.call("GET", "/business/courier/calendars", { key: b.api_key });
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.data, [cal]);
  }));

Deno.test("calendars API: a bad timezone, repeated weekday or impossible holiday is named (422)", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    const r = await t.call("POST", "/business/courier/calendars", {
      key: b.api_key,
      body: {
        ...CALENDAR,
        timezone: "Mars/Olympus_Mons",
        working_days: [1, 1, 2],
        holidays: ["2026-02-30"],
      },
    });
    assert.equal(r.status, 422);
    const paths = r.body.errors.map((e: { path: string }) => e.path).sort();
    assert.deepEqual(paths, ["holidays.0", "timezone", "working_days"]);
    const days = await t.call("POST", "/business/courier/calendars", {
      key: b.api_key,
      body: { ...CALENDAR, working_days: [0, 8] },
    });
    assert.equal(days.status, 422);
    const none = await t.call("POST", "/business/courier/calendars", {
      key: b.api_key,
      body: { ...CALENDAR, working_days: [] },
    });
    assert.equal(none.status, 422);
    assert.equal(none.body.errors[0].path, "working_days");
  }));

Deno.test("calendars API: a UTC offset is not an IANA timezone (422) and adds nothing", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    // spec: courier 2.8: timezone is an IANA name; a fixed offset would ignore daylight saving.
    for (const timezone of ["+02:00", "-0530", "+02"]) {
      const r = await t.call("POST", "/business/courier/calendars", {
        key: b.api_key,
        body: { ...CALENDAR, timezone },
      });
      assert.equal(r.status, 422, `${timezone}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "validation_failed");
      assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), ["timezone"]);
    }
    const listed = await t.call("GET", "/business/courier/calendars", { key: b.api_key });
    assert.deepEqual(listed.body.data, []);
    assert.equal(
      (await addCalendar(t, b, { ...CALENDAR, timezone: "europe/london" })).timezone,
      "Europe/London",
    );
  }));

Deno.test("calendars API: a second calendar with the same code answers 409 already_exists", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    await addCalendar(t, b);
    const again = await t.call("POST", "/business/courier/calendars", {
      key: b.api_key,
      body: { ...CALENDAR, name: "Other" },
    });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, "already_exists");
    // Codes are per courier: another courier may use the same one.
    await addCalendar(t, await courier(t));
  }));

Deno.test("service levels API: created with defaults (at_risk 75, adjustment 0) and listed in order", () =>
  withTestEnv(async (t) => {
    // A price adjustment (ECONOMY's -12.5 %) needs billing:administer (courier 5).
    const b = await courier(t, ["runs:override", "billing:administer"]);
    const cal = await addCalendar(t, b);
    const r = await t.call("POST", "/business/courier/service-levels", {
      key: b.api_key,
      body: serviceLevel(cal.id),
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const svc = r.body.data;
    assert.match(svc.id, /^svc_/);
    assert.equal(svc.code, "EXPRESS");
    assert.equal(svc.calendar_id, cal.id);
    assert.equal(svc.at_risk_pct, 75);
    assert.equal(svc.price_adjustment_pct, 0);
    assert.equal(svc.delivery_attempt_hours, 4.5);
    const economy = await t.call("POST", "/business/courier/service-levels", {
      key: b.api_key,
      body: serviceLevel(cal.id, {
        code: "ECONOMY",
        at_risk_pct: 90,
        price_adjustment_pct: "-12.5",
        transit_days: 0,
      }),
    });
    assert.equal(economy.status, 201, JSON.stringify(economy.body));
    assert.equal(economy.body.data.at_risk_pct, 90);
    assert.equal(economy.body.data.price_adjustment_pct, -12.5);
    const listed = await t.call("GET", "/business/courier/service-levels", { key: b.api_key });
    assert.deepEqual(listed.body.data.map((s: { code: string }) => s.code), ["EXPRESS", "ECONOMY"]);
    assert.deepEqual(listed.body.data[0], svc);
  }));

Deno.test("service levels API: an unknown calendar_id is 422, a repeated code 409", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    const other = await courier(t);
    const theirs = await addCalendar(t, other);
    for (const calendarId of ["cal_missing", theirs.id]) {
      const r = await t.call("POST", "/business/courier/service-levels", {
        key: b.api_key,
        body: serviceLevel(calendarId),
      });
      assert.equal(r.status, 422, calendarId);
      assert.equal(r.body.code, "validation_failed");
      assert.equal(r.body.errors[0].path, "calendar_id");
    }
    const cal = await addCalendar(t, b);
    const first = await t.call("POST", "/business/courier/service-levels", {
      key: b.api_key,
      body: serviceLevel(cal.id),
    });
    assert.equal(first.status, 201);
    const again = await t.call("POST", "/business/courier/service-levels", {
      key: b.api_key,
      body: serviceLevel(cal.id, { name: "Another" }),
    });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, "already_exists");
  }));

Deno.test("service levels API: bad fields are named (422)", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    const cal = await addCalendar(t, b);
    const r = await t.call("POST", "/business/courier/service-levels", {
      key: b.api_key,
      body: serviceLevel(cal.id, {
        cut_off: "24:00",
        transit_days: -1,
        linehaul_hours: 0,
        at_risk_pct: 0,
        no_scan_hours: undefined,
      }),
    });
    assert.equal(r.status, 422);
    const paths = r.body.errors.map((e: { path: string }) => e.path).sort();
    assert.deepEqual(paths, [
      "at_risk_pct",
      "cut_off",
      "linehaul_hours",
      "no_scan_hours",
      "transit_days",
    ]);
    const pct = await t.call("POST", "/business/courier/service-levels", {
      key: b.api_key,
      body: serviceLevel(cal.id, { price_adjustment_pct: -100.5 }),
    });
    assert.equal(pct.status, 422);
    assert.equal(pct.body.errors[0].path, "price_adjustment_pct");
  }));

Deno.test("service levels API: an allowance under a minute is refused (422), one minute is taken", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    const cal = await addCalendar(t, b);
    // 1e-9 hours rounds to 0 ms: its milestone would be overdue the moment it opened.
    for (const hours of [1e-9, 0.01]) {
      const r = await t.call("POST", "/business/courier/service-levels", {
        key: b.api_key,
        body: serviceLevel(cal.id, { delivery_attempt_hours: hours }),
      });
      assert.equal(r.status, 422, `${hours}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "validation_failed");
      assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), [
        "delivery_attempt_hours",
      ]);
      assert.match(r.body.errors[0].message, /one minute/);
    }
    const listed = await t.call("GET", "/business/courier/service-levels", { key: b.api_key });
    assert.deepEqual(listed.body.data, []);
    const minute = await t.call("POST", "/business/courier/service-levels", {
      key: b.api_key,
      body: serviceLevel(cal.id, { delivery_attempt_hours: 1 / 60 }),
    });
    assert.equal(minute.status, 201, JSON.stringify(minute.body));
  }));

Deno.test("service levels API: any courier principal may add one; a partner key may not", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    const cal = await addCalendar(t, b);
    await t.call("PATCH", `/operator/businesses/${b.id}`, {
      operator: true,
      body: { api_key_scopes: [] },
    });
    const plain = await t.call("POST", "/business/courier/service-levels", {
      key: b.api_key,
      body: serviceLevel(cal.id),
    });
    assert.equal(plain.status, 201, "the key's default scopes are enough");
    const partner = await t.call("POST", `/operator/businesses/${b.id}/partner-keys`, {
      operator: true,
      body: { partner: "Integrator", scopes: ["runs:override", "billing:administer"] },
    });
    assert.equal(partner.status, 201);
    const refused = await t.call("POST", "/business/courier/service-levels", {
      key: partner.body.data.key,
      body: serviceLevel(cal.id, { code: "P1" }),
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, "scope_denied");
  }));

Deno.test("calendars and service levels API: 403 while the courier platform is off", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    await t.call("PATCH", `/operator/businesses/${b.id}`, {
      operator: true,
      body: { api_key_scopes: ["runs:override"] },
    });
    const calls: [string, string, unknown][] = [
      ["POST", "/business/courier/calendars", CALENDAR],
      ["GET", "/business/courier/calendars", undefined],
      ["POST", "/business/courier/service-levels", serviceLevel("cal_x")],
      ["GET", "/business/courier/service-levels", undefined],
    ];
    for (const [method, path, body] of calls) {
      const r = await t.call(method, path, { key: b.api_key, body });
      assert.equal(r.status, 403, `${method} ${path}`);
      assert.equal(r.body.code, "courier_platform_disabled");
    }
  }));

Deno.test("facilities API: POST {code, name, country, timezone} answers 201 {id, ...}, listed by GET", () =>
  withTestEnv(async (t) => {
    const b = await courier(t, []);
    const body = {
      code: "GBE-HUB",
      name: "Gaborone hub",
      country: "BW",
      timezone: "Africa/Gaborone",
      status: "closed", // a field no caller sets: ignored
    };
    const r = await t.call("POST", "/business/courier/facilities", { key: b.api_key, body });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const f = r.body.data;
    assert.match(f.id, /^fac_/);
    assert.equal(f.code, "GBE-HUB");
    assert.equal(f.name, "Gaborone hub");
    assert.equal(f.country, "BW");
    assert.equal(f.timezone, "Africa/Gaborone");
    assert.equal(f.status, undefined);

    const again = await t.call("POST", "/business/courier/facilities", { key: b.api_key, body });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, "already_exists");

    const bad = await t.call("POST", "/business/courier/facilities", {
      key: b.api_key,
      body: { code: "X", name: "X", country: "Botswana", timezone: "Mars/Olympus" },
    });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.code, "validation_failed");
    const paths = bad.body.errors.map((e: { path: string }) => e.path).sort();
    assert.deepEqual(paths, ["country", "timezone"]);

    const list = await t.call("GET", "/business/courier/facilities", { key: b.api_key });
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data.map((x: { id: string }) => x.id), [f.id]);

    const other = await courier(t, []);
    const theirs = await t.call("GET", "/business/courier/facilities", { key: other.api_key });
    assert.deepEqual(theirs.body.data, [], "another courier sees none of them");
  }));

/** Every Monday from `first` on, `count` of them (`YYYY-MM-DD`). */
function mondays(first: string, count: number): string[] {
  const start = Temporal.PlainDate.from(first);
  return Array.from({ length: count }, (_, i) => start.add({ weeks: i }).toString());
}

/** The longest hours the API accepts, for every milestone. */
const LONGEST_HOURS = Object.fromEntries(Object.keys(HOURS).map((k) => [k, 8_784]));

Deno.test("service levels API: the most contrived accepted calendar prices and books, never 500", () =>
  withTestEnv(async (t) => {
    const c = await newCourier(t);
    const key = c.business.api_key;
    // One working day a week, every holiday on it (from the week after the booking), the longest
    // hours and transit: the deadlines lie years ahead, and must still be worked out.
    const cal = await addCalendar(t, c.business, {
      code: "MONDAYS",
      name: "Mondays only",
      timezone: "Africa/Gaborone",
      working_days: [1],
      holidays: mondays("2026-11-09", HOLIDAYS_MAX),
    });
    const sl = await t.call("POST", "/business/courier/service-levels", {
      key,
      body: serviceLevel(cal.id, { code: "slow", transit_days: 90, ...LONGEST_HOURS }),
    });
    assert.equal(sl.status, 201, JSON.stringify(sl.body));
    const client = await newClient(t, c);
    await topUp(t, c, client, "10000");
    // Monday 2026-11-02 08:00 UTC is 10:00 in Gaborone, before the 16:00 cut-off.
    const shipment = await bookShipment(t, client, {}, { service_level: "slow" });
    const ops = await t.call("GET", `/business/courier/operations/${shipment.waybill}`, { key });
    assert.equal(ops.status, 200, JSON.stringify(ops.body));
  }));
