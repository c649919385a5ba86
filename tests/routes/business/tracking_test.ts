/**
 * GET /trip-track/{token} (Business API 2.4): every field and nothing else, the driver's
 * position and its freshness, the ETA, the stored breadcrumb, the reference scope, and a mangled
 * link's errors in the tracking shape (business 7).
 */
// @ts-types="@types/mapbox__polyline"
import polyline from "@mapbox/polyline";
import assert from "node:assert/strict";
import { tracking } from "../../../src/business/flows/tracking.ts";
import { LivePositions } from "../../../src/business/reactors/live_positions.ts";
import { etaFrom } from "../../../src/business/rules/tracking.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { acceptedTrip, bookedTrip, report } from "./tracking_fixtures.ts";
import { PARCEL } from "./trips_fixtures.ts";

/** spec: business 2.4, the fields of the tracking view, all of them. */
const FIELDS_2_4 = [
  "reference",
  "type",
  "status",
  "is_active",
  "is_complete",
  // Beside 2.4's: a recipient whose goods went back is not shown a delivery done.
  "delivery_outcome",
  "pickup_address",
  "pickup_lat",
  "pickup_lng",
  "stops",
  "dest_address",
  "dest_lat",
  "dest_lng",
  "driver_name",
  "driver_phone",
  "driver_plate",
  "driver_color",
  "driver_lat",
  "driver_lng",
  "eta_minutes",
  "accepted_at",
  "completed_at",
  "location_observed_at",
  "location_age_seconds",
  "location_is_fresh",
  "scope",
  "poll_after_seconds",
  "route_polyline",
  "link_expires_at",
];

const DAY_MS = 86_400_000;

Deno.test("trip-track: a pending trip by token shows 2.4's fields exactly, unassigned ones null", () =>
  withTestEnv(async (t) => {
    const b = await bookedTrip(t);
    const r = await t.call("GET", `/trip-track/${b.token}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const v = r.body.data;
    assert.deepEqual(Object.keys(v).sort(), [...FIELDS_2_4].sort());
    assert.equal(v.reference, b.trip.reference);
    assert.equal(v.type, "parcel");
    assert.equal(v.status, "pending");
    assert.equal(v.is_active, true);
    assert.equal(v.is_complete, false);
    assert.equal(v.scope, "token");
    assert.equal(v.pickup_address, PARCEL.pickup_address);
    assert.equal(v.pickup_lat, PARCEL.pickup_lat);
    assert.equal(v.pickup_lng, PARCEL.pickup_lng);
    assert.deepEqual(v.stops, [{
      address: "Game City",
      lat: -24.6282,
      lng: 25.9231,
      reached: false,
    }]);
    assert.equal(v.dest_address, PARCEL.dest_address);
    assert.equal(v.dest_lat, PARCEL.dest_lat);
    assert.equal(v.dest_lng, PARCEL.dest_lng);
    for (
      const field of [
        "driver_name",
        "driver_phone",
        "driver_plate",
        "driver_color",
        "driver_lat",
        "driver_lng",
        "eta_minutes",
        "accepted_at",
        "completed_at",
        "location_observed_at",
        "location_age_seconds",
        "location_is_fresh",
        "route_polyline",
      ]
    ) assert.equal(v[field], null, field);
    assert.equal(v.poll_after_seconds, 15);
    // Due at booking plus its estimate; the link lasts 7 days past that.
    const due = Date.parse(b.trip.created_at) + b.trip.eta_minutes * 60_000;
    assert.equal(v.link_expires_at, new Date(due + 7 * DAY_MS).toISOString());
  }));

Deno.test("trip-track: the accepted driver, their position, its age and freshness, and the ETA to the pickup", () =>
  withTestEnv(async (t) => {
    const b = await acceptedTrip(t);
    const acceptedAt = new Date(t.clock.now()).toISOString();
    await report(t, b.driver.token, -24.67, 25.89);
    const seen = (await t.call("GET", `/trip-track/${b.token}`)).body.data;
    assert.equal(seen.status, "accepted");
    assert.equal(seen.driver_name, "Neo Kgosi");
    assert.equal(seen.driver_phone, "+26771234567");
    assert.equal(seen.driver_plate, "B 123 ABC");
    assert.equal(seen.driver_color, "red");
    assert.equal(seen.driver_lat, -24.67);
    assert.equal(seen.driver_lng, 25.89);
    assert.equal(seen.accepted_at, acceptedAt);
    assert.equal(seen.location_observed_at, acceptedAt);
    assert.equal(seen.location_age_seconds, 0);
    assert.equal(seen.location_is_fresh, true);
    const pickup = { lat: PARCEL.pickup_lat, lng: PARCEL.pickup_lng };
    const eta = etaFrom({ lat: -24.67, lng: 25.89 }, pickup, {
      road_factor_bp: 13_000,
      capacity_class: null,
    });
    assert.equal(seen.eta_minutes, eta);
    assert.ok(eta >= 1);

    // spec: business 2.4 rule 3: past the dispatch limit (60 s) it is stale, and still shown.
    t.clock.advanceBy(61_000);
    const stale = (await t.call("GET", `/trip-track/${b.token}`)).body.data;
    assert.equal(stale.location_age_seconds, 61);
    assert.equal(stale.location_is_fresh, false);
    assert.equal(stale.driver_lat, -24.67);
    const limit = await t.call("PUT", "/operator/settings", {
      operator: true,
      body: { position_fresh_seconds: 120 },
    });
    assert.equal(limit.status, 200, JSON.stringify(limit.body));
    assert.equal((await t.call("GET", `/trip-track/${b.token}`)).body.data.location_is_fresh, true);
  }));

Deno.test("trip-track: after collection the ETA is to the destination, at the vehicle class's speed", () =>
  withTestEnv(async (t) => {
    const b = await acceptedTrip(t);
    const { tripActor } = await import("../../../actors/business/trip/mod.ts");
    for (
      const command of [{ kind: "arrive" }, {
        kind: "collect",
        force_reason: "no scanner",
      }] as const
    ) {
      const r = await t.env.runtime.ask(tripActor, b.business.id, b.trip.reference, command);
      assert.ok(r.ok, JSON.stringify(r));
    }
    await report(t, b.driver.token, -24.62, 25.92);
    const seen = (await t.call("GET", `/trip-track/${b.token}`)).body.data;
    assert.equal(seen.status, "active");
    const dest = { lat: PARCEL.dest_lat, lng: PARCEL.dest_lng };
    const here = { lat: -24.62, lng: 25.92 };
    const o = { road_factor_bp: 13_000, capacity_class: null };
    assert.equal(seen.eta_minutes, etaFrom(here, dest, o));
    assert.notEqual(
      seen.eta_minutes,
      etaFrom(here, { lat: PARCEL.pickup_lat, lng: PARCEL.pickup_lng }, o),
    );
  }));

Deno.test("trip-track: route_polyline is null without stored positions since acceptance, then encodes them in order", () =>
  withTestEnv(async (t) => {
    const b = await acceptedTrip(t);
    const acceptedAt = t.clock.now();
    // The ping before acceptance (stored at this pump) is no part of the trip's breadcrumb.
    await t.env.pump();
    assert.equal((await t.call("GET", `/trip-track/${b.token}`)).body.data.route_polyline, null);
    t.clock.advanceBy(10_000);
    const points: [number, number][] = [[-24.66, 25.9], [-24.658, 25.903], [-24.656, 25.906]];
    // One request, in any order (after lost signal): the breadcrumb is ordered by observation.
    const sent = [2, 0, 1].map((i) => ({
      lat: points[i]![0],
      lng: points[i]![1],
      at: new Date(acceptedAt + i * 5_000).toISOString(),
    }));
    const r = await t.call("POST", "/driver/positions", {
      bearer: b.driver.token,
      body: { positions: sent },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await t.env.pump();
    const line = (await t.call("GET", `/trip-track/${b.token}`)).body.data.route_polyline;
    assert.equal(typeof line, "string");
    assert.deepEqual(polyline.decode(line), points);
  }));

Deno.test("trip-track: an instance without the driver in memory shows the newest stored position", () =>
  withTestEnv(async (t) => {
    const b = await acceptedTrip(t);
    await report(t, b.driver.token, -24.661, 25.901);
    t.clock.advanceBy(5_000);
    await report(t, b.driver.token, -24.662, 25.902);
    await t.env.pump();
    const elsewhere = new LivePositions(t.env.db);
    const v = await tracking({ ...t.env, positions: elsewhere }, b.token);
    assert.deepEqual([v.position?.lat, v.position?.lng], [-24.662, 25.902]);
    assert.equal(v.location_age_seconds, 0);
  }));

Deno.test("trip-track: a reference shows scope reference with no pickup and no stops", () =>
  withTestEnv(async (t) => {
    const b = await acceptedTrip(t);
    const r = await t.call("GET", `/trip-track/${b.trip.reference}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const v = r.body.data;
    assert.deepEqual(Object.keys(v).sort(), [...FIELDS_2_4].sort());
    assert.equal(v.scope, "reference");
    assert.equal(v.pickup_address, null);
    assert.equal(v.pickup_lat, null);
    assert.equal(v.pickup_lng, null);
    assert.deepEqual(v.stops, []);
    assert.equal(v.dest_address, PARCEL.dest_address);
    assert.equal(v.driver_name, "Neo Kgosi");
  }));

// spec: business 2.4 rule 5: reference links (`/track/<reference>`) keep working, reduced.
Deno.test("trip-track: a reference link /track/{reference} shows the reduced view; a token there is not found", () =>
  withTestEnv(async (t) => {
    const b = await acceptedTrip(t);
    const r = await t.call("GET", `/track/${b.trip.reference}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const v = r.body.data;
    assert.deepEqual(Object.keys(v).sort(), [...FIELDS_2_4].sort());
    assert.deepEqual([v.reference, v.scope, v.pickup_address, v.pickup_lat, v.stops], [
      b.trip.reference,
      "reference",
      null,
      null,
      [],
    ]);
    assert.equal(v.dest_address, PARCEL.dest_address);
    // A reference link names a reference: the token's full view stays behind the token's link.
    const byToken = await t.call("GET", `/track/${b.token}`);
    assert.deepEqual([byToken.status, byToken.body.error], [404, "not_found"]);
    const revoke = await t.call("POST", `/business/trips/${b.trip.id}/tracking-link/revoke`, {
      key: b.business.api_key,
    });
    assert.equal(revoke.status, 200);
    const gone = await t.call("GET", `/track/${b.trip.reference}`);
    assert.deepEqual([gone.status, gone.body.error], [410, "tracking_link_revoked"]);
  }));

Deno.test("trip-track: once ended, no polling and no driver position; the link closes an hour after (410 expired)", () =>
  withTestEnv(async (t) => {
    const b = await acceptedTrip(t);
    await report(t, b.driver.token, -24.66, 25.9);
    const cancel = await t.call("POST", `/business/trips/${b.trip.reference}/cancel`, {
      key: b.business.api_key,
    });
    assert.equal(cancel.status, 200, JSON.stringify(cancel.body));
    const ended = (await t.call("GET", `/trip-track/${b.token}`)).body.data;
    assert.equal(ended.status, "cancelled");
    assert.equal(ended.is_active, false);
    assert.equal(ended.poll_after_seconds, null);
    assert.equal(ended.driver_lat, null);
    assert.equal(ended.driver_lng, null);
    assert.equal(ended.location_is_fresh, null);
    assert.equal(ended.link_expires_at, new Date(t.clock.now() + 3_600_000).toISOString());

    t.clock.advanceBy(3_600_000);
    const gone = await t.call("GET", `/trip-track/${b.token}`);
    assert.equal(gone.status, 410);
    assert.equal(gone.body.success, false);
    assert.equal(gone.body.error, "tracking_link_expired");
    assert.equal(typeof gone.body.message, "string");
    assert.equal(gone.body.code, undefined);
    const read = await t.call("GET", `/business/trips/${b.trip.reference}`, {
      key: b.business.api_key,
    });
    assert.equal(read.body.data.tracking_url, null);
    assert.equal(read.body.data.tracking_link_status, "expired");
  }));

Deno.test("trip-track: revoke answers 410 to token and reference holders until rotate; the old token stays 410", () =>
  withTestEnv(async (t) => {
    const b = await bookedTrip(t);
    assert.equal(b.trip.tracking_link_status, "active");
    const key = b.business.api_key;
    const revoke = await t.call("POST", `/business/trips/${b.trip.id}/tracking-link/revoke`, {
      key,
    });
    assert.equal(revoke.status, 200, JSON.stringify(revoke.body));
    assert.equal(revoke.body.data.tracking_url, null);
    assert.equal(revoke.body.data.tracking_link_status, "revoked");
    for (const path of [b.token, b.trip.reference]) {
      const r = await t.call("GET", `/trip-track/${path}`);
      assert.equal(r.status, 410);
      assert.deepEqual(Object.keys(r.body).sort(), ["error", "message", "success"]);
      assert.equal(r.body.error, "tracking_link_revoked");
    }
    const again = await t.call("POST", `/business/trips/${b.trip.id}/tracking-link/revoke`, {
      key,
    });
    assert.equal(again.body.data.tracking_link_status, "revoked");
    const read = await t.call("GET", `/business/trips/${b.trip.id}`, { key });
    assert.equal(read.body.data.tracking_url, null);
    assert.equal(read.body.data.tracking_link_status, "revoked");

    const rotate = await t.call(
      "POST",
      `/business/trips/${b.trip.reference}/tracking-link/rotate`,
      {
        key,
      },
    );
    assert.equal(rotate.status, 200, JSON.stringify(rotate.body));
    assert.equal(rotate.body.data.tracking_link_status, "active");
    const url: string = rotate.body.data.tracking_url;
    const token = url.slice(url.lastIndexOf("/") + 1);
    assert.notEqual(token, b.token);
    assert.equal((await t.call("GET", `/trip-track/${token}`)).status, 200);
    assert.equal((await t.call("GET", `/trip-track/${b.trip.reference}`)).status, 200);
    const old = await t.call("GET", `/trip-track/${b.token}`);
    assert.equal(old.status, 410);
    assert.equal(old.body.error, "tracking_link_revoked");
  }));

Deno.test("trip-track: an unknown token is 404 in the tracking shape; another business cannot rotate or revoke", () =>
  withTestEnv(async (t) => {
    const b = await bookedTrip(t);
    const unknown = await t.call("GET", `/trip-track/trk_${"x".repeat(40)}`);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error, "not_found");
    assert.equal(unknown.body.success, false);
    const other = await bookedTrip(t);
    for (const action of ["rotate", "revoke"]) {
      for (const id of [b.trip.reference, String(b.trip.id + 100)]) {
        const r = await t.call("POST", `/business/trips/${id}/tracking-link/${action}`, {
          key: other.business.api_key,
        });
        assert.equal(r.status, 404, `${action} ${id}`);
        assert.equal(r.body.code, "not_found");
      }
    }
    assert.equal((await t.call("GET", `/trip-track/${b.token}`)).status, 200);
  }));

// spec: business 7: "the tracking endpoints use `{success: false, error: <code>, message}`", a
// link mangled on its way to the customer too (a trailing slash, no token, another method).
Deno.test("trip-track: a mangled tracking link answers in the tracking shape, error and no code", () =>
  withTestEnv(async (t) => {
    const b = await bookedTrip(t);
    const cases: [string, string, number, string][] = [
      ["GET", `/trip-track/${b.token}/`, 404, "not_found"],
      ["GET", "/trip-track", 404, "not_found"],
      ["POST", `/trip-track/${b.token}`, 405, "method_not_allowed"],
      ["DELETE", `/trip-track/${b.trip.reference}`, 405, "method_not_allowed"],
      ["GET", `/track/${b.trip.reference}/x`, 404, "not_found"],
      ["GET", `/s/${b.token}/`, 404, "not_found"],
    ];
    for (const [method, path, status, error] of cases) {
      const r = await t.call(method, path);
      const what = `${method} ${path}: ${JSON.stringify(r.body)}`;
      assert.equal(r.status, status, what);
      assert.deepEqual(
        [r.body.success, r.body.error, "code" in r.body],
        [false, error, false],
        what,
      );
      assert.equal(typeof r.body.message, "string", what);
    }
    // So do the refusals every request meets before its route: the test flag on live (business
    // 7), a body over the cap.
    const gate: [Record<string, string>, number, string][] = [
      [{ "X-Service-Test": "true" }, 422, "test_mode_moved_to_sandbox"],
      [{ "Content-Length": "2000000" }, 413, "payload_too_large"],
    ];
    for (const [headers, status, error] of gate) {
      const r = await t.call("GET", `/trip-track/${b.token}`, { headers });
      const what = `${JSON.stringify(headers)}: ${JSON.stringify(r.body)}`;
      assert.equal(r.status, status, what);
      assert.deepEqual([r.body.error, "code" in r.body], [error, false], what);
    }
    // Other paths keep the `code` shape.
    const other = await t.call("GET", "/trips-track/x");
    assert.deepEqual([other.status, other.body.code, "error" in other.body], [
      404,
      "not_found",
      false,
    ]);
  }));
