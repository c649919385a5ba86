/**
 * Courier 4.6 `GET /client/collection-manifest`: the calling client's shipments awaiting
 * collection today, with totals, for handing parcels to the driver. "Today" is each shipment's
 * own: its promised collection date (pricing promise, 2.2 `collection_on`) against the date now
 * in its service level's calendar timezone (2.8), on the injected clock. Read from the query side.
 */
import { client, clientPrincipalOf } from "../../src/courier/auth.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { define } from "../../src/http/route.ts";
import type { ShipmentSnapshot } from "../../src/courier/queries/operations_row.ts";
import { collectionCandidates } from "../../src/courier/queries/shipments.ts";
import type { Keyset, KeysetPage } from "../../src/db/keyset.ts";
import { COLLECTION_MANIFEST_SHIPMENTS_MAX } from "../../src/limits.ts";
import {
  AWAITING_COLLECTION,
  grams,
  ManifestAnswer,
  manifestRow,
} from "./answers/client_manifest.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
/** Rows read at a time from the three days' window (see the route). */
const MANIFEST_PAGE_ROWS = 500;

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
