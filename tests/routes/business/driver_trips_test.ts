/**
 * CONTRACT "Driver app" GET /driver/trips, /driver/trips/{reference} and the driver's actions
 * (Business API 3.1, 6): only the driver's own trip, the view without fares, each action through
 * the trip, replays by idempotency_key, uploads, and the webhooks each step sends.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { createPoolDriver } from "../../helpers/pool_drivers.ts";
import { acceptedTrip, act, pngFile } from "../../helpers/driver_trips.ts";
import { startReceiver, until } from "../../helpers/receiver.ts";
import { fundedBusiness } from "./trips_fixtures.ts";

Deno.test("driver trips: the driver's view; another driver's trip answers as a missing one", () =>
  withTestEnv(async (t) => {
    const trip = await acceptedTrip(t, {
      delivery_code: "4411",
      cod_amount: 150,
      order_payload: { store_name: "Molapo", items: [{ name: "Bread", qty: 2, price: 12 }] },
    });
    const mine = await t.call("GET", `/driver/trips/${trip.reference}`, {
      bearer: trip.driver.token,
    });
    assert.equal(mine.status, 200, JSON.stringify(mine.body));
    const v = mine.body.data;
    assert.equal(v.status, "accepted");
    assert.equal(v.passenger_name, "Neo Kgosi");
    assert.equal(v.pickup.address, "Main Mall, Gaborone");
    assert.deepEqual(v.items, [{ name: "Bread", qty: 2 }]);
    assert.deepEqual(v.requirements, {
      delivery_code_required: true,
      age_verification_required: false,
      cod_amount: 150,
      cod_currency: "BWP",
      proof_photo_required: true,
      signature_required: true,
      custody_scan: false,
    });
    // No fares beyond COD, never the delivery code itself.
    const text = JSON.stringify(v);
    for (const hidden of ["billing_amount", "4411", "fare", "price", "chat_token"]) {
      assert.ok(!text.includes(hidden), hidden);
    }
    const other = await createPoolDriver(t);
    const missingRef = "BK-NOSUCHTRIP0";
    for (const path of ["", "/arrive_pickup"]) {
      const method = path ? "POST" : "GET";
      const body = path ? { idempotency_key: "k1" } : undefined;
      const seen = await t.call(method, `/driver/trips/${trip.reference}${path}`, {
        bearer: other.token,
        body,
      });
      const missing = await t.call(method, `/driver/trips/${missingRef}${path}`, {
        bearer: other.token,
        body,
      });
      assert.equal(seen.status, 404);
      assert.equal(missing.status, 404);
      const { request_id: _a, ...seenBody } = seen.body;
      const { request_id: _b, ...missingBody } = missing.body;
      assert.deepEqual(seenBody, {
        ...missingBody,
        message: missingBody.message.replace(missingRef, trip.reference),
      });
    }
    const after = await t.call("GET", `/driver/trips/${trip.reference}`, {
      bearer: trip.driver.token,
    });
    assert.equal(after.body.data.status, "accepted", "the other driver changed nothing");
    const unauth = await t.call("GET", `/driver/trips/${trip.reference}`);
    assert.equal(unauth.status, 401);
  }));

Deno.test("driver trips: a delivery step by step, multipart proof, replays answer the first answer, webhooks sent", () =>
  withTestEnv(async (t) => {
    const receiver = startReceiver();
    try {
      const business = await fundedBusiness(t);
      const hook = await t.call("PATCH", "/business/profile", {
        key: business.api_key,
        body: { webhook_url: receiver.url },
      });
      assert.equal(hook.status, 200, JSON.stringify(hook.body));
      const trip = await acceptedTrip(t, {
        delivery_code: "4411",
        cod_amount: 150,
        age_verification_required: true,
        external_reference: "ORD-9",
      }, business);
      assert.equal((await act(t, trip, "arrive_pickup")).body.data.status, "arrived");
      const noReason = await act(t, trip, "pick_up");
      assert.equal(noReason.status, 422);
      assert.equal(noReason.body.code, "force_reason_required");
      const picked = await act(t, trip, "pick_up", { force_reason: "no label on the bag" });
      assert.equal(picked.status, 200, JSON.stringify(picked.body));
      assert.equal(picked.body.data.status, "active");
      assert.equal(picked.body.data.scanned_at, null);
      const atDoor = await act(t, trip, "arrive_dropoff");
      assert.ok(atDoor.body.data.arrived_dropoff_at);
      // Lost signal: the pick_up sent again answers its first answer, before arrive_dropoff.
      const replay = await act(t, trip, "pick_up", { force_reason: "no label on the bag" });
      assert.equal(replay.status, 200);
      assert.deepEqual(replay.body.data, picked.body.data);

      const form = (fields: Record<string, string>, files = true) => {
        const f = new FormData();
        for (const [k, v] of Object.entries(fields)) f.set(k, v);
        if (files) {
          f.set("proof_photo", pngFile("door.png"));
          f.set("signature", pngFile("sig.png"));
        }
        return f;
      };
      const deliver = (body: FormData) =>
        t.call("POST", `/driver/trips/${trip.reference}/deliver`, {
          bearer: trip.driver.token,
          body,
        });
      const full = {
        idempotency_key: "deliver-1",
        delivery_code: "4411",
        id_checked: "true",
        cod_collected_amount: "150.00",
      };
      const refusals: [Record<string, string>, boolean, string][] = [
        [{ ...full, delivery_code: "9999" }, true, "delivery_code_mismatch"],
        [{ ...full, id_checked: "false" }, true, "id_check_required"],
        [{ ...full, cod_collected_amount: "140" }, true, "cod_amount_mismatch"],
        [full, false, "proof_photo_required"],
      ];
      for (const [fields, files, code] of refusals) {
        const r = await deliver(form(fields, files));
        assert.equal(r.status, 422, code);
        assert.equal(r.body.code, code);
      }
      const notImage = form(full, false);
      notImage.set("proof_photo", new File(["hello"], "x.png", { type: "image/png" }));
      notImage.set("signature", pngFile());
      const bad = await deliver(notImage);
      assert.equal(bad.status, 422);
      assert.deepEqual(bad.body.errors.map((e: { path: string }) => e.path), ["proof_photo"]);
      // Each file that is no image is named at once.
      notImage.set("signature", new File(["hi"], "s.png", { type: "image/png" }));
      const both = await deliver(notImage);
      assert.deepEqual(both.body.errors.map((e: { path: string }) => e.path), [
        "proof_photo",
        "signature",
      ]);
      // Two proof photos: which one was meant is not known; neither is kept.
      const twice = form(full);
      twice.append("proof_photo", pngFile("other.png"));
      const repeated = await deliver(twice);
      assert.equal(repeated.status, 422, JSON.stringify(repeated.body));
      assert.deepEqual(repeated.body.errors, [{
        path: "proof_photo",
        message: "given more than once: it takes one value",
      }]);
      const done = await deliver(form(full));
      assert.equal(done.status, 200, JSON.stringify(done.body));
      assert.equal(done.body.data.status, "completed");
      assert.equal(done.body.data.delivery_outcome, "delivered");
      const again = await deliver(form(full));
      assert.deepEqual(again.body.data, done.body.data);
      // The business's read says when it was accepted and completed, as the export does.
      const read = await t.call("GET", `/business/trips/${trip.reference}`, {
        key: business.api_key,
      });
      const at = new Date(t.clock.now()).toISOString();
      assert.deepEqual([read.body.data.accepted_at, read.body.data.completed_at], [at, at]);

      const want = [
        "trip.created",
        "trip.accepted",
        "trip.picked_up",
        "trip.age_verified",
        "cod.collected",
        "trip.completed",
      ];
      await until(t, () => receiver.deliveries.length >= want.length, "the trip's webhooks");
      const bodies = receiver.deliveries.map((d) => JSON.parse(d.body));
      assert.deepEqual(bodies.map((b) => b.event).sort(), [...want].sort());
      const completed = bodies.find((b) => b.event === "trip.completed");
      assert.equal(completed.data.delivery_outcome, "delivered");
      assert.equal(completed.data.returned, false);
      assert.equal(completed.external_reference, "ORD-9");
      assert.equal(bodies.find((b) => b.event === "cod.collected").data.cod_collected_amount, 150);
      assert.equal(
        bodies.find((b) => b.event === "trip.picked_up").data.collect_override_reason,
        "no label on the bag",
      );
    } finally {
      await receiver.close();
    }
  }));

Deno.test("driver trips: a failed delivery returns with return_due_at, then completes as returned", () =>
  withTestEnv(async (t) => {
    const trip = await acceptedTrip(t);
    await act(t, trip, "arrive_pickup");
    await act(t, trip, "pick_up", { force_reason: "no scanner" });
    const noReason = await act(t, trip, "fail_delivery");
    assert.equal(noReason.status, 422);
    assert.equal(noReason.body.errors[0].path, "reason");
    const failed = await act(t, trip, "fail_delivery", { reason: "nobody home" });
    assert.equal(failed.status, 200, JSON.stringify(failed.body));
    assert.equal(failed.body.data.returning, true);
    assert.ok(failed.body.data.return_due_at);
    const back = await act(t, trip, "complete_return");
    assert.equal(back.body.data.status, "completed");
    assert.equal(back.body.data.delivery_outcome, "returned");
    assert.equal(back.body.data.return_reason, "nobody home");
  }));

Deno.test("driver trips: cancel_by_driver puts the trip back; the list shows the driver's trips only", () =>
  withTestEnv(async (t) => {
    const trip = await acceptedTrip(t);
    const second = await acceptedTrip(t, {}, trip.business);
    await t.settle();
    const list = await t.call("GET", "/driver/trips", { bearer: trip.driver.token });
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.deepEqual(list.body.data.map((x: { reference: string }) => x.reference), [
      trip.reference,
    ]);
    await act(t, trip, "arrive_pickup");
    const gone = await act(t, trip, "cancel_by_driver", { reason: "flat tyre" });
    assert.equal(gone.status, 200, JSON.stringify(gone.body));
    assert.equal(gone.body.data.status, "pending");
    const seen = await t.call("GET", `/business/trips/${trip.reference}`, {
      key: trip.business.api_key,
    });
    assert.equal(seen.body.data.status, "pending");
    const now = await t.call("GET", `/driver/trips/${trip.reference}`, {
      bearer: trip.driver.token,
    });
    assert.equal(now.status, 404);
    await t.settle();
    const after = await t.call("GET", "/driver/trips", { bearer: trip.driver.token });
    assert.deepEqual(after.body.data, []);
    const others = await t.call("GET", "/driver/trips", { bearer: second.driver.token });
    assert.deepEqual(others.body.data.map((x: { reference: string }) => x.reference), [
      second.reference,
    ]);
  }));

Deno.test("driver trips: cancel_by_driver once the dispatch window passed ends the trip cancelled and refunded", () =>
  withTestEnv(async (t) => {
    const trip = await acceptedTrip(t);
    const before = await t.call("GET", "/business/wallet", { key: trip.business.api_key });
    t.clock.advanceBy(15 * 60_000);
    const r = await act(t, trip, "cancel_by_driver", { reason: "vehicle broke down" });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.data.status, "cancelled");
    const seen = await t.call("GET", `/business/trips/${trip.reference}`, {
      key: trip.business.api_key,
    });
    assert.equal(seen.body.data.status, "cancelled");
    assert.equal(seen.body.data.cancelled_by, "driver");
    assert.equal(seen.body.data.cancel_reason, "vehicle broke down");
    await t.settle();
    const after = await t.call("GET", "/business/wallet", { key: trip.business.api_key });
    const balance = (w: { body: { data: { balances: { balance: number }[] } } }) =>
      w.body.data.balances[0]!.balance;
    // Funded with 1000.00: the charge is credited back whole.
    assert.ok(balance(before) < 1000);
    assert.equal(balance(after), 1000, "refunded");
  }));

Deno.test("driver trips: an idempotency_key reused for another action or body is refused 409, changing nothing", () =>
  withTestEnv(async (t) => {
    const trip = await acceptedTrip(t);
    const arrived = await act(t, trip, "arrive_pickup", { idempotency_key: "k-1" });
    assert.equal(arrived.status, 200, JSON.stringify(arrived.body));
    // Another action under the arrival's key is not its replay: never answered as the arrival.
    const other = await act(t, trip, "pick_up", {
      idempotency_key: "k-1",
      force_reason: "no label",
    });
    assert.equal(other.status, 409, JSON.stringify(other.body));
    assert.equal(other.body.code, "reference_conflict");
    assert.match(other.body.message, /k-1/);
    const view = await t.call("GET", `/driver/trips/${trip.reference}`, {
      bearer: trip.driver.token,
    });
    assert.equal(view.body.data.status, "arrived", "nothing picked up");
    // The same request again is its replay.
    const replay = await act(t, trip, "arrive_pickup", { idempotency_key: "k-1" });
    assert.equal(replay.status, 200);
    assert.deepEqual(replay.body.data, arrived.body.data);
    const picked = await act(t, trip, "pick_up", { idempotency_key: "k-2", force_reason: "a" });
    assert.equal(picked.status, 200, JSON.stringify(picked.body));
    // The same action with another body under a used key: refused too.
    const reason = await act(t, trip, "pick_up", { idempotency_key: "k-2", force_reason: "b" });
    assert.equal(reason.status, 409, JSON.stringify(reason.body));
    assert.equal(reason.body.code, "reference_conflict");
  }));
