import assert from "node:assert/strict";
import fc from "fast-check";
import {
  ageSeconds,
  etaFrom,
  isFresh,
  linkExpiresAt,
  linkStatus,
  locationSince,
  positionsSinceRelease,
  SEEN_ANY_TIME,
  startedSince,
  STOP_REACHED_METRES,
  stopsReached,
  TOWN_SPEED_KMH,
  TRACKING_LINK_CLOSE_MINUTES_AFTER_END,
  TRACKING_LINK_DAYS_AFTER_DUE,
} from "../../../src/business/rules/tracking.ts";
import type { TripStatus } from "../../../src/business/rules/trip_status.ts";
import { greatCircleKm } from "../../../src/domain/geo.ts";
import { trackingLink } from "../../../actors/business/trip/tracking_link.ts";
import type { Trip } from "../../../actors/business/trip/mod.ts";
import { sha256Hex } from "../../../src/domain/secrets.ts";

const H = 3_600_000;
const booked = { created_at: 10 * H, scheduled_at: null, eta_minutes: 30, ended_at: null };

Deno.test("tracking link: expires 7 days after due (start plus estimate), or an hour after the trip ends", () => {
  assert.equal(TRACKING_LINK_DAYS_AFTER_DUE, 7);
  assert.equal(TRACKING_LINK_CLOSE_MINUTES_AFTER_END, 60);
  assert.equal(linkExpiresAt(booked), 10.5 * H + 7 * 24 * H);
  // A scheduled delivery is due from its scheduled time.
  assert.equal(linkExpiresAt({ ...booked, scheduled_at: 48 * H }), 48.5 * H + 7 * 24 * H);
  assert.equal(linkExpiresAt({ ...booked, ended_at: 12 * H }), 13 * H);
  // Ended after the due days ran out: the earlier time wins.
  assert.equal(linkExpiresAt({ ...booked, ended_at: 400 * H }), 10.5 * H + 7 * 24 * H);
});

Deno.test("tracking link: revoked wins over expiry; expired from its instant on", () => {
  const ended = { ...booked, ended_at: 12 * H, revoked_at: null };
  assert.equal(linkStatus(ended, 13 * H - 1), "active");
  assert.equal(linkStatus(ended, 13 * H), "expired");
  assert.equal(linkStatus({ ...ended, revoked_at: 11 * H }, 11 * H), "revoked");
  assert.equal(linkStatus({ ...ended, revoked_at: 11 * H }, 20 * H), "revoked");
});

Deno.test("tracking: a position is fresh up to the limit, as dispatch counts it; a clock ahead is age 0", () => {
  // spec: business 2.4 rule 3: the same age limit as dispatch, which offers a driver whose
  // position is at most the limit old, to the millisecond (the age shown is in whole seconds).
  assert.equal(isFresh(1_000, 61_000, 60), true);
  assert.equal(ageSeconds(1_000, 61_999), 60);
  assert.equal(isFresh(1_000, 61_001, 60), false);
  assert.equal(ageSeconds(5_000, 1_000), 0);
  assert.equal(isFresh(5_000, 1_000, 60), true);
});

Deno.test("tracking eta: road distance at the class's town speed, rounded up, at least a minute", () => {
  const a = { lat: -24.6545, lng: 25.9086 };
  const b = { lat: -24.6019, lng: 25.935 };
  const roadKm = greatCircleKm(a, b) * 1.3;
  const o = { road_factor_bp: 13_000, capacity_class: null };
  assert.equal(etaFrom(a, b, o), Math.ceil(roadKm / TOWN_SPEED_KMH.none * 60));
  assert.equal(etaFrom(a, a, o), 1);
  const truck = etaFrom(a, b, { ...o, capacity_class: "eight_ton" });
  assert.equal(truck, Math.ceil(roadKm / 18 * 60));
  assert.ok(truck > etaFrom(a, b, o));
});

Deno.test("tracking eta: never below 1, and never shorter for a farther target", () => {
  const coord = fc.record({
    lat: fc.double({ min: -25, max: -24, noNaN: true }),
    lng: fc.double({ min: 25, max: 26, noNaN: true }),
  });
  fc.assert(fc.property(coord, coord, fc.double({ min: 0, max: 1, noNaN: true }), (a, b, f) => {
    const o = { road_factor_bp: 13_000, capacity_class: null };
    const near = { lat: a.lat + (b.lat - a.lat) * f, lng: a.lng + (b.lng - a.lng) * f };
    const far = etaFrom(a, b, o);
    return far >= 1 && etaFrom(a, near, o) <= far;
  }));
});

const linked = (over: Partial<Trip> = {}) =>
  ({
    tracking_token: "trk_a",
    tracking_revoked_at: null,
    retired_tracking_hashes: [],
    ...over,
  }) as Trip;

Deno.test("trip tracking link: revoke once, rotate retires the old token's hash (at most 5 kept)", () => {
  assert.deepEqual(trackingLink(linked(), { kind: "revoke_tracking" }, 5), [
    { kind: "tracking_link_revoked", at: 5 },
  ]);
  assert.deepEqual(
    trackingLink(linked({ tracking_revoked_at: 1 }), { kind: "revoke_tracking" }, 5),
    [],
  );
  assert.deepEqual(trackingLink(linked(), { kind: "rotate_tracking", token: "trk_a" }, 5), []);
  const retired = ["h1", "h2", "h3", "h4", "h5"];
  const [e] = trackingLink(
    linked({ retired_tracking_hashes: retired, tracking_revoked_at: 2 }),
    { kind: "rotate_tracking", token: "trk_b" },
    5,
  );
  assert.deepEqual(e, {
    kind: "tracking_link_rotated",
    at: 5,
    token: "trk_b",
    retired_hashes: ["h2", "h3", "h4", "h5", sha256Hex("trk_a")],
  });
});

Deno.test("tracking: stops are reached in order, within 100 m, and all at the destination", () => {
  const stops = [{ lat: -24.6282, lng: 25.9231 }, { lat: -24.6100, lng: 25.9300 }];
  const near = (p: { lat: number; lng: number }, metres: number) => ({
    lat: p.lat + metres / 111_195,
    lng: p.lng,
  });
  const reached = (points: { lat: number; lng: number }[], at_destination = false) =>
    stopsReached(stops, { points, at_destination });
  assert.deepEqual(reached([]), [false, false]);
  assert.deepEqual(reached([near(stops[0]!, 90)]), [true, false]);
  assert.deepEqual(reached([near(stops[0]!, 150)]), [false, false], "150 m off is not there");
  assert.equal(STOP_REACHED_METRES, 100);
  // The second stop passed before the first is not reached until the first is.
  assert.deepEqual(reached([near(stops[1]!, 10)]), [false, false]);
  assert.deepEqual(reached([near(stops[1]!, 10), stops[0]!]), [true, false]);
  assert.deepEqual(reached([stops[0]!, near(stops[1]!, -50)]), [true, true]);
  assert.deepEqual(reached([], true), [true, true]);
  assert.deepEqual(stopsReached([], { points: [stops[0]!], at_destination: false }), []);
});

Deno.test("tracking start: none of a queued trip's driver; a started one's from its start; otherwise any", () => {
  const at = (status: TripStatus, started_at?: number | null) =>
    startedSince({
      status,
      accepted_at: 1_000,
      ...(started_at === undefined ? {} : { started_at }),
    });
  assert.equal(at("queued", null), null);
  assert.equal(at("cancelled", null), null, "cancelled while queued: never the driver's");
  assert.equal(at("accepted", 5_000), 5_000);
  assert.equal(at("completed", 5_000), 5_000);
  assert.equal(at("accepted", 1_000), SEEN_ANY_TIME, "accepted outright");
  assert.equal(at("active"), SEEN_ANY_TIME, "stored before the start was kept");
});

Deno.test("tracking location: from the later of the start and the acceptance's positions_since; a trip stored before it was kept, from its acceptance", () => {
  const at = (status: TripStatus, started_at: number | null, positions_since?: number | null) =>
    locationSince({
      status,
      accepted_at: 1_000,
      started_at,
      ...(positions_since === undefined ? {} : { positions_since }),
    });
  assert.equal(at("queued", null, 1), null);
  assert.equal(at("cancelled", null, 1), null, "cancelled while queued: never the driver's");
  assert.equal(at("accepted", 5_000, 800), 5_000, "started after the release");
  assert.equal(at("accepted", 1_000, 800), 800, "accepted outright: after the driver's release");
  assert.equal(at("accepted", 1_000, 1), 1, "a driver who never gave up a trip");
  assert.equal(at("completed", 1_000, 800), 800);
  // Stored before positions_since was kept (spec: business 2.4: never another trip's position).
  assert.equal(at("accepted", 1_000), 1_000, "stored before: from its acceptance");
  assert.equal(locationSince({ status: "active", accepted_at: 1_000 }), 1_000);
});

Deno.test("positionsSinceRelease(): after the driver's last release; 0 (never) any; unknown none", () => {
  assert.equal(positionsSinceRelease(5_000), 5_001);
  assert.equal(positionsSinceRelease(0), 1);
  assert.equal(positionsSinceRelease(null), undefined);
  assert.equal(positionsSinceRelease(undefined), undefined);
});
