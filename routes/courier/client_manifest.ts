/**
 * Courier 4.6 `GET /client/collection-manifest`: the calling client's shipments awaiting
 * collection today, with totals, for handing parcels to the driver. "Today" is each shipment's
 * own: its promised collection date (pricing promise, 2.2 `collection_on`) against the date now
 * in its service level's calendar timezone (2.8), on the injected clock. Read from the query side.
 */
import { client, clientPrincipalOf } from "../../src/courier/auth.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { define, z } from "../../src/http/route.ts";
import { CalendarDay, UtcInstant } from "../../src/http/schemas.ts";
import type { ShipmentSnapshot } from "../../src/courier/queries/operations_row.ts";
import { collectionCandidates } from "../../src/courier/queries/shipments.ts";
import type { Keyset, KeysetPage } from "../../src/db/keyset.ts";
import { COLLECTION_MANIFEST_SHIPMENTS_MAX } from "../../src/limits.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
/** Headline statuses before collection (courier 3.2). */
const AWAITING_COLLECTION = ["booked", "awaiting_collection"] as const;
/** Rows read at a time from the three days' window (see the route). */
const MANIFEST_PAGE_ROWS = 500;

// ---- Answers (documentation: tests/http/answers_client_test.ts holds answers to them).

/** One shipment to hand to the driver (manifestRow). */
const ManifestRowAnswer = z.object({
  waybill: z.string(),
  status: z.enum(AWAITING_COLLECTION),
  collection_on: CalendarDay.openapi({ description: "The promised collection date: today" }),
  sender: z.object({
    name: z.string().nullable(),
    address: z.string().nullable(),
  }).openapi("CollectionManifestSender"),
  recipient: z.object({
    name: z.string().nullable(),
    address: z.string().nullable(),
    phone: z.string().nullable(),
  }).openapi("CollectionManifestRecipient"),
  pieces: z.number().int(),
  weight_kg: z.number().openapi({ description: "The parcels' actual weights added up" }),
  service: z.object({ code: z.string(), name: z.string() }).openapi("CollectionManifestService"),
  references: z.object({
    external_customer_code: z.string().nullable(),
    external_billing_reference: z.string().nullable(),
    client_order_reference: z.string().nullable(),
  }).openapi("CollectionManifestReferences"),
}).openapi("CollectionManifestShipment");

export const ManifestAnswer = z.object({
  generated_at: UtcInstant,
  shipments: z.array(ManifestRowAnswer).openapi({
    description: `Earliest booked first, at most ${COLLECTION_MANIFEST_SHIPMENTS_MAX}`,
  }),
  totals: z.object({
    shipments: z.number().int(),
    pieces: z.number().int(),
    weight_kg: z.number(),
  }).openapi("CollectionManifestTotals"),
  truncated: z.boolean().openapi({
    description: "true: the list may be cut short (more than " +
      `${COLLECTION_MANIFEST_SHIPMENTS_MAX} shipments awaiting collection within a day of ` +
      "today); the totals are of those listed",
  }),
}).openapi("CollectionManifest");

/** The date at `now` in a calendar's timezone, `YYYY-MM-DD`. */
export function localDate(now: number, timezone: string): string {
  return Temporal.Instant.fromEpochMilliseconds(now).toZonedDateTimeISO(timezone).toPlainDate()
    .toString();
}

function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function timezoneOf(s: ShipmentSnapshot): string {
  const calendar = (s.service_terms as { calendar?: { timezone?: unknown } }).calendar;
  return typeof calendar?.timezone === "string" ? calendar.timezone : "UTC";
}

/** Weights summed in grams, so totals are exact. */
function grams(kg: number): number {
  return Math.round(kg * 1000);
}

function manifestRow(s: ShipmentSnapshot) {
  const weight = s.parcels.reduce((n, p) => n + grams(p.weight_kg), 0);
  return {
    waybill: s.waybill,
    status: s.status,
    collection_on: s.pricing.promise.collection_on,
    sender: { name: s.sender.name, address: s.sender.address },
    recipient: {
      name: s.recipient.name,
      address: s.recipient.address,
      phone: s.recipient.phone,
    },
    pieces: s.parcels.length,
    weight_kg: weight / 1000,
    service: { code: s.pricing.service.code, name: s.pricing.service.name },
    references: {
      external_customer_code: s.references.external_customer_code,
      external_billing_reference: s.references.external_billing_reference,
      client_order_reference: s.references.client_order_reference,
    },
  };
}

export function clientManifestRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/client/collection-manifest",
    summary: "Today's collection manifest: the client's shipments awaiting collection today " +
      "(in their service level's timezone), with totals of shipments, pieces and kg",
    tag: "Client API",
    security: "client",
    middleware: [client()],
    response: ManifestAnswer,
  }, async (c) => {
    const p = clientPrincipalOf(c);
    const env = c.get("env");
    const now = env.clock.now();
    // Every timezone's today lies within a day of UTC's: the window holds it, and the exact date
    // is checked per row. The window is read a page at a time until the cap is passed: a page of
    // the window can hold only yesterday's or tomorrow's shipments, and today's would be missed.
    const window = {
      statuses: AWAITING_COLLECTION,
      from: utcDate(now - DAY_MS),
      to: utcDate(now + DAY_MS),
    };
    const today: ShipmentSnapshot[] = [];
    let after: Keyset | null = null;
    for (;;) {
      const page: KeysetPage<ShipmentSnapshot> = await collectionCandidates(
        env.db,
        p.business.id,
        p.client_id,
        window,
        { limit: MANIFEST_PAGE_ROWS, after },
      );
      for (const s of page.rows) {
        if (s.pricing.promise.collection_on === localDate(now, timezoneOf(s))) today.push(s);
      }
      if (page.next === null) break;
      if (today.length > COLLECTION_MANIFEST_SHIPMENTS_MAX) break;
      after = page.next;
    }
    const shipments = today.slice(0, COLLECTION_MANIFEST_SHIPMENTS_MAX).map(manifestRow);
    const totalGrams = shipments.reduce((n, s) => n + grams(s.weight_kg), 0);
    return ok(c, {
      generated_at: new Date(now).toISOString(),
      shipments,
      totals: {
        shipments: shipments.length,
        pieces: shipments.reduce((n, s) => n + s.pieces, 0),
        weight_kg: totalGrams / 1000,
      },
      truncated: today.length > COLLECTION_MANIFEST_SHIPMENTS_MAX,
    });
  });
}
