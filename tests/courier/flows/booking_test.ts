/**
 * The booking flow's rules that live outside HTTP, called directly on a runtime of the courier's
 * actors (in-memory KV, manual clock): the fence that takes a stopped booking out of the way
 * (withdrawStopped, withdrawBooking) and the completion of a booking stopped after its charge
 * (completeStalledBooking). spec: courier 4.1, 4.2, 4.6.
 */
import assert from "node:assert/strict";
import { COURIER_ACTORS } from "../../../actors/courier/mod.ts";
import type { Calendar, ServiceLevel } from "../../../actors/courier/courier_catalogue.ts";
import {
  asClient,
  type CourierClient,
  courierClientActor,
  isWithdrawn,
} from "../../../actors/courier/courier_client.ts";
import { type PriceOffer, priceOfferActor } from "../../../actors/courier/price_offer.ts";
import { asShipment, shipmentActor } from "../../../actors/courier/shipment/mod.ts";
import {
  completeStalledBooking,
  STOPPED_AFTER_CLAIM_MS,
  STOPPED_AFTER_EXPIRY_MS,
  withdrawBooking,
  withdrawStopped,
} from "../../../src/courier/flows/booking/mod.ts";
import { chargeKeyOf, keptCharge } from "../../../src/courier/flows/booking/fence.ts";
import { refuseIfClaimedElsewhere } from "../../../src/courier/flows/booking/claim.ts";
import { madeBefore } from "../../../src/courier/flows/booking/replay.ts";
import { referenceClaimActor } from "../../../actors/courier/reference_claim.ts";
import { waybillOf } from "../../../src/courier/rules/waybill.ts";
import { deliveryWindow } from "../../../src/domain/calendar.ts";
import type { ActorRuntime } from "../../../src/runtime/runtime.ts";
import type { ManualClock } from "../../../src/runtime/clock.ts";
import { HOURS } from "../../helpers/courier.ts";
import { commandKind, flakyRuntime } from "../../helpers/faults.ts";
import { openTestRuntime } from "../../runtime/fixtures.ts";

const COURIER = "biz_1";
const CLIENT = "cli_1";
const HOLD_MS = 30 * 60_000;
const TOTAL_MINOR = 6_500;

const CALENDAR: Calendar = {
  id: "cal_bw",
  code: "BW",
  name: "Botswana office days",
  timezone: "Africa/Gaborone",
  working_days: [1, 2, 3, 4, 5],
  holidays: [],
  created_at: 1,
};

const EXPRESS: ServiceLevel = {
  id: "sl_express",
  code: "express",
  name: "Express",
  transit_days: 1,
  cut_off: "16:00",
  calendar_id: CALENDAR.id,
  at_risk_pct: 75,
  price_adjustment_bp: 0,
  created_at: 1,
  ...HOURS,
};

/** Held prices of one domestic option, priced now and held HOLD_MS. */
function heldPrices(reference: string, now: number): PriceOffer {
  return {
    reference,
    kind: "prices",
    courier_id: COURIER,
    client_id: CLIENT,
    created_at: now,
    valid_until: now + HOLD_MS,
    request: {
      parcels: [{ weight_kg: 2.5, length_cm: 30, width_cm: 20, height_cm: 10 }],
      from_country: "BW",
      to_country: "BW",
      declared_value_minor: null,
      liability_cover: false,
      sender: { name: "Molapo Pharmacy" },
      recipient: { name: "Neo Kgosi" },
      contents: "Medicines",
      external_customer_code: null,
      external_billing_reference: null,
      client_order_reference: null,
    },
    rate_card: { id: "rc_1", version: 1 },
    options: [{
      code: EXPRESS.code,
      name: EXPRESS.name,
      chargeable_grams: 2_500,
      lines: [{ code: "transport", label: "Transport", amount_minor: TOTAL_MINOR }],
      tax_minor: 0,
      total_minor: TOTAL_MINOR,
      currency: "BWP",
      corridor: null,
      cross_border: false,
      ...deliveryWindow(CALENDAR, now, EXPRESS.cut_off, EXPRESS.transit_days),
      possible_later_charges: null,
      service_terms: { ...EXPRESS },
    }],
    calendars: { [CALENDAR.id]: CALENDAR },
    account: { settlement_mode: "prepaid", currency: "BWP", available_minor: 100_000 },
  };
}

interface Booking {
  readonly runtime: ActorRuntime;
  readonly clock: ManualClock;
  /** Prices held for the client, under `reference`. */
  price(reference: string): Promise<PriceOffer>;
  /** The charge the booking of `reference` sends to the account (bookOffer's), kept under its key. */
  charge(reference: string): Promise<unknown>;
  client(): Promise<CourierClient>;
}

/** A prepaid client with 1,000.00 BWP on a runtime of the courier's actors. */
async function withBooking(fn: (b: Booking) => Promise<void>): Promise<void> {
  const { runtime, clock, close } = await openTestRuntime(":memory:", {
    definitions: COURIER_ACTORS,
  });
  try {
    const must = <T>(r: { ok: true; reply: T } | { ok: false; code: string }): T => {
      if (!r.ok) throw new Error(`refused: ${r.code}`);
      return r.reply;
    };
    must(
      await runtime.ask(courierClientActor, COURIER, CLIENT, {
        kind: "create",
        client: {
          id: CLIENT,
          business_id: COURIER,
          name: "Molapo Pharmacy",
          code: "MOLAPO",
          email: "accounts@molapo.example",
          settings: {
            settlement_mode: "prepaid",
            credit_limit_minor: 0,
            payment_days: null,
            billing_currency: "BWP",
            external_system: null,
            unique_external_reference: false,
            rate_card_id: "rc_1",
          },
          api_key: { hash: "hash-cli_1", hint: "abcd", created_at: clock.now() },
          users: [],
        },
        by: "test",
      }),
    );
    must(
      await runtime.ask(courierClientActor, COURIER, CLIENT, {
        kind: "top_up",
        amount_minor: 100_000,
        currency: "BWP",
        reference: "T1",
        by: "test",
      }),
    );
    await fn({
      runtime,
      clock,
      async price(reference) {
        const offer = heldPrices(reference, clock.now());
        must(await runtime.ask(priceOfferActor, COURIER, reference, { kind: "make", offer }));
        return offer;
      },
      async charge(reference) {
        const waybill = waybillOf(COURIER, reference);
        return must(
          await runtime.ask(courierClientActor, COURIER, CLIENT, {
            kind: "charge_booking",
            waybill,
            amount_minor: TOTAL_MINOR,
            currency: "BWP",
            service_level: EXPRESS.code,
            references: {
              external_customer_code: null,
              external_billing_reference: null,
              client_order_reference: null,
            },
            booking: { prices_reference: reference, dangerous_goods_confirmed: false, by: "test" },
            by: "test",
          }, { idempotencyKey: chargeKeyOf(waybill), permanent: true }),
        );
      },
      async client() {
        return asClient(must(
          await runtime.read(courierClientActor, COURIER, CLIENT, { kind: "get" }),
        ));
      },
    });
  } finally {
    await close();
  }
}

Deno.test("booking fence: a booking not charged is on its way while its prices hold, and just after", async () => {
  await withBooking(async (b) => {
    await b.price("prc_a");
    const deps = { runtime: b.runtime, clock: b.clock };
    assert.equal(await withdrawStopped(deps, COURIER, "prc_a"), "on_its_way");
    b.clock.advanceBy(HOLD_MS + 1);
    // One that checked its prices a moment before they expired may still be charging.
    assert.equal(await withdrawStopped(deps, COURIER, "prc_a"), "on_its_way");
    assert.equal(await keptCharge(b.runtime, CLIENT, waybillOf(COURIER, "prc_a")), null);
  });
});

Deno.test("booking fence: a booking stopped before its charge is withdrawn, and its late charge takes nothing", async () => {
  await withBooking(async (b) => {
    await b.price("prc_a");
    const before = (await b.client()).money;
    b.clock.advanceBy(HOLD_MS + STOPPED_AFTER_EXPIRY_MS + 1);
    const deps = { runtime: b.runtime, clock: b.clock };
    assert.equal(await withdrawStopped(deps, COURIER, "prc_a"), "withdrawn");
    const waybill = waybillOf(COURIER, "prc_a");
    assert.equal(await keptCharge(b.runtime, CLIENT, waybill), "withdrawn");
    // The attempt wakes and sends its charge: the account answers the withdrawal, for good.
    assert.ok(isWithdrawn(await b.charge("prc_a")));
    assert.deepEqual((await b.client()).money, before, "nothing charged");
    // Withdrawn, it is stopped whatever the clock says, and no sweep completes it.
    assert.equal(await withdrawStopped(deps, COURIER, "prc_a"), "withdrawn");
    assert.equal(
      await completeStalledBooking(b.runtime, { courierId: COURIER, clientId: CLIENT, waybill }),
      false,
    );
  });
});

Deno.test("booking fence: a claim held past STOPPED_AFTER_CLAIM_MS without a charge is withdrawn while the prices still hold", async () => {
  await withBooking(async (b) => {
    await b.price("prc_a");
    const claimedAt = b.clock.now();
    const deps = { runtime: b.runtime, clock: b.clock };
    assert.equal(await withdrawStopped(deps, COURIER, "prc_a", claimedAt), "on_its_way");
    b.clock.advanceBy(STOPPED_AFTER_CLAIM_MS + 1);
    assert.equal(await withdrawStopped(deps, COURIER, "prc_a", claimedAt), "withdrawn");
  });
});

Deno.test("booking fence: a charge that commits first stands: the withdrawal is answered the charge", async () => {
  await withBooking(async (b) => {
    await b.price("prc_a");
    await b.charge("prc_a");
    const charged = (await b.client()).money;
    assert.equal(await withdrawBooking(b.runtime, COURIER, "prc_a"), "charged");
    b.clock.advanceBy(HOLD_MS + STOPPED_AFTER_EXPIRY_MS + 1);
    assert.equal(
      await withdrawStopped({ runtime: b.runtime, clock: b.clock }, COURIER, "prc_a"),
      "on_its_way",
    );
    assert.equal(await keptCharge(b.runtime, CLIENT, waybillOf(COURIER, "prc_a")), "charged");
    assert.deepEqual((await b.client()).money, charged, "charged once");
    // Prices that were never made (or were voided) can never be charged.
    assert.equal(await withdrawBooking(b.runtime, COURIER, "prc_none"), "withdrawn");
  });
});

Deno.test("stalled booking: a booking charged and stopped before its shipment is completed once, as booked", async () => {
  await withBooking(async (b) => {
    const offer = await b.price("prc_a");
    await b.charge("prc_a");
    const waybill = waybillOf(COURIER, "prc_a");
    const stalled = { courierId: COURIER, clientId: CLIENT, waybill };
    // Long after, past the prices' hold and the day's cut-off: the charge is the commit point.
    b.clock.advanceBy(2 * 24 * 60 * 60_000);
    assert.equal(await completeStalledBooking(b.runtime, stalled), true);
    assert.equal(await completeStalledBooking(b.runtime, stalled), false, "completed once");
    const got = await b.runtime.read(shipmentActor, COURIER, waybill, { kind: "get" });
    assert.ok(got.ok);
    const s = asShipment(got.reply);
    assert.equal(s.client_id, CLIENT);
    assert.equal(s.booked_by, "test");
    assert.equal(s.pricing.prices_reference, "prc_a");
    assert.equal(s.pricing.total_minor, TOTAL_MINOR);
    assert.equal(s.pricing.settlement_mode, "prepaid");
    // spec: courier 2.2 rule 3: held prices book the dates they showed.
    const shown = offer.options[0]!;
    assert.deepEqual(s.pricing.promise, {
      collection_on: shown.collection_on,
      earliest_delivery: shown.earliest_delivery,
      latest_delivery: shown.latest_delivery,
    });
    // Booked at the time of its charge, not of its completion.
    assert.ok(s.booked_at < b.clock.now());
  });
});

Deno.test("stalled booking: nothing is completed without a charge, or for a charge of another waybill", async () => {
  await withBooking(async (b) => {
    await b.price("prc_a");
    const waybill = waybillOf(COURIER, "prc_a");
    assert.equal(
      await completeStalledBooking(b.runtime, { courierId: COURIER, clientId: CLIENT, waybill }),
      false,
    );
    await b.charge("prc_a");
    assert.equal(
      await completeStalledBooking(b.runtime, {
        courierId: COURIER,
        clientId: CLIENT,
        waybill: waybillOf(COURIER, "prc_b"),
      }),
      false,
    );
    assert.equal(
      (await b.runtime.read(shipmentActor, COURIER, waybill, { kind: "get" })).ok,
      false,
    );
  });
});

Deno.test("booking fence: a withdrawal whose read of the prices is refused (busy) is not answered withdrawn, and the late charge still counts", async () => {
  await withBooking(async (b) => {
    await b.price("prc_a");
    const flaky = flakyRuntime(b.runtime, {
      fails: commandKind("get", priceOfferActor.type),
      refuse: true,
    });
    // A full mailbox is no answer that the prices were never made: nothing was withdrawn.
    await assert.rejects(withdrawBooking(flaky.runtime, COURIER, "prc_a"));
    assert.equal(await keptCharge(b.runtime, CLIENT, waybillOf(COURIER, "prc_a")), null);
    await b.charge("prc_a");
    assert.equal(await withdrawBooking(b.runtime, COURIER, "prc_a"), "charged");
  });
});

Deno.test("stalled booking: a read refused (busy) while completing is thrown, not taken as nothing to complete", async () => {
  for (const type of [shipmentActor.type, priceOfferActor.type, courierClientActor.type]) {
    await withBooking(async (b) => {
      await b.price("prc_a");
      await b.charge("prc_a");
      const stalled = {
        courierId: COURIER,
        clientId: CLIENT,
        waybill: waybillOf(COURIER, "prc_a"),
      };
      const flaky = flakyRuntime(b.runtime, { fails: commandKind("get", type), refuse: true });
      await assert.rejects(completeStalledBooking(flaky.runtime, stalled), type);
      assert.equal(flaky.failed(), 1, type);
      assert.equal(await completeStalledBooking(b.runtime, stalled), true, type);
    });
  }
});

Deno.test("booking reads: a refused read (busy) of the reference's claim or of the shipment made is thrown, not taken as none", async () => {
  await withBooking(async (b) => {
    await b.price("prc_a");
    await b.charge("prc_a");
    const waybill = waybillOf(COURIER, "prc_a");
    assert.equal(
      await completeStalledBooking(b.runtime, { courierId: COURIER, clientId: CLIENT, waybill }),
      true,
    );
    const busy = (type: string) =>
      flakyRuntime(b.runtime, { fails: commandKind("get", type), refuse: true }).runtime;
    const choice = { serviceLevel: "express", dangerousGoodsConfirmed: false };
    // spec: courier 4.1: a booking made is answered as made, never as not made for a busy read.
    await assert.rejects(madeBefore(busy(shipmentActor.type), COURIER, waybill, choice));
    assert.notEqual(await madeBefore(b.runtime, COURIER, waybill, choice), null);
    // spec: courier 4.2: the reference held by another waybill refuses duplicate_order; a busy
    // read of its claim is not "no holder".
    const claim = `${CLIENT}:ORD-1`;
    const held = await b.runtime.ask(referenceClaimActor, COURIER, claim, {
      kind: "claim",
      waybill,
    });
    assert.ok(held.ok);
    const other = waybillOf(COURIER, "prc_b");
    const deps = { runtime: busy(referenceClaimActor.type) };
    await assert.rejects(refuseIfClaimedElsewhere(deps, COURIER, claim, other), /actor_busy/);
    await assert.rejects(
      refuseIfClaimedElsewhere({ runtime: b.runtime }, COURIER, claim, other),
      /duplicate_order/,
    );
  });
});
