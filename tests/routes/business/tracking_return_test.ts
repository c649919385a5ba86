/**
 * GET /trip-track/{token} (Business API 2.4) while a failed delivery goes back (3.1 returning):
 * the ETA is to where the goods go back, the pickup, not to the door the driver left.
 */
import assert from "node:assert/strict";
import { tripActor } from "../../../actors/business/trip/mod.ts";
import { etaFrom } from "../../../src/business/rules/tracking.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { pdfText } from "../../helpers/pdf.ts";
import { acceptedTrip, report } from "./tracking_fixtures.ts";
import { PARCEL } from "./trips_fixtures.ts";

Deno.test("trip-track: while a failed delivery returns, the ETA is to the pickup", () =>
  withTestEnv(async (t) => {
    const b = await acceptedTrip(t);
    const commands = [
      { kind: "arrive" },
      { kind: "collect", force_reason: "no scanner" },
      { kind: "fail", reason: "nobody home" },
    ] as const;
    for (const command of commands) {
      const r = await t.env.runtime.ask(tripActor, b.business.id, b.trip.reference, command);
      assert.ok(r.ok, JSON.stringify(r));
    }
    await report(t, b.driver.token, -24.62, 25.92);
    const seen = (await t.call("GET", `/trip-track/${b.token}`)).body.data;
    assert.equal(seen.status, "active");
    const here = { lat: -24.62, lng: 25.92 };
    const o = { road_factor_bp: 13_000, capacity_class: null };
    const pickup = { lat: PARCEL.pickup_lat, lng: PARCEL.pickup_lng };
    const dest = { lat: PARCEL.dest_lat, lng: PARCEL.dest_lng };
    assert.notEqual(etaFrom(here, pickup, o), etaFrom(here, dest, o));
    assert.equal(seen.eta_minutes, etaFrom(here, pickup, o));
    assert.equal(seen.delivery_outcome, null);
    const back = await t.env.runtime.ask(tripActor, b.business.id, b.trip.reference, {
      kind: "complete_return",
    });
    assert.ok(back.ok, JSON.stringify(back));
    // Before, a returned trip read completed alone, as a delivered one does.
    const ended = (await t.call("GET", `/trip-track/${b.token}`)).body.data;
    assert.equal(ended.status, "completed");
    assert.equal(ended.delivery_outcome, "returned");
    const receipt = await t.app.request(`/api/business/trips/${b.trip.reference}/receipt`, {
      headers: { "X-Business-API-Key": b.business.api_key },
    });
    assert.equal(receipt.status, 200);
    assert.match(await pdfText(new Uint8Array(await receipt.arrayBuffer())), /returned to the/);
  }));
