/**
 * A cancelled trip's refund (Business API 3.1 "wallet charges for the trip refunded", 6
 * trip.cancelled "includes refund status"): the cancellation's answer, its reads and its webhook
 * say what is true of the wallet credit, pending until it commits, and the refund is reported once
 * it lands, credited once.
 */
import assert from "node:assert/strict";
import { walletActor } from "../../../actors/platform/wallet.ts";
import { commandKind, failAsks } from "../../helpers/faults.ts";
import { outboxRetryDue } from "../../helpers/outbox_retry.ts";
import { startReceiver, until } from "../../helpers/receiver.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { balanceOf, book, bwp, hooked, PARCEL } from "./trips_fixtures.ts";

Deno.test("trips: a cancellation whose wallet credit has not committed says refund_status pending; the refund is reported when it lands, credited once", () =>
  withTestEnv(async (t) => {
    const receiver = startReceiver();
    try {
      const b = await hooked(t, receiver);
      const booked = await book(t, b.api_key, PARCEL);
      assert.equal(booked.status, 201, JSON.stringify(booked.body));
      const trip = booked.body.data;
      // The wallet cannot credit the refund for now (a store failing, a crash before the step).
      const heal = failAsks(t.env.runtime, commandKind("credit", walletActor.type));
      const c = await t.call("POST", `/business/trips/${trip.reference}/cancel`, {
        key: b.api_key,
        body: { reason: "customer changed their mind" },
      });
      assert.equal(c.status, 200, JSON.stringify(c.body));
      assert.equal(c.body.data.refund_status, "pending", "nothing credited yet");
      await t.env.runtime.outboxesIdle();
      const before = await t.call("GET", `/business/trips/${trip.reference}`, { key: b.api_key });
      assert.equal(before.body.data.refund_status, "pending");
      assert.equal(before.body.data.receipt.refund_status, "pending");
      assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000 - trip.billing_amount));
      const cancels = () =>
        receiver.deliveries.map((d) => JSON.parse(d.body))
          .filter((x) => x.event === "trip.cancelled" && x.data.reference === trip.reference);
      await until(t, () => cancels().length >= 1, "the cancellation's webhook");
      const first = cancels()[0];
      assert.equal(first.data.refund_status, "pending");
      assert.equal(Number(first.data.refund_amount), trip.billing_amount);

      heal();
      outboxRetryDue(t.clock);
      await t.env.runtime.sweepOutboxes();
      await t.env.runtime.outboxesIdle();
      const after = await t.call("GET", `/business/trips/${trip.reference}`, { key: b.api_key });
      assert.equal(after.body.data.refund_status, "refunded");
      assert.equal(after.body.data.receipt.refund_status, "refunded");
      assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000));
      // spec: business 6: the refund, once credited, is reported: trip.cancelled again, its own id.
      await until(t, () => new Set(cancels().map((x) => x.id)).size >= 2, "the refund's report");
      const landed = cancels().find((x) => x.id !== first.id);
      assert.equal(landed.data.refund_status, "refunded");
      assert.equal(Number(landed.data.refund_amount), trip.billing_amount);
      assert.equal(landed.data.cancelled_by, "business");
      assert.equal(landed.data.reason, "customer changed their mind");
      assert.equal(landed.external_reference, first.external_reference);
      assert.ok(landed.timestamp >= first.timestamp, "never older than the cancellation");
      // Credited once, whatever the retries.
      const listed = await t.call("GET", "/business/wallet/transactions", { key: b.api_key });
      const refunds = listed.body.data
        .filter((x: { reference: string }) => x.reference === `refund:${trip.reference}`);
      assert.equal(refunds.length, 1);
      const again = await t.call("POST", `/business/trips/${trip.reference}/cancel`, {
        key: b.api_key,
      });
      assert.equal(again.body.data.already_cancelled, true);
      assert.equal(again.body.data.refund_status, "refunded");
    } finally {
      await receiver.close();
    }
  }));

Deno.test("trips: a refund that brings the wallet back over its threshold re-arms wallet.low_balance; falling below again in the same millisecond is a second notice with its own id", () =>
  withTestEnv(async (t) => {
    const receiver = startReceiver();
    try {
      const b = await hooked(t, receiver);
      const p = await t.call("PATCH", "/business/profile", {
        key: b.api_key,
        body: { low_balance_threshold: 999 },
      });
      assert.equal(p.status, 200, JSON.stringify(p.body));
      // The manual clock stands still: the fall, the refund and the second fall share a moment.
      const first = await book(t, b.api_key, { ...PARCEL, external_reference: "LOW-1" });
      const c = await t.call("POST", `/business/trips/${first.body.data.reference}/cancel`, {
        key: b.api_key,
      });
      assert.equal(c.status, 200, JSON.stringify(c.body));
      await t.env.runtime.outboxesIdle();
      assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000), "back over the threshold");
      const second = await book(t, b.api_key, { ...PARCEL, external_reference: "LOW-2" });
      assert.equal(second.status, 201, JSON.stringify(second.body));
      const lows = () =>
        receiver.deliveries.map((d) => JSON.parse(d.body))
          .filter((x) => x.event === "wallet.low_balance");
      await until(t, () => lows().length >= 2, "a notice for each fall below the threshold");
      assert.notEqual(lows()[0].id, lows()[1].id);
      await t.settle();
      assert.equal(lows().length, 2);
    } finally {
      await receiver.close();
    }
  }));
