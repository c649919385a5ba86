/**
 * A courier's catalogue (courier 2.8, 4.4; CONTRACT calendar and service level): its working
 * calendars and service levels, its facilities (CONTRACT "Facility"), and the ids of its rate
 * cards so listing them needs no query side. Few and small, read whenever a price is worked out.
 * Tenant = id = the courier business id.
 */
import type { ServiceHours } from "../../src/courier/rules/lifecycle.ts";
import { accept, type ActorDefinition, reject, unreachable } from "../../src/runtime/actor.ts";
import { STATE_BYTES_MAX } from "../../src/limits.ts";

/** A courier runs a handful of calendars (one per country or region). */
export const CALENDARS_MAX = 20;
/** Service levels a courier offers; each one is an option when pricing. */
export const SERVICE_LEVELS_MAX = 50;
/** Depots, hubs and border offices a courier registers. */
export const FACILITIES_MAX = 200;
/** Rate cards a courier keeps; a card holds its own versions. */
export const RATE_CARDS_MAX = 500;
/** Room left under STATE_BYTES_MAX for the runtime's record envelope. */
const CATALOGUE_BYTES_MAX = STATE_BYTES_MAX - 4_000;

/** ISO weekday: 1 Monday to 7 Sunday. */
export type IsoWeekday = 1 | 2 | 3 | 4 | 5 | 6 | 7;

export interface Calendar {
  readonly id: string;
  readonly code: string;
  readonly name: string;
  /** IANA name, canonical as the runtime resolves it. */
  readonly timezone: string;
  /** Sorted, unique. */
  readonly working_days: readonly IsoWeekday[];
  /** `YYYY-MM-DD`, sorted, unique. */
  readonly holidays: readonly string[];
  readonly created_at: number;
}

/** The nine milestone allowances of a service level, in working hours (courier 2.8). */
export type { ServiceHours };

export interface ServiceLevel extends ServiceHours {
  readonly id: string;
  /** What a booking sends as `service_level`. */
  readonly code: string;
  readonly name: string;
  readonly transit_days: number;
  /** `HH:MM` in the calendar's timezone. */
  readonly cut_off: string;
  readonly calendar_id: string;
  /** Health turns at risk when this share of a milestone's allowance is used (1..100). */
  readonly at_risk_pct: number;
  /** The service-level adjustment line when pricing, in basis points (may be negative). */
  readonly price_adjustment_bp: number;
  readonly created_at: number;
}

/** A depot, hub or border office (CONTRACT "Facility"): `{code, name, country, timezone}`. */
export interface Facility {
  readonly id: string;
  /** Unique per courier; what runs and scans name as their facility. */
  readonly code: string;
  readonly name: string;
  /** ISO 3166-1 alpha-2. */
  readonly country: string;
  /** IANA name, canonical as the runtime resolves it. */
  readonly timezone: string;
  readonly created_at: number;
}

export interface CourierCatalogue {
  readonly calendars: readonly Calendar[];
  readonly service_levels: readonly ServiceLevel[];
  /** In creation order. */
  readonly facilities: readonly Facility[];
  /** In creation order. */
  readonly rate_card_ids: readonly string[];
}

export type CourierCatalogueCommand =
  | { kind: "add_calendar"; calendar: Omit<Calendar, "created_at">; by: string }
  | { kind: "add_service_level"; service_level: Omit<ServiceLevel, "created_at">; by: string }
  | { kind: "register_rate_card"; id: string; by: string }
  | { kind: "add_facility"; facility: Omit<Facility, "created_at">; by: string }
  | { kind: "get" };

export type CourierCatalogueEvent =
  | { kind: "calendar_added"; calendar: Calendar; by: string }
  | { kind: "service_level_added"; service_level: ServiceLevel; by: string }
  | { kind: "rate_card_registered"; id: string; by: string }
  | { kind: "facility_added"; facility: Facility; by: string };

export const EMPTY_CATALOGUE: CourierCatalogue = {
  calendars: [],
  service_levels: [],
  facilities: [],
  rate_card_ids: [],
};

type D = ReturnType<typeof accept<CourierCatalogue, CourierCatalogueEvent, CourierCatalogue>>;

function ok(events: CourierCatalogueEvent[]): D {
  return accept(events, (s) => s);
}

function decide(
  state: CourierCatalogue,
  command: CourierCatalogueCommand | { kind: "timer" },
  ctx: { now: number },
) {
  switch (command.kind) {
    case "get":
    case "timer":
      return ok([]);
    case "add_calendar": {
      const { calendar } = command;
      if (state.calendars.some((c) => c.code === calendar.code)) {
        return reject("already_exists", `a calendar already has this code: ${calendar.code}`);
      }
      if (state.calendars.length >= CALENDARS_MAX) {
        return reject("catalogue_full", `a courier keeps at most ${CALENDARS_MAX} calendars`);
      }
      return checked(state, [{
        kind: "calendar_added",
        calendar: { ...calendar, created_at: ctx.now },
        by: command.by,
      }]);
    }
    case "add_service_level": {
      const level = command.service_level;
      if (serviceLevelByCode(state, level.code)) {
        return reject("already_exists", `a service level already has this code: ${level.code}`);
      }
      if (!state.calendars.some((c) => c.id === level.calendar_id)) {
        const message = `unknown calendar: ${level.calendar_id}`;
        return reject("validation_failed", `invalid request: calendar_id: ${message}`, {
          errors: [{ path: "calendar_id", message }],
        });
      }
      if (state.service_levels.length >= SERVICE_LEVELS_MAX) {
        return reject(
          "catalogue_full",
          `a courier keeps at most ${SERVICE_LEVELS_MAX} service levels`,
        );
      }
      return checked(state, [{
        kind: "service_level_added",
        service_level: { ...level, created_at: ctx.now },
        by: command.by,
      }]);
    }
    case "register_rate_card":
      if (state.rate_card_ids.includes(command.id)) return ok([]);
      if (state.rate_card_ids.length >= RATE_CARDS_MAX) {
        return reject("catalogue_full", `a courier keeps at most ${RATE_CARDS_MAX} rate cards`);
      }
      return checked(state, [{ kind: "rate_card_registered", id: command.id, by: command.by }]);
    case "add_facility": {
      const { facility } = command;
      if (state.facilities.some((f) => f.code === facility.code)) {
        return reject("already_exists", `a facility already has this code: ${facility.code}`);
      }
      if (state.facilities.length >= FACILITIES_MAX) {
        return reject("catalogue_full", `a courier keeps at most ${FACILITIES_MAX} facilities`);
      }
      return checked(state, [{
        kind: "facility_added",
        facility: { ...facility, created_at: ctx.now },
        by: command.by,
      }]);
    }
    default:
      return unreachable(command);
  }
}

/** Refuses, with a stable code, a change that would not fit in one stored state. */
function checked(state: CourierCatalogue, events: CourierCatalogueEvent[]) {
  const bytes = JSON.stringify(events.reduce(evolve, state)).length;
  if (bytes > CATALOGUE_BYTES_MAX) {
    return reject("catalogue_full", `the courier's catalogue is full: ${bytes} bytes`);
  }
  return ok(events);
}

function evolve(state: CourierCatalogue, event: CourierCatalogueEvent): CourierCatalogue {
  switch (event.kind) {
    case "calendar_added":
      return { ...state, calendars: [...state.calendars, event.calendar] };
    case "service_level_added":
      return { ...state, service_levels: [...state.service_levels, event.service_level] };
    case "rate_card_registered":
      return { ...state, rate_card_ids: [...state.rate_card_ids, event.id] };
    case "facility_added":
      return { ...state, facilities: [...state.facilities, event.facility] };
    default:
      return unreachable(event);
  }
}

/** The service level a booking names by its code, or null. */
export function serviceLevelByCode(
  catalogue: CourierCatalogue,
  code: string,
): ServiceLevel | null {
  return catalogue.service_levels.find((s) => s.code === code) ?? null;
}

/** A calendar by its id, or null. */
export function calendarById(catalogue: CourierCatalogue, id: string): Calendar | null {
  return catalogue.calendars.find((c) => c.id === id) ?? null;
}

/** Version 1 had no facilities; such a catalogue is read as version 2 with none. */
function load(stored: unknown, version: number): CourierCatalogue {
  if (typeof stored !== "object" || stored === null || !("calendars" in stored)) {
    throw new TypeError("stored courier catalogue is not a catalogue");
  }
  const catalogue = stored as CourierCatalogue;
  if (version >= 2 && Array.isArray(catalogue.facilities)) return catalogue;
  return { ...catalogue, facilities: catalogue.facilities ?? [] };
}

export const courierCatalogueActor: ActorDefinition<
  CourierCatalogue,
  CourierCatalogueCommand,
  CourierCatalogueEvent,
  CourierCatalogue
> = {
  type: "courier_catalogue",
  version: 2,
  initial: EMPTY_CATALOGUE,
  decide,
  evolve,
  load,
  // Nothing here is secret.
  project: (s) => s,
};
