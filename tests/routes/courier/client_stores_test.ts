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
} from "../../../actors/courier/retail_packet.ts";
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

Deno.test("client stores: an action again with other details is refused 409 packet_conflict, never a second sale", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    const storeId = await store(t, courier, client);
    await act(t, client, storeId, "stock", { packet_code: "PK-1" });
    const sold = await act(t, client, storeId, "sell", {
      packet_code: "PK-1",
      reference: "TILL-1",
    });
    assert.equal(sold.body.data.state, "sold");
    // The same sale sent again is a replay: it answers the packet as the first sell left it.
    const replay = await act(t, client, storeId, "sell", {
      packet_code: "PK-1",
      reference: "TILL-1",
    });
    assert.equal(replay.status, 200);
    assert.equal(replay.body.data.replayed, true);
    // Another till receipt is another customer paying for a packet already sold.
    const twice = await act(t, client, storeId, "sell", {
      packet_code: "PK-1",
      reference: "TILL-2",
    });
    assert.equal(twice.status, 409, JSON.stringify(twice.body));
    assert.equal(twice.body.code, "packet_conflict");
    assert.match(twice.body.message, /sold.*TILL-1/);
    await act(t, client, storeId, "activate", { packet_code: "PK-1", ...ACTIVATION });
    const readdressed = await act(t, client, storeId, "activate", {
      packet_code: "PK-1",
      ...ACTIVATION,
      recipient_name: "Somebody Else",
    });
    assert.equal(readdressed.status, 409, JSON.stringify(readdressed.body));
    assert.equal(readdressed.body.code, "packet_conflict");
    await act(t, client, storeId, "accept", { packet_code: "PK-1", weight_kg: 1.2 });
    const reweighed = await act(t, client, storeId, "accept", {
      packet_code: "PK-1",
      weight_kg: 3,
    });
    assert.equal(reweighed.status, 409, JSON.stringify(reweighed.body));
    assert.equal(reweighed.body.code, "packet_conflict");
    // Refused: the packet is as the first answers left it.
    const now = await act(t, client, storeId, "accept", { packet_code: "PK-1", weight_kg: 1.2 });
    assert.equal(now.status, 200);
    assert.equal(now.body.data.replayed, true);
    assert.equal(now.body.data.sale_reference, "TILL-1");
    assert.equal(now.body.data.activation.recipient_name, "Mpho Dube");
    assert.equal(now.body.data.weight_kg, 1.2);
    assert.equal(now.body.data.history.length, 4);
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

// ---- The programme through HTTP against a model of its own (README: "the client moves packets
// through stock, sell, activate, accept and hand-over (or refund)").

/** The README's order, written out apart from the actor's table: what each action needs. */
const MODEL_MOVES: Record<string, { from: string | null; to: string }> = {
  stock: { from: null, to: "in_stock" },
  sell: { from: "in_stock", to: "sold" },
  refund: { from: "sold", to: "refunded" },
  activate: { from: "sold", to: "activated" },
  accept: { from: "activated", to: "accepted" },
  "hand-over": { from: "accepted", to: "handed_over" },
};

interface ModelPacket {
  store: number;
  state: string;
  history: string[];
  reference: string | null;
  recipient: string | null;
  weight: number | null;
}

interface PacketOp {
  action: PacketAction;
  packet: number;
  store: number;
  reference: string | null;
  recipient: string | null;
  weight: number | null;
}

/** A drawn step: "next" is the README's next action for the packet, so runs get far along. */
const packetStep = fc.record({
  action: fc.oneof(
    { weight: 3, arbitrary: fc.constant("next" as const) },
    { weight: 2, arbitrary: fc.constantFrom(...PACKET_ACTIONS) },
  ),
  // From sold, "next" is a refund one time in three.
  refund: fc.constantFrom(false, false, true),
  packet: fc.constantFrom(0, 0, 1, 2),
  // Mostly the packet's own store (packet 2 lives in B), else the other one.
  otherStore: fc.constantFrom(false, false, false, true),
  reference: fc.constantFrom(null, "TILL-1", "TILL-2"),
  // null: activate sent without the customer's details.
  recipient: fc.constantFrom(null, "Mpho Dube", "Mpho Dube", "Kagiso Moyo"),
  weight: fc.constantFrom(null, 1.2, 2.5),
  // Send the previous request again, byte for byte.
  replay: fc.constantFrom(false, false, true),
});

function resolve(
  step: typeof packetStep extends fc.Arbitrary<infer T> ? T : never,
  m: ModelPacket | undefined,
): PacketOp {
  const home = m?.store ?? (step.packet === 2 ? 1 : 0);
  let action: PacketAction;
  if (step.action !== "next") action = step.action;
  else if (m === undefined) action = "stock";
  else if (m.state === "sold") action = step.refund ? "refund" : "activate";
  else {
    action = PACKET_ACTIONS.find((a) => MODEL_MOVES[a]!.from === m.state) ??
      PACKET_ACTIONS[m.history.length % PACKET_ACTIONS.length]!;
  }
  return {
    action,
    packet: step.packet,
    store: step.otherStore ? 1 - home : home,
    reference: step.reference,
    recipient: step.recipient,
    weight: step.weight,
  };
}

function bodyOf(op: PacketOp, code: string): Record<string, unknown> {
  return {
    packet_code: code,
    ...(op.reference === null ? {} : { reference: op.reference }),
    ...(op.action === "activate" && op.recipient !== null
      ? { ...ACTIVATION, recipient_name: op.recipient }
      : {}),
    ...(op.weight === null ? {} : { weight_kg: op.weight }),
  };
}

/** What the model answers: the status and code, and the packet afterwards (undefined: none). */
function expected(
  m: ModelPacket | undefined,
  op: PacketOp,
): { status: number; code?: string; replayed?: boolean; next: ModelPacket | undefined } {
  if (op.action === "activate" && op.recipient === null) {
    return { status: 422, code: "validation_failed", next: m };
  }
  if (m === undefined) {
    if (op.action !== "stock") return { status: 404, code: "not_found", next: m };
    const next = {
      store: op.store,
      state: "in_stock",
      history: ["stock"],
      reference: null,
      recipient: null,
      weight: null,
    };
    return { status: 201, replayed: false, next };
  }
  if (m.store !== op.store) {
    return op.action === "stock"
      ? { status: 409, code: "packet_in_another_store", next: m }
      : { status: 404, code: "not_found", next: m };
  }
  if (m.history.includes(op.action)) {
    const conflict = (op.action === "sell" && op.reference !== null &&
      op.reference !== m.reference) ||
      (op.action === "activate" && op.recipient !== m.recipient) ||
      (op.action === "accept" && op.weight !== null && op.weight !== m.weight);
    return conflict
      ? { status: 409, code: "packet_conflict", next: m }
      : { status: 200, replayed: true, next: m };
  }
  if (op.action === "stock" || MODEL_MOVES[op.action]!.from !== m.state) {
    return { status: 422, code: "packet_state_invalid", next: m };
  }
  return {
    status: 200,
    replayed: false,
    next: {
      ...m,
      state: MODEL_MOVES[op.action]!.to,
      history: [...m.history, op.action],
      ...(op.action === "sell" ? { reference: op.reference } : {}),
      ...(op.action === "activate" ? { recipient: op.recipient } : {}),
      ...(op.action === "accept" ? { weight: op.weight } : {}),
    },
  };
}

Deno.test("client stores: random packet actions in two stores follow the README's order; refusals change nothing, replays answer the first", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const other = await newClient(t, courier);
    const theirs = await store(t, courier, other, "OTHER");
    await act(t, other, theirs, "stock", { packet_code: "PK-0" });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(packetStep, { minLength: 8, maxLength: 24 }), async (raw) => {
        run++;
        const client = await newClient(t, courier);
        const stores = [await store(t, courier, client, "A"), await store(t, courier, client, "B")];
        const codes = ["PK-0", "PK-1", "PK-2"];
        const model: (ModelPacket | undefined)[] = [undefined, undefined, undefined];
        let previous: PacketOp | null = null;
        for (const drawn of raw) {
          const op: PacketOp = drawn.replay && previous !== null
            ? previous
            : resolve(drawn, model[drawn.packet]);
          previous = op;
          const before = model[op.packet];
          const want = expected(before, op);
          const r = await act(
            t,
            client,
            stores[op.store]!,
            op.action,
            bodyOf(op, codes[op.packet]!),
          );
          const what: string = `run ${run} ${op.action} ${JSON.stringify(op)}: ${
            JSON.stringify(r.body)
          }`;
          assert.equal(r.status, want.status, what);
          if (want.code !== undefined) {
            // Refused: the model's packet stays as it was (checked on the next answer).
            assert.equal(r.body.code, want.code, what);
            assert.ok(r.body.message.length > 0, what);
            continue;
          }
          model[op.packet] = want.next;
          const m = want.next!;
          const p = r.body.data;
          assert.equal(p.replayed, want.replayed, what);
          assert.equal(p.state, m.state, what);
          assert.equal(p.store_id, stores[m.store], what);
          assert.deepEqual(p.history.map((h: { action: string }) => h.action), m.history, what);
          assert.deepEqual(
            p.allowed_actions,
            PACKET_ACTIONS.filter((a) => MODEL_MOVES[a]!.from === m.state),
            what,
          );
          assert.equal(p.sale_reference, m.reference, what);
          assert.equal(p.activation?.recipient_name ?? null, m.recipient, what);
          assert.equal(p.weight_kg, m.weight, what);
          // Sold once; never refunded once handed over; accepted only once activated after a sale.
          const h: string[] = p.history.map((s: { action: string }) => s.action);
          assert.ok(h.filter((a) => a === "sell").length <= 1, what);
          assert.ok(!(h.includes("refund") && h.includes("hand-over")), what);
          if (h.includes("accept")) {
            assert.ok(h.indexOf("sell") < h.indexOf("activate"), what);
            assert.ok(h.indexOf("activate") < h.indexOf("accept"), what);
          }
        }
        // Another client's store, and its packet of the same code, do not exist for this client.
        const foreign = await act(t, client, theirs, "sell", { packet_code: "PK-0" });
        assert.equal(foreign.status, 404);
        assert.equal(foreign.body.data, undefined);
        await t.settle();
        const list = await t.call("GET", "/client/stores", { headers: clientKey(client) });
        assert.deepEqual(list.body.data.map((s: { id: string }) => s.id), stores);
        for (const [i, s] of list.body.data.entries()) {
          const counts = Object.fromEntries(PACKET_STATES.map((st) => [st, 0]));
          for (const m of model) if (m !== undefined && m.store === i) counts[m.state]!++;
          assert.deepEqual(s.packets, counts, `run ${run} store ${i}`);
        }
      }),
      { numRuns: 12 },
    );
    // The other client's packet was never touched.
    await t.settle();
    const theirList = await t.call("GET", "/client/stores", { headers: clientKey(other) });
    assert.equal(theirList.body.data[0].packets.in_stock, 1);
  }));
