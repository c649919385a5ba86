/**
 * Courier 2.3, 2.8 and CONTRACT "Facility": calendars, facilities and service levels as the
 * courier manages them, and the service terms a shipment froze at booking.
 */
import type {
  Calendar,
  Facility,
  ServiceLevel,
} from "../../../actors/courier/courier_catalogue.ts";
import { z } from "../../../src/http/route.ts";
import { CalendarDay, Country, UtcInstant } from "../../../src/http/schemas.ts";

/** spec: courier 2.8: a calendar (calendarView). */
export const CalendarAnswer = z.object({
  id: z.string(),
  code: z.string(),
  name: z.string(),
  timezone: z.string().openapi({ description: "IANA name", example: "Africa/Gaborone" }),
  working_days: z.array(z.number().int().min(1).max(7)).openapi({
    description: "ISO weekdays: 1 Monday to 7 Sunday",
  }),
  holidays: z.array(CalendarDay),
  created_at: UtcInstant,
}).openapi("Calendar");

/** CONTRACT "Facility" (facilityView). */
export const FacilityAnswer = z.object({
  id: z.string(),
  code: z.string(),
  name: z.string(),
  country: Country,
  timezone: z.string(),
  created_at: UtcInstant,
}).openapi("Facility");

const WorkingHours = z.number().openapi({ description: "Working hours, in the calendar's days" });

/** spec: courier 2.8: a service level (serviceLevelView). */
export const ServiceLevelAnswer = z.object({
  id: z.string(),
  code: z.string().openapi({ description: "What a booking sends as service_level" }),
  name: z.string(),
  transit_days: z.number().int(),
  cut_off: z.string().openapi({ description: "HH:MM in the calendar's timezone" }),
  calendar_id: z.string(),
  collection_due_hours: WorkingHours,
  depot_dwell_hours: WorkingHours,
  border_presentation_hours: WorkingHours,
  customs_wait_hours: WorkingHours,
  linehaul_hours: WorkingHours,
  destination_dwell_hours: WorkingHours,
  delivery_attempt_hours: WorkingHours,
  redelivery_due_hours: WorkingHours,
  no_scan_hours: WorkingHours,
  at_risk_pct: z.number().int(),
  price_adjustment_pct: z.number().openapi({ description: "The service-level adjustment, %" }),
  created_at: UtcInstant,
}).openapi("ServiceLevel");

/** spec: courier 2.3, 2.8: the terms a shipment froze at booking, with its calendar. */
export const ServiceTermsAnswer = ServiceLevelAnswer.extend({ calendar: CalendarAnswer.optional() })
  .openapi("FrozenServiceTerms");

export function calendarView(cal: Calendar) {
  return {
    id: cal.id,
    code: cal.code,
    name: cal.name,
    timezone: cal.timezone,
    working_days: cal.working_days,
    holidays: cal.holidays,
    created_at: new Date(cal.created_at).toISOString(),
  };
}

export function facilityView(f: Facility) {
  return {
    id: f.id,
    code: f.code,
    name: f.name,
    country: f.country,
    timezone: f.timezone,
    created_at: new Date(f.created_at).toISOString(),
  };
}

export function serviceLevelView(s: ServiceLevel) {
  const { price_adjustment_bp, created_at, ...rest } = s;
  return {
    ...rest,
    price_adjustment_pct: price_adjustment_bp / 100,
    created_at: new Date(created_at).toISOString(),
  };
}

/**
 * The service-level terms a shipment froze at booking (courier 2.3, 2.8), shown as the service
 * level and its calendar are shown where they are managed. Frozen terms are stored as they stood:
 * fields are named and typed here, never read raw.
 */
export function frozenServiceTermsView(terms: Readonly<Record<string, unknown>>) {
  const { calendar, ...level } = terms as unknown as ServiceLevel & { calendar?: Calendar };
  return {
    ...serviceLevelView(level),
    ...(calendar ? { calendar: calendarView(calendar) } : {}),
  };
}
