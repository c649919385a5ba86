/**
 * The path and query parameters of the OpenAPI document's operations, mapped to the fixture
 * world's identifiers (guard_world.ts), for the tests generated from the document. A parameter
 * named nowhere here fails the test that meets it, by name: a new kind of identifier is added
 * here, never skipped.
 */
import assert from "node:assert/strict";
import { nameOf, type Operation, type Param } from "./openapi_ops.ts";

/** Parameters that name no resource: filters, pages, formats and fixed sets. */
const NOT_RESOURCES = new Set([
  "action",
  "file",
  "status",
  "kind",
  "owner",
  "health",
  "next_owner",
  "overdue",
  "open_alerts",
  "include_closed",
  "event_type",
  "limit",
  "cursor",
  "offset",
  "after",
  "from",
  "to",
  "period",
  "timezone",
  "supplier",
  // Business API 4.1 fare-estimate: coordinates and goods, and a vehicle type of the shared
  // catalogue (reference data every business reads alike).
  "pickup_lat",
  "pickup_lng",
  "dest_lat",
  "dest_lng",
  "stops",
  "vehicle_type_id",
  "parcel_size",
  "parcel_weight_kg",
  // Business API 4.1 GET /business/trips: filters of the caller's own list.
  "month",
  "search",
  "test",
  "per_page",
  // Business API 4.1 packing slip: how many pieces to print.
  "pieces",
  // Business API 4.1 GET /business/checkouts: a filter of the caller's own list.
  "cart_reference",
]);

/** The tenant's identifier a parameter names (Tenant.ids), by name and, for `id`, by path. */
export function resourceOf(op: Operation, p: Param, where: "path" | "query"): string | null {
  if (NOT_RESOURCES.has(p.name) || p.schema.enum) return null;
  const byName: Record<string, string> = where === "path"
    ? {
      client: "client",
      waybill: "waybill",
      reference: op.path.includes("/quotes/")
        ? "quote"
        // Shopping 4: a shopping order's trip reference (its shopper's and sandbox's too).
        : ["/business/shopping-orders/", "/business/sandbox/shopping-orders/", "/driver/shopping/"]
            .some((p) => op.path.startsWith(p))
        ? "shopping_order"
        : op.path.startsWith("/business/checkouts/")
        ? "checkout"
        : ["/business/trip/", "/business/sandbox/trips/", "/driver/trips/", "/trip-chat/"].some((
            p,
          ) => op.path.startsWith(p)
          )
        ? "trip"
        : "waybill",
      sha256: "sha256",
      event_id: "event",
      name: "view",
      run: "run",
      stop: "stop",
      card: "rate_card",
      version: "rate_card_version",
      crossing: "crossing",
      code: "checklist",
      store: "store",
      // Business API 4.1: a trip's id or reference, its tracking token, a dispatch offer.
      trip: "trip",
      token: "tracking_token",
      offer: "offer",
      // Business API 5.9: a partner sales channel of the business's sandbox twin.
      source: "channel",
      // Shopping 3, 4: a store and a line of the shopping order.
      external_fulfilment_id: "shopping_store",
      external_item_id: "shopping_item",
    }
    : {
      client_id: "client",
      waybill: "waybill",
      reference: "client_order_reference",
      facility_id: "facility",
      view: "view",
      q: "waybill",
    };
  if (p.name === "id" && where === "path") {
    const before = op.path.split("/{id}")[0]!.split("/").at(-1)!;
    const byCollection: Record<string, string> = {
      businesses: "business",
      people: "person",
      alerts: "alert",
      claims: "claim",
      "webhook-deliveries": "webhook_delivery",
      // Business API 4.1: a trip's integer id or reference.
      trips: "trip",
      // Business API 4.2: a recurring delivery.
      subscriptions: "subscription",
      // Business API 4.2: a batch's id.
      batches: "batch",
    };
    const r = byCollection[before];
    assert.ok(r, `${nameOf(op)}: no identifier for {id} after /${before}: add it to this test`);
    return r;
  }
  const r = byName[p.name];
  assert.ok(r, `${nameOf(op)}: no identifier for the ${where} parameter \`${p.name}\`: add it`);
  return r;
}

/** An identifier of the same shape that nobody holds: the last characters changed. */
export function nobody(id: string): string {
  const tail = [...id.slice(-6)].map((ch) => {
    if (/[0-9]/.test(ch)) return String((Number(ch) + 5) % 10);
    if (/[a-f]/.test(ch)) return "abcdef"[("abcdef".indexOf(ch) + 3) % 6];
    if (/[g-z]/.test(ch)) {
      return "ghijklmnopqrstuvwxyz"[("ghijklmnopqrstuvwxyz".indexOf(ch) + 7) % 20];
    }
    if (/[A-Z]/.test(ch)) return String.fromCharCode(((ch.charCodeAt(0) - 65 + 13) % 26) + 65);
    return ch;
  }).join("");
  return id.slice(0, -6) + tail;
}

/** Whether a path or query parameter of the operation names a resource. */
export function namesResource(op: Operation): boolean {
  return op.pathParams.some((p) => resourceOf(op, p, "path") !== null) ||
    op.queryParams.some((p) => resourceOf(op, p, "query") !== null);
}

/**
 * The operation's URL, each parameter naming a resource filled with `fill` of the identifier in
 * `ids`, a fixed set's with its first value, other query parameters left out; `used`: what was
 * put in.
 */
export function urlOf(
  op: Operation,
  ids: Readonly<Record<string, string>>,
  fill: (id: string) => string = (id) => id,
): { url: string; used: string[] } {
  const used: string[] = [];
  const valueOf = (p: Param, where: "path" | "query"): string | null => {
    const r = resourceOf(op, p, where);
    if (r === null) return p.schema.enum?.[0] === undefined ? null : String(p.schema.enum[0]);
    const id = ids[r];
    assert.ok(id, `${nameOf(op)}: the world holds no ${r}`);
    const v = fill(id);
    used.push(v);
    return v;
  };
  let path = op.path;
  for (const p of op.pathParams) {
    path = path.replace(`{${p.name}}`, encodeURIComponent(valueOf(p, "path") ?? ""));
  }
  const q = new URLSearchParams();
  for (const p of op.queryParams) {
    const v = valueOf(p, "query");
    if (v !== null) q.set(p.name, v);
  }
  return { url: q.size ? `${path}?${q}` : path, used };
}
