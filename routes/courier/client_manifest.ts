/**
 * Courier 4.6 `GET /client/collection-manifest`: the calling client's shipments awaiting
 * collection today, with totals, for handing parcels to the driver. "Today" is each shipment's
 * own: its promised collection date (pricing promise, 2.2 `collection_on`) against the date now
 * in its service level's calendar timezone (2.8), on the injected clock. Read from the query side.
 */
import { sql } from "kysely";
import { shipmentActor } from "../../actors/courier/shipment/mod.ts";
import { client, clientPrincipalOf } from "../../src/courier/auth.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { define } from "../../src/http/route.ts";
import type { ShipmentSnapshot } from "../../src/courier/queries/operations_row.ts";
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
    const collectionOn = sql<string>`data->'pricing'->'promise'->>'collection_on'`;
    const bookedAt = sql<string>`(data->>'booked_at')::bigint`;
    // Every timezone's today lies within a day of UTC's: the window holds it, and the exact date
    // is checked per row. The window is read a page at a time until the cap is passed: a page of
    // the window can hold only yesterday's or tomorrow's shipments, and today's would be missed.
    const today: ShipmentSnapshot[] = [];
    let after: { booked_at: number; id: string } | null = null;
    for (;;) {
      let q = env.db.selectFrom("snapshots").select(["id", "data"])
        .where("type", "=", shipmentActor.type)
        .where("tenant", "=", p.business.id)
        .where(sql<string>`data->>'client_id'`, "=", p.client_id)
        .where(sql<string>`data->>'status'`, "in", AWAITING_COLLECTION)
        .where(collectionOn, ">=", utcDate(now - DAY_MS))
        .where(collectionOn, "<=", utcDate(now + DAY_MS));
      if (after) {
        q = q.where(
          sql<boolean>`(${bookedAt}, id) > (${String(after.booked_at)}::bigint, ${after.id})`,
        );
      }
      const page = await q.orderBy(bookedAt).orderBy("id").limit(MANIFEST_PAGE_ROWS).execute();
      for (const r of page) {
        const s = r.data as ShipmentSnapshot;
        if (s.pricing.promise.collection_on === localDate(now, timezoneOf(s))) today.push(s);
      }
      const last = page.at(-1);
      if (!last || page.length < MANIFEST_PAGE_ROWS) break;
      if (today.length > COLLECTION_MANIFEST_SHIPMENTS_MAX) break;
      after = { booked_at: Number((last.data as ShipmentSnapshot).booked_at), id: last.id };
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
