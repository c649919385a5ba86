/**
 * Courier 2.8 and 4.4 (calendar and service-level rows): the working calendars milestone hours
 * count on, and the service levels a booking names by code; and the courier's facilities
 * (CONTRACT "Facility"). All live in the courier's catalogue actor, the decision source when
 * pricing and when milestones fall due.
 */
import {
  type CourierCatalogue,
  courierCatalogueActor,
  type IsoWeekday,
} from "../../actors/courier/courier_catalogue.ts";
import { isValidTimeZone } from "../../src/domain/calendar.ts";
import { toBasisPoints } from "../../src/domain/money.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { requireScope } from "../../src/platform/auth/principal.ts";
import { courierPlatform } from "../../src/courier/auth.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { validationFailed } from "../../src/http/errors.ts";
import { define, z } from "../../src/http/route.ts";
import { Country } from "../../src/http/schemas.ts";
import { newId } from "../../src/runtime/ids.ts";
import { ask, read } from "../../src/http/ask.ts";
import {
  CalendarAnswer,
  calendarView,
  FacilityAnswer,
  facilityView,
  ServiceLevelAnswer,
  serviceLevelView,
} from "./answers/service_levels.ts";

const tag = "Calendars and service levels";
const security = "business" as const;

/** Holidays one calendar lists; a few years of public holidays fit well inside this. */
export const HOLIDAYS_MAX = 200;
/** A milestone allowance longer than a year of hours is a mistake, not a service. */
const HOURS_MAX = 8_784;
/**
 * A minute: an allowance shorter than that rounds to nothing on the clock, so its milestone would
 * be overdue the moment it opens (a typo such as 1e-9 for 1, not a service).
 */
const HOURS_MIN = 1 / 60;
/** A shipment stays open 1 to 14 days (courier 1.4); a transit of months is a mistake. */
const TRANSIT_DAYS_MAX = 90;

const Code = z.string().regex(
  /^[A-Za-z0-9._-]{1,40}$/,
  "1 to 40 letters, digits, dot, dash, underscore",
);
const Name = z.string().trim().min(1).max(200);

const Timezone = z.string().trim().min(1).max(64).transform((tz, ctx) => {
  // spec: courier 2.8: an IANA name; a fixed offset (`+02:00`) would ignore daylight saving.
  if (!isValidTimeZone(tz)) {
    ctx.addIssue({ code: "custom", message: `not an IANA time zone: ${tz}` });
    return z.NEVER;
  }
  try {
    return Intl.DateTimeFormat(undefined, { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    ctx.addIssue({ code: "custom", message: `not an IANA time zone: ${tz}` });
    return z.NEVER;
  }
}).openapi({ type: "string", example: "Africa/Gaborone" });

const HolidayDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "YYYY-MM-DD").refine(
  isCalendarDate,
  "not a calendar date",
);

const CreateCalendar = z.object({
  code: Code,
  name: Name,
  timezone: Timezone,
  // An integer range, not z.literal([...]): the OpenAPI generator shows only a literal's first value.
  working_days: z.array(z.number().int().min(1).max(7)).min(1).max(7).refine(
    (days) => new Set(days).size === days.length,
    "each day at most once",
  ).openapi({ description: "ISO weekdays: 1 Monday to 7 Sunday", example: [1, 2, 3, 4, 5] }),
  holidays: z.array(HolidayDate).max(HOLIDAYS_MAX).default([]),
}).openapi("CreateCalendar");

const CreateFacility = z.object({
  code: Code.openapi({
    description: "Unique per courier; what runs and scans name",
    example: "GBE-HUB",
  }),
  name: Name,
  country: Country,
  timezone: Timezone,
}).openapi("CreateFacility");

const Hours = z.number().min(HOURS_MIN, "at least one minute (1/60 of an hour)").max(HOURS_MAX);

const CreateServiceLevel = z.object({
  code: Code.openapi({ description: "What a booking sends as service_level" }),
  name: Name,
  transit_days: z.number().int().min(0).max(TRANSIT_DAYS_MAX),
  cut_off: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "HH:MM, 24-hour").openapi({
    description: "In the calendar's timezone",
    example: "16:00",
  }),
  calendar_id: z.string().min(1).max(64),
  collection_due_hours: Hours,
  depot_dwell_hours: Hours,
  border_presentation_hours: Hours,
  customs_wait_hours: Hours,
  linehaul_hours: Hours,
  destination_dwell_hours: Hours,
  delivery_attempt_hours: Hours,
  redelivery_due_hours: Hours,
  no_scan_hours: Hours,
  at_risk_pct: z.number().int().min(1).max(100).default(75),
  price_adjustment_pct: z.union([z.number(), z.string()]).optional().openapi({
    description: "The service-level adjustment when pricing, -100 to 1000, 2 decimals; default " +
      "0. Other than 0 it needs the scope billing:administer, as a rate card's terms do",
    example: 15,
  }),
}).openapi("CreateServiceLevel");

function isCalendarDate(s: string): boolean {
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

/** `-12.5` to -1250 basis points, exactly; null when malformed or outside -100..1000 %. */
function adjustmentBasisPoints(pct: number | string): number | null {
  const text = typeof pct === "number" ? String(pct) : pct.trim();
  const negative = text.startsWith("-");
  const bp = toBasisPoints(negative ? text.slice(1) : text);
  if (bp === null) return null;
  const signed = negative && bp !== 0 ? -bp : bp;
  return signed >= -10_000 && signed <= 100_000 ? signed : null;
}

/** A GET of one part of the courier's catalogue, as its views. */
function listRoute(
  api: Api,
  path: string,
  summary: string,
  view: (catalogue: CourierCatalogue) => unknown[],
  item: z.ZodType,
): void {
  define(api, {
    method: "get",
    path,
    summary,
    tag,
    security,
    middleware: [business(), courierPlatform],
    response: z.array(item),
  }, async (c) => {
    const { tenant } = businessCall(c);
    return ok(c, view(await read(c, courierCatalogueActor, tenant, tenant, { kind: "get" })));
  });
}

/** The item the catalogue's answer holds under the id just added. */
function addedOf<T extends { readonly id: string }>(
  items: readonly T[],
  id: string,
  what: string,
): T {
  const added = items.find((i) => i.id === id);
  if (!added) throw new Error(`${what} ${id} missing after it was added`);
  return added;
}

export function serviceLevelRoutes(api: Api): void {
  define(api, {
    method: "post",
    path: "/business/courier/calendars",
    summary: "Add a working calendar (courier 2.8); hours count on its working days only",
    tag,
    security,
    middleware: [business({ scope: "runs:override" }), courierPlatform],
    body: CreateCalendar,
    status: 201,
    response: CalendarAnswer,
    refusals: {
      already_exists: "a calendar of the courier's already has this code",
      catalogue_full: "the courier keeps as many calendars as it may, or its catalogue is full",
    },
  }, async (c, { body }) => {
    const { tenant, by } = businessCall(c);
    const id = newId("cal");
    const catalogue = await ask(c, courierCatalogueActor, tenant, tenant, {
      kind: "add_calendar",
      calendar: {
        id,
        code: body.code,
        name: body.name,
        timezone: body.timezone,
        // 1 to 7, checked by the schema above.
        working_days: [...body.working_days].sort((a, b) => a - b) as IsoWeekday[],
        holidays: [...new Set(body.holidays)].sort(),
      },
      by,
    });
    const added = addedOf(catalogue.calendars, id, "calendar");
    return ok(c, calendarView(added), 201);
  });

  listRoute(
    api,
    "/business/courier/calendars",
    "The courier's working calendars",
    (cat) => cat.calendars.map(calendarView),
    CalendarAnswer,
  );

  define(api, {
    method: "post",
    path: "/business/courier/service-levels",
    summary: "Add a service level (courier 2.8); a booking names it by code",
    tag,
    security,
    middleware: [business(), courierPlatform],
    body: CreateServiceLevel,
    status: 201,
    response: ServiceLevelAnswer,
    refusals: {
      already_exists: "a service level of the courier's already has this code",
      validation_failed: "calendar_id is none of the courier's calendars",
      catalogue_full:
        "the courier keeps as many service levels as it may, or its catalogue is full",
      scope_denied: "a price_adjustment_pct other than 0 without the scope `billing:administer`",
    },
  }, async (c, { body }) => {
    const { tenant, by, principal } = businessCall(c);
    const { price_adjustment_pct, ...level } = body;
    const bp = price_adjustment_pct === undefined ? 0 : adjustmentBasisPoints(price_adjustment_pct);
    if (bp === null) {
      throw validationFailed([{
        path: "price_adjustment_pct",
        message: `a percentage from -100 to 1000, 2 decimals: ${price_adjustment_pct}`,
      }]);
    }
    // spec: courier 2.2, 5: the adjustment is a line of every client's price, set as a rate
    // card's terms are, by billing:administer; without one the card prices the option as it is.
    if (bp !== 0) requireScope(principal, "billing:administer");
    const id = newId("svc");
    const catalogue = await ask(c, courierCatalogueActor, tenant, tenant, {
      kind: "add_service_level",
      service_level: { id, ...level, price_adjustment_bp: bp },
      by,
    });
    const added = addedOf(catalogue.service_levels, id, "service level");
    return ok(c, serviceLevelView(added), 201);
  });

  listRoute(
    api,
    "/business/courier/service-levels",
    "The courier's service levels",
    (cat) => cat.service_levels.map(serviceLevelView),
    ServiceLevelAnswer,
  );

  define(api, {
    method: "post",
    path: "/business/courier/facilities",
    summary: "Register a facility (depot, hub, border office): {code, name, country, timezone}",
    tag,
    security,
    middleware: [business(), courierPlatform],
    body: CreateFacility,
    status: 201,
    response: FacilityAnswer,
    refusals: {
      already_exists: "a facility of the courier's already has this code",
      catalogue_full: "the courier keeps as many facilities as it may, or its catalogue is full",
    },
  }, async (c, { body }) => {
    const { tenant, by } = businessCall(c);
    const id = newId("fac");
    const catalogue = await ask(c, courierCatalogueActor, tenant, tenant, {
      kind: "add_facility",
      facility: { id, ...body },
      by,
    });
    const added = addedOf(catalogue.facilities, id, "facility");
    return ok(c, facilityView(added), 201);
  });

  listRoute(
    api,
    "/business/courier/facilities",
    "The courier's facilities",
    (cat) => cat.facilities.map(facilityView),
    FacilityAnswer,
  );
}
