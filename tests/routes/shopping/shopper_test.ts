/**
 * Shopping 3 on the driver app (CONTRACT "Driver app"): the shopper records lines, collects a
 * store with its receipt photo or marks it unavailable, in sequence, with replays answering the
 * first answer; the customer's decisions within the window, and the window's durable timer. The
 * sandbox's shopper steps drive the same flow by the simulated driver (Business API 4.4), so an
 * integrator tries a substitution, a refusal and a timeout without a real shop; live refuses them.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import type { TestEnv } from "../../helpers/test_env.ts";
import { createPoolDriver } from "../../helpers/pool_drivers.ts";
import { acceptAs, act, pngFile } from "../../helpers/driver_trips.ts";
import { commandKind, holdAsk } from "../../helpers/faults.ts";
import { createOrder, orderBody, shoppingBusiness } from "./shopping_fixtures.ts";

/** A shopping order of the preference given, accepted by a new pool driver. */
async function shoppedOrder(t: TestEnv, id: string, preference: string) {
  const b = await shoppingBusiness(t);
  const r = await createOrder(
    t,
    b.api_key,
    orderBody(id, { stores: 2, lines: 2, shopping: { substitution_preference: preference } }),
  );
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const reference = r.body.data.reference as string;
  const driver = await createPoolDriver(t);
  return { b, reference, driver, accept: () => acceptAs(t, b.id, reference, driver.id) };
}

function line(t: TestEnv, token: string, path: string, body: Record<string, unknown>) {
  return t.call("POST", `/driver/shopping/${path}`, { bearer: token, body });
}

const SUBSTITUTE = { name: "Store brand milk", barcode: "6001", unit_price: 9.5 };

Deno.test("shopper: lines recorded in sequence, a replay answers the first answer, stores collected with a receipt or unavailable", () =>
  withTestEnv(async (t) => {
    const o = await shoppedOrder(t, "ORD-SHOP", "match");
    const token = o.driver.token;
    const at = (store: string, item?: string) =>
      `${o.reference}/stores/F-${store}` + (item === undefined ? "" : `/items/${item}`);
    const found = {
      idempotency_key: "k1",
      outcome: "found",
      qty_found: 2,
      unit_price_paid: "10.50",
    };
    // Not offered to the driver: not found; offered trips are acted on once accepted.
    assert.equal((await line(t, token, at("0", "0-0"), found)).status, 404);
    const list = () => t.call("GET", `/driver/shopping/${o.reference}`, { bearer: token });
    assert.equal((await list()).status, 404);
    await o.accept();
    const shown = await list();
    assert.equal(shown.status, 200, JSON.stringify(shown.body));
    assert.deepEqual(
      shown.body.data.stores.map((s: { external_fulfilment_id: string; items: unknown[] }) => [
        s.external_fulfilment_id,
        s.items.length,
      ]),
      [["F-0", 2], ["F-1", 2]],
    );
    const stranger = await createPoolDriver(t);
    assert.equal((await line(t, stranger.token, at("0", "0-0"), found)).status, 404);
    const early = await line(t, token, at("1", "1-0"), found);
    assert.equal(early.status, 409);
    assert.equal(early.body.code, "store_out_of_sequence");
    assert.match(early.body.message, /store F-0 comes first/);

    const first = await line(t, token, at("0", "0-0"), found);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const item = first.body.data.items[0];
    assert.deepEqual([item.outcome, item.qty_found, item.unit_price_paid, item.decided_by], [
      "found",
      2,
      10.5,
      "shopper",
    ]);
    // spec (CONTRACT "Driver app"): the same request again answers the first answer; another
    // under its key is no replay (409, as the driver's chat and the bookings answer it).
    const reused = await line(t, token, at("0", "0-0"), { ...found, outcome: "unavailable" });
    assert.equal(reused.status, 409, JSON.stringify(reused.body));
    assert.equal(reused.body.code, "reference_conflict");
    const replay = await line(t, token, at("0", "0-0"), found);
    assert.equal(replay.status, 200);
    assert.deepEqual(replay.body.data, first.body.data);
    const again = await line(t, token, at("0", "0-0"), { ...found, idempotency_key: "k2" });
    assert.equal(again.body.code, "line_finished");
    const refusals: [Record<string, unknown>, number, string][] = [
      [{ outcome: "substituted", qty_found: 1, unit_price_paid: 9 }, 422, "substitute_required"],
      [{ outcome: "found", qty_found: 3, unit_price_paid: 9 }, 422, "validation_failed"],
      [{ outcome: "found", qty_found: 1.5, unit_price_paid: 9 }, 422, "validation_failed"],
      [{ outcome: "found", qty_found: 1, unit_price_paid: "9.001" }, 422, "validation_failed"],
      [{ outcome: "found", qty_found: 1 }, 422, "validation_failed"],
      [{ outcome: "lost", qty_found: 1 }, 422, "validation_failed"],
    ];
    for (const [body, status, code] of refusals) {
      const r = await line(t, token, at("0", "0-1"), {
        idempotency_key: crypto.randomUUID(),
        ...body,
      });
      assert.deepEqual([r.status, r.body.code], [status, code], JSON.stringify(r.body));
    }
    const noReceipt = await t.call("POST", `/driver/shopping/${at("0")}/collect`, {
      bearer: token,
      body: { idempotency_key: "c0", collected_amount: "30.50" },
    });
    assert.equal(noReceipt.body.code, "lines_pending");
    const sub = await line(t, token, at("0", "0-1"), {
      idempotency_key: "k3",
      outcome: "substituted",
      qty_found: 1,
      unit_price_paid: 9.5,
      substitute: SUBSTITUTE,
    });
    assert.equal(sub.status, 200, JSON.stringify(sub.body));
    assert.deepEqual(sub.body.data.items[1].substitute, SUBSTITUTE);
    assert.equal(sub.body.data.items[1].decided_by, "preference");

    const collect = (form: FormData) =>
      t.call("POST", `/driver/shopping/${at("0")}/collect`, { bearer: token, body: form });
    const form = (file?: File) => {
      const f = new FormData();
      f.set("idempotency_key", "c1");
      f.set("collected_amount", "30.50");
      if (file) f.set("receipt_photo", file);
      return f;
    };
    assert.equal((await collect(form())).body.code, "receipt_photo_required");
    const text = new File([new TextEncoder().encode("not an image")], "r.txt", {
      type: "text/plain",
    });
    assert.equal((await collect(form(text))).body.code, "validation_failed");
    const collected = await collect(form(pngFile("receipt.png")));
    assert.equal(collected.status, 200, JSON.stringify(collected.body));
    assert.equal(collected.body.data.status, "collected");
    assert.equal(collected.body.data.collected_amount, 30.5);
    assert.equal(collected.body.data.receipt_photo_received, true);
    assert.equal((await collect(form(pngFile("receipt.png")))).status, 200, "a replay");
    const twice = await line(t, token, at("0", "0-1"), { ...found, idempotency_key: "k4" });
    assert.equal(twice.body.code, "store_finished");

    const gone = await t.call("POST", `/driver/shopping/${at("1")}/unavailable`, {
      bearer: token,
      body: { idempotency_key: "u1" },
    });
    assert.equal(gone.status, 200, JSON.stringify(gone.body));
    const got = await t.call("GET", `/business/shopping-orders/${o.reference}`, {
      key: o.b.api_key,
    });
    const stores = got.body.data.stores;
    assert.deepEqual(stores.map((s: { status: string }) => s.status), ["collected", "unavailable"]);
    assert.deepEqual(
      stores[1].items.map((
        i: { outcome: string; decided_by: string },
      ) => [i.outcome, i.decided_by]),
      [["unavailable", "shopper"], ["unavailable", "shopper"]],
    );
    assert.equal(got.body.data.float.collected_amount, 30.5);
    assert.ok(stores[0].finished_at);
    // spec: business 4.4: the sandbox's shopper steps are not on live.
    const sandboxOnly = await t.call(
      "POST",
      `/business/sandbox/shopping-orders/${o.reference}/stores/F-1/unavailable`,
      { key: o.b.api_key, body: {} },
    );
    assert.equal(sandboxOnly.status, 404);
    assert.match(sandboxOnly.body.message, /sandbox base/);
  }));

Deno.test("shopper: under ask the customer decides within the window; no answer in time refunds the item on the timer", () =>
  withTestEnv(async (t) => {
    const o = await shoppedOrder(t, "ORD-ASK", "ask");
    await o.accept();
    const key = o.b.api_key;
    const put = await t.call("PUT", "/business/shopping-fulfilment", {
      key,
      body: { ask_timeout_minutes: 2 },
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const substitute = (item: string) =>
      line(t, o.driver.token, `${o.reference}/stores/F-0/items/${item}`, {
        idempotency_key: `s-${item}`,
        outcome: "substituted",
        qty_found: 2,
        unit_price_paid: 9.5,
        substitute: SUBSTITUTE,
      });
    const asked = await substitute("0-0");
    assert.equal(asked.status, 200, JSON.stringify(asked.body));
    const waiting = asked.body.data.items[0];
    assert.equal(waiting.outcome, "awaiting_decision");
    assert.equal(waiting.decide_by, new Date(t.clock.now() + 2 * 60_000).toISOString());
    const decide = (item: string, decision: string, as = key) =>
      t.call("POST", `/business/shopping-orders/${o.reference}/items/${item}/decision`, {
        key: as,
        body: { decision },
      });
    const other = await shoppingBusiness(t);
    assert.equal((await decide("0-0", "accept", other.api_key)).status, 404);
    assert.equal((await decide("nope", "accept")).status, 404);
    assert.equal((await decide("0-1", "accept")).body.code, "not_awaiting_decision");
    assert.equal((await decide("0-0", "maybe")).body.code, "validation_failed");
    t.clock.advanceBy(60_000);
    const yes = await decide("0-0", "accept");
    assert.equal(yes.status, 200, JSON.stringify(yes.body));
    const decided = yes.body.data.stores[0].items[0];
    assert.deepEqual([decided.outcome, decided.decided_by, decided.decide_by], [
      "substituted",
      "customer",
      null,
    ]);
    const late = await decide("0-0", "reject");
    assert.equal(late.status, 409);
    assert.equal(late.body.code, "not_awaiting_decision");

    await substitute("0-1");
    const blocked = await t.call("POST", `/driver/shopping/${o.reference}/stores/F-0/unavailable`, {
      bearer: o.driver.token,
      body: { idempotency_key: "u" },
    });
    assert.equal(blocked.body.code, "decision_pending");
    // spec: shopping 3: no answer in time: the durable timer makes it unavailable, refunded.
    t.clock.advanceBy(2 * 60_000);
    await t.env.runtime.fireDueTimers();
    const closed = await decide("0-1", "accept");
    assert.equal(closed.status, 409);
    assert.equal(closed.body.code, "decision_window_closed");
    assert.match(closed.body.message, /decision window closed and the item was refunded/);
    const got = await t.call("GET", `/business/shopping-orders/${o.reference}`, { key });
    const expired = got.body.data.stores[0].items[1];
    assert.deepEqual([expired.outcome, expired.decided_by, expired.qty_found], [
      "unavailable",
      "preference",
      0,
    ]);
  }));

const SANDBOX_SUBSTITUTE = {
  outcome: "substituted",
  qty_found: 1,
  unit_price_paid: 12,
  substitute: { name: "Brown bread" },
};

Deno.test("sandbox shopper: a substitution accepted, one refused, one timed out, stores collected with a placeholder receipt", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const made = await createOrder(
      t,
      b.api_key,
      orderBody("ORD-SBX", { stores: 2, lines: 2, shopping: { substitution_preference: "ask" } }),
    );
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const ref = made.body.data.reference as string;
    const step = (path: string, body: unknown = {}, key = b.api_key) =>
      t.call("POST", `/business/sandbox/shopping-orders/${ref}/${path}`, { key, body });
    const found = { outcome: "found", qty_found: 2, unit_price_paid: "10.25" };
    const before = await step("stores/F-0/items/0-0", found);
    assert.equal(before.status, 409);
    assert.equal(before.body.code, "driver_not_assigned");
    const assigned = await t.call("POST", `/business/sandbox/trips/${ref}/assign_driver`, {
      key: b.api_key,
      body: {},
    });
    assert.equal(assigned.status, 200, JSON.stringify(assigned.body));
    const other = await shoppingBusiness(t);
    assert.equal((await step("stores/F-0/items/0-0", found, other.api_key)).status, 404);

    const first = await step("stores/F-0/items/0-0", found);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual([first.body.data.environment, first.body.data.step], ["sandbox", "item"]);
    const timedOut = await step("stores/F-0/items/0-1", SANDBOX_SUBSTITUTE);
    assert.equal(timedOut.body.data.order.stores[0].items[1].outcome, "awaiting_decision");
    const closed = await step("items/0-1/close_decision_window");
    assert.equal(closed.status, 200, JSON.stringify(closed.body));
    const refunded = closed.body.data.order.stores[0].items[1];
    assert.deepEqual([refunded.outcome, refunded.decided_by], ["unavailable", "preference"]);
    const late = await t.call("POST", `/business/shopping-orders/${ref}/items/0-1/decision`, {
      key: b.api_key,
      body: { decision: "accept" },
    });
    assert.equal(late.body.code, "decision_window_closed");
    assert.equal(
      (await step("items/0-1/close_decision_window")).body.code,
      "not_awaiting_decision",
    );
    // No amount and no receipt: what the lines bought (2 x 10.25) and a placeholder image.
    const collected = await step("stores/F-0/collect");
    assert.equal(collected.status, 200, JSON.stringify(collected.body));
    const store0 = collected.body.data.order.stores[0];
    assert.deepEqual([store0.status, store0.collected_amount, store0.receipt_photo_received], [
      "collected",
      20.5,
      true,
    ]);

    await step("stores/F-1/items/1-0", SANDBOX_SUBSTITUTE);
    await step("stores/F-1/items/1-1", SANDBOX_SUBSTITUTE);
    const decide = (item: string, decision: string) =>
      t.call("POST", `/business/shopping-orders/${ref}/items/${item}/decision`, {
        key: b.api_key,
        body: { decision },
      });
    assert.equal((await decide("1-0", "accept")).status, 200);
    const rejected = await decide("1-1", "reject");
    const lines = rejected.body.data.stores[1].items;
    assert.deepEqual(
      lines.map((l: { outcome: string; decided_by: string }) => [l.outcome, l.decided_by]),
      [
        ["substituted", "customer"],
        ["unavailable", "customer"],
      ],
    );
    const store1 = await step("stores/F-1/collect", { collected_amount: 12 });
    assert.equal(store1.body.data.order.stores[1].collected_amount, 12);
    assert.equal(store1.body.data.order.float.collected_amount, 32.5);
  }, { name: "sandbox" }));

Deno.test("shopper: the pick-up right after the last store is finished passes, before the basket's outbox marks the trip ready; before that it is 422 awaiting_handover", () =>
  withTestEnv(async (t) => {
    const o = await shoppedOrder(t, "ORD-HANDOVER", "refund");
    await o.accept();
    const trip = { reference: o.reference, driver: o.driver };
    // The basket's outbox does not record the stores on the order until the pick-up is answered.
    const outbox = holdAsk(t.env.runtime, commandKind("record_store", "shopping_order"));
    try {
      await shopThenPickUp(t, o.reference, o.driver.token, trip);
    } finally {
      outbox.open();
    }
    await t.settle();
    const got = await t.call("GET", `/business/shopping-orders/${o.reference}`, {
      key: o.b.api_key,
    });
    assert.equal(got.status, 200, JSON.stringify(got.body));
    const read = await act(t, trip, "pick_up", { idempotency_key: "p1", force_reason: "bag" });
    assert.equal(read.body.data.status, "active", "the late readiness changes nothing");
  }));

/** Store F-0 collected, a pick-up refused, F-1 marked unavailable, the pick-up passes. */
async function shopThenPickUp(
  t: TestEnv,
  reference: string,
  token: string,
  trip: Parameters<typeof act>[1],
) {
  const store = `${reference}/stores/F-0`;
  for (const item of ["0-0", "0-1"]) {
    const found = { idempotency_key: item, outcome: "found", qty_found: 2, unit_price_paid: 10 };
    assert.equal((await line(t, token, `${store}/items/${item}`, found)).status, 200);
  }
  const form = new FormData();
  form.set("idempotency_key", "c0");
  form.set("collected_amount", "40.00");
  form.set("receipt_photo", pngFile("receipt.png"));
  const collected = await t.call("POST", `/driver/shopping/${store}/collect`, {
    bearer: token,
    body: form,
  });
  assert.equal(collected.status, 200, JSON.stringify(collected.body));
  assert.equal((await act(t, trip, "arrive_pickup")).status, 200);
  // spec: business 3.1: a store still to shop: the basket is not handed over yet.
  const early = await act(t, trip, "pick_up", { idempotency_key: "p0", force_reason: "bag" });
  assert.equal(early.status, 422, JSON.stringify(early.body));
  assert.equal(early.body.code, "awaiting_handover");
  const gone = await t.call("POST", `/driver/shopping/${reference}/stores/F-1/unavailable`, {
    bearer: token,
    body: { idempotency_key: "u1" },
  });
  assert.equal(gone.status, 200, JSON.stringify(gone.body));
  // Every store finished and committed: the basket is the shopper's to hand over at once.
  const picked = await act(t, trip, "pick_up", { idempotency_key: "p1", force_reason: "bag" });
  assert.equal(picked.status, 200, JSON.stringify(picked.body));
  assert.equal(picked.body.data.status, "active");
}
