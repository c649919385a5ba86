/**
 * Text a caller writes reaches the driver app, labels and packing slips as it was sent: a control
 * character in it (an escape sequence, a bell, a line break in a one-line field) is refused 422
 * naming the field, in a booking, a batch, a recurring delivery and a shopping order alike; a
 * note may run over lines. Nothing is stored or charged.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { balanceOf, book, bwp, PARCEL } from "./trips_fixtures.ts";
import { postBatch, stop } from "./batch_fixtures.ts";
import { subscribe, WEEKLY } from "./subscription_fixtures.ts";
import { createOrder, orderBody, shoppingBusiness } from "../shopping/shopping_fixtures.ts";

const paths = (r: { body: { errors?: { path: string }[] } }) =>
  (r.body.errors ?? []).map((e) => e.path).sort();

Deno.test("control characters: refused naming each field in a booking, a batch, a recurring delivery and a shopping order; a note may hold line breaks", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t, "1000.00");
    const booked = await book(t, b.api_key, {
      ...PARCEL,
      passenger_name: "A\u001b[2J",
      dest_address: "A\nB",
      order_payload: { items: [{ name: "Milk\u0007", qty: 1 }] },
    });
    assert.equal(booked.status, 422, JSON.stringify(booked.body));
    assert.deepEqual(paths(booked), [
      "dest_address",
      "order_payload.items.0.name",
      "passenger_name",
    ]);
    const batch = await postBatch(t, b.api_key, {
      segment: "parcel",
      stops: [stop("Mpho\u0085", "s", 0, 3), stop("Neo", "s", 0, 1)],
    });
    assert.equal(batch.status, 422, JSON.stringify(batch.body));
    assert.deepEqual(paths(batch), ["stops.0.dest_address", "stops.0.recipient_name"]);
    const sub = await subscribe(t, b.api_key, { ...WEEKLY, pickup_address: "Main\u0001 Mall" });
    assert.equal(sub.status, 422, JSON.stringify(sub.body));
    assert.deepEqual(paths(sub), ["pickup_address"]);
    const order = await createOrder(t, b.api_key, {
      ...orderBody("ORD-CC"),
      recipient_surname: "K\u001b[31mred",
    });
    assert.equal(order.status, 422, JSON.stringify(order.body));
    assert.deepEqual(paths(order), ["recipient_surname"]);
    assert.deepEqual(await balanceOf(t, b.api_key), bwp(1000));
    const noted = await book(t, b.api_key, { ...PARCEL, note: "Gate code 4411\nRing twice" });
    assert.equal(noted.status, 201, JSON.stringify(noted.body));
    assert.equal(noted.body.data.note, "Gate code 4411\nRing twice");
  }));
