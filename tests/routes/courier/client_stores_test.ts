import assert from "node:assert/strict";
import fc from "fast-check";
import {
  allowedActions,
  PACKET_ACTIONS,
  PACKET_STATES,
  PACKET_TRANSITIONS,
  type PacketAction,
  retailPacketActor,
  type RetailPacketCommand,
  type RetailPacketState,
} from "../../../actors/retail_packet.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { COLLECTION_MANIFEST_SHIPMENTS_MAX } from "../../../src/limits.ts";
import { jsonb } from "../../../src/db/json.ts";
import {
  bookShipment,
  type Client,
  clientKey,
  type Courier,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";

const ACTIVATION = {
  sender_name: "Neo Kgosi",
  sender_phone: "+26771234567",
  recipient_name: "Mpho Dube",
  recipient_phone: "+26772345678",
  recipient_address: "Plot 44, Francistown",
};

async function store(t: TestEnv, courier: Courier, client: Client, code = "GAB-01") {
  const r = await t.call("POST", `/business/courier/clients/${client.id}/stores`, {
    key: courier.business.api_key,
    body: { code, name: "Main Mall store", address: "Plot 123, Main Mall, Gaborone" },
  });
  assert.ok(r.status === 201 || r.status === 200, JSON.stringify(r.body));
  return r.body.data.id as string;
}

function act(
  t: TestEnv,
  client: Client,
  storeId: string,
  action: string,
  body: Record<string, unknown>,
) {
  return t.call("POST", `/client/stores/${storeId}/packets/${action}`, {
    headers: clientKey(client),
    body,
  });
}

Deno.test("client stores: a packet goes stock, sell, activate, accept, hand-over in order", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    const storeId = await store(t, courier, client);
    const again = await store(t, courier, client);
    assert.equal(again, storeId);
    const stocked = await act(t, client, storeId, "stock", { packet_code: "PK-1" });
    assert.equal(stocked.status, 201, JSON.stringify(stocked.body));
    assert.equal(stocked.body.data.state, "in_stock");
    assert.deepEqual(stocked.body.data.allowed_actions, ["sell"]);
    const steps: [string, Record<string, unknown>, string][] = [
      ["sell", { reference: "TILL-9" }, "sold"],
      ["activate", ACTIVATION, "activated"],
      ["accept", { weight_kg: 1.2 }, "accepted"],
      ["hand-over", { note: "driver Kabo" }, "handed_over"],
    ];
    for (const [action, body, state] of steps) {
      const r = await act(t, client, storeId, action, { packet_code: "PK-1", ...body });
      assert.equal(r.status, 200, `${action}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.data.state, state);
      assert.equal(r.body.data.replayed, false);
    }
    // Idempotent per (packet, action): a replay answers the packet as it is and changes nothing.
    const replay = await act(t, client, storeId, "sell", { packet_code: "PK-1" });
    assert.equal(replay.status, 200);
    assert.equal(replay.body.data.replayed, true);
    assert.equal(replay.body.data.state, "handed_over");
    assert.equal(replay.body.data.sale_reference, "TILL-9");
    assert.equal(replay.body.data.activation.recipient_name, "Mpho Dube");
    assert.equal(replay.body.data.weight_kg, 1.2);
    assert.equal(replay.body.data.history.length, 5);

    const bulk = await act(t, client, storeId, "stock", { packet_codes: ["PK-2", "PK-3", "PK-1"] });
    assert.equal(bulk.status, 200);
    assert.deepEqual(bulk.body.data.results.map((r: { state?: string }) => r.state), [
      "in_stock",
      "in_stock",
      "handed_over",
    ]);
    await act(t, client, storeId, "sell", { packet_code: "PK-2" });
    await act(t, client, storeId, "refund", { packet_code: "PK-2" });
    await t.settle();
    const list = await t.call("GET", "/client/stores", { headers: clientKey(client) });
    assert.equal(list.status, 200);
    assert.equal(list.body.data.length, 1);
    assert.equal(list.body.data[0].code, "GAB-01");
    assert.deepEqual(list.body.data[0].packets, {
      in_stock: 1,
      sold: 0,
      refunded: 1,
      activated: 0,
      accepted: 0,
      handed_over: 1,
    });
  }));

Deno.test("client stores: out-of-order actions answer 422 with the state and change nothing", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    const storeId = await store(t, courier, client);
    const missing = await act(t, client, storeId, "sell", { packet_code: "NOPE" });
    assert.equal(missing.status, 404);
    await act(t, client, storeId, "stock", { packet_code: "PK-1" });
    const early = await act(t, client, storeId, "hand-over", { packet_code: "PK-1" });
    assert.equal(early.status, 422);
    assert.equal(early.body.code, "packet_state_invalid");
    assert.equal(early.body.state, "in_stock");
    assert.deepEqual(early.body.allowed_actions, ["sell"]);
    assert.match(early.body.message, /in_stock.*allowed: sell/);
    await act(t, client, storeId, "sell", { packet_code: "PK-1" });
    const noDetails = await act(t, client, storeId, "activate", { packet_code: "PK-1" });
    assert.equal(noDetails.status, 422);
    assert.equal(noDetails.body.code, "validation_failed");
    assert.deepEqual(
      noDetails.body.errors.map((e: { path: string }) => e.path),
      ["sender_name", "recipient_name", "recipient_phone", "recipient_address"],
    );
    await act(t, client, storeId, "activate", { packet_code: "PK-1", ...ACTIVATION });
    // spec: refund only while sold, before activation.
    const refund = await act(t, client, storeId, "refund", { packet_code: "PK-1" });
    assert.equal(refund.status, 422);
    assert.equal(refund.body.code, "packet_state_invalid");
    assert.equal(refund.body.state, "activated");
    assert.deepEqual(refund.body.allowed_actions, ["accept"]);
    const several = await act(t, client, storeId, "sell", { packet_codes: ["A", "B"] });
    assert.equal(several.body.code, "validation_failed");
    const unknown = await act(t, client, storeId, "teleport", { packet_code: "PK-1" });
    assert.equal(unknown.status, 422);
    const now = await act(t, client, storeId, "accept", { packet_code: "PK-1" });
    assert.equal(now.body.data.state, "accepted");
    assert.deepEqual(now.body.data.history.map((h: { action: string }) => h.action), [
      "stock",
      "sell",
      "activate",
      "accept",
    ]);
  }));

Deno.test("client stores: another client's store is not found; stores need the platform on", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    const other = await newClient(t, courier);
    const theirs = await store(t, courier, other, "FTN-01");
    const mine = await store(t, courier, client, "FTN-01");
    assert.notEqual(mine, theirs);
    const r = await act(t, client, theirs, "stock", { packet_code: "PK-1" });
    assert.equal(r.status, 404);
    assert.equal(r.body.code, "not_found");
    const none = await act(t, client, "sto_nothing", "stock", { packet_code: "PK-1" });
    assert.equal(none.status, 404);
    await act(t, other, theirs, "stock", { packet_code: "PK-1" });
    // The same code is another client's own packet.
    const own = await act(t, client, mine, "stock", { packet_code: "PK-1" });
    assert.equal(own.status, 201);
    await t.settle();
    const list = await t.call("GET", "/client/stores", { headers: clientKey(client) });
    assert.deepEqual(list.body.data.map((s: { id: string }) => s.id), [mine]);
    assert.equal(list.body.data[0].packets.in_stock, 1);
    const courierView = await t.call("GET", `/business/courier/clients/${other.id}/stores`, {
      key: courier.business.api_key,
    });
    assert.deepEqual(courierView.body.data.map((s: { id: string }) => s.id), [theirs]);
    const foreignCourier = await newCourier(t);
    const foreign = await t.call("POST", `/business/courier/clients/${client.id}/stores`, {
      key: foreignCourier.business.api_key,
      body: { code: "X", name: "X", address: "X" },
    });
    assert.equal(foreign.status, 404);
    const changed = await t.call("POST", `/business/courier/clients/${client.id}/stores`, {
      key: courier.business.api_key,
      body: { code: "FTN-01", name: "Renamed", address: "Elsewhere" },
    });
    assert.equal(changed.status, 409);
    await t.call("PATCH", `/operator/businesses/${courier.business.id}`, {
      operator: true,
      body: { courier_platform_enabled: false },
    });
    const off = await t.call("GET", "/client/stores", { headers: clientKey(client) });
    assert.equal(off.status, 403);
  }));

Deno.test("client stores: another store of the same client cannot stock a stocked packet", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    const a = await store(t, courier, client, "A");
    const b = await store(t, courier, client, "B");
    await act(t, client, a, "stock", { packet_code: "PK-9" });
    const r = await act(t, client, b, "stock", { packet_code: "PK-9" });
    assert.equal(r.status, 409);
    assert.equal(r.body.code, "packet_in_another_store");
    const sell = await act(t, client, b, "sell", { packet_code: "PK-9" });
    assert.equal(sell.status, 404);
  }));

Deno.test("client collection manifest: today's shipments awaiting collection, with totals", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    const other = await newClient(t, courier);
    await topUp(t, courier, client, "2000.00");
    await topUp(t, courier, other, "500.00");
    // Monday 2 Nov 10:00 in Gaborone: before the 14:00 cut-off, collected today.
    const first = await bookShipment(t, client, { client_order_reference: "ORD-1" });
    const second = await bookShipment(t, client, {
      parcels: [
        { weight_kg: 1.25, length_cm: 10, width_cm: 10, height_cm: 10 },
        { weight_kg: 0.5, length_cm: 10, width_cm: 10, height_cm: 10 },
      ],
    });
    await bookShipment(t, other);
    // 15:00 in Gaborone: past the cut-off, collected tomorrow.
    t.clock.advanceBy(5 * 60 * 60 * 1000);
    const tomorrow = await bookShipment(t, client);
    await t.settle();
    const today = await t.call("GET", "/client/collection-manifest", {
      headers: clientKey(client),
    });
    assert.equal(today.status, 200, JSON.stringify(today.body));
    const m = today.body.data;
    // Booked at the same instant (the clock did not move): ordered by waybill then.
    assert.deepEqual(
      m.shipments.map((s: { waybill: string }) => s.waybill),
      [first.waybill, second.waybill].sort(),
    );
    assert.deepEqual(m.totals, { shipments: 2, pieces: 3, weight_kg: 4.25 });
    const row = m.shipments.find((s: { waybill: string }) => s.waybill === first.waybill);
    assert.equal(row.collection_on, "2026-11-02");
    assert.equal(row.recipient.name, "Neo Kgosi");
    assert.equal(row.service.code, "express");
    assert.equal(row.references.client_order_reference, "ORD-1");
    assert.equal(row.pieces, 1);
    assert.equal(row.weight_kg, 2.5);
    // The next day (Tuesday 08:00 in Gaborone) has only the late booking.
    t.clock.advanceBy(17 * 60 * 60 * 1000);
    const next = await t.call("GET", "/client/collection-manifest", {
      headers: clientKey(client),
    });
    assert.deepEqual(next.body.data.shipments.map((s: { waybill: string }) => s.waybill), [
      tomorrow.waybill,
    ]);
    assert.deepEqual(next.body.data.totals, { shipments: 1, pieces: 1, weight_kg: 2.5 });
    assert.equal(next.body.data.truncated, false);

    // More of yesterday's shipments still awaiting collection than the manifest's cap, all booked
    // before today's: today's is still found, and the manifest is not cut short.
    const [row0] = await t.env.db.selectFrom("snapshots").selectAll()
      .where("type", "=", "shipment").where("id", "=", first.waybill).execute();
    const earlier = Array.from({ length: COLLECTION_MANIFEST_SHIPMENTS_MAX + 1 }, (_, i) => ({
      ...row0!,
      id: `WBOLD${String(i).padStart(5, "0")}`,
      data: jsonb({
        ...(row0!.data as Record<string, unknown>),
        waybill: `WBOLD${String(i).padStart(5, "0")}`,
        booked_at: (row0!.data as { booked_at: number }).booked_at - 1_000 - i,
      }),
    }));
    for (let i = 0; i < earlier.length; i += 500) {
      await t.env.db.insertInto("snapshots").values(earlier.slice(i, i + 500)).execute();
    }
    const crowded = await t.call("GET", "/client/collection-manifest", {
      headers: clientKey(client),
    });
    assert.deepEqual(crowded.body.data.shipments.map((s: { waybill: string }) => s.waybill), [
      tomorrow.waybill,
    ]);
    assert.equal(crowded.body.data.truncated, false);
  }));

// --- the packet machine, pure (no KV, no HTTP) ---

const CTX = { now: 1_000, newId: (p: string) => `${p}_1` };

function command(action: PacketAction, store = "sto_a"): RetailPacketCommand {
  return {
    kind: "act",
    action,
    courier_id: "biz_1",
    client_id: "cli_1",
    store_id: store,
    code: "PK-1",
    details: {
      note: null,
      reference: null,
      weight_kg: null,
      activation: action === "activate"
        ? {
          sender_name: "A",
          sender_phone: null,
          recipient_name: "B",
          recipient_phone: "+26771234567",
          recipient_address: "C",
        }
        : null,
    },
    by: "test",
  };
}

Deno.test("retail packet: random action sequences never reach an illegal state; refusals change nothing", () => {
  fc.assert(fc.property(
    fc.array(fc.tuple(fc.constantFrom(...PACKET_ACTIONS), fc.constantFrom("sto_a", "sto_b")), {
      maxLength: 30,
    }),
    (steps) => {
      let state = null as RetailPacketState;
      const taken = new Set<PacketAction>();
      for (const [action, store] of steps) {
        const before: RetailPacketState = state;
        const d = retailPacketActor.decide(state, command(action, store), CTX);
        if (!d.ok) {
          // Refused: no events, so the state stays exactly as it was.
          assert.equal(state, before);
          if (d.code === "packet_state_invalid") {
            assert.ok(!allowedActions(state?.state ?? null).includes(action));
          }
          continue;
        }
        for (const e of d.events) state = retailPacketActor.evolve(state, e);
        assert.ok(state !== null);
        assert.ok((PACKET_STATES as readonly string[]).includes(state.state));
        if (d.events.length > 0) {
          // A move follows the table, from the state the action needs, once per action.
          assert.equal(PACKET_TRANSITIONS[action].to, state.state);
          assert.equal(PACKET_TRANSITIONS[action].from, before?.state ?? null);
          assert.ok(!taken.has(action));
          taken.add(action);
        } else {
          assert.ok(taken.has(action), `a no-op is only a replay: ${action}`);
        }
        // Never both refunded and activated: a refund is only before activation.
        const actions: PacketAction[] = state.history.map((h) => h.action);
        assert.ok(!(actions.includes("refund") && actions.includes("activate")));
        assert.equal(new Set(actions).size, actions.length);
      }
    },
  ));
});
