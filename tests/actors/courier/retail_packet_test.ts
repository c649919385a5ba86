/**
 * One packet of the retail packet programme (actors/courier/retail_packet.ts; courier 4.6 `POST
 * /client/stores/{store}/packets/{action}`): stock, sell, refund (only while sold) or activate,
 * accept, hand over. Each action is idempotent per packet; one sent again with other details is a
 * conflict; one out of order is refused naming the actions allowed.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  allowedActions,
  asPacketReply,
  PACKET_ACTIONS,
  PACKET_TRANSITIONS,
  type PacketAction,
  type PacketActivation,
  type PacketDetails,
  packetIdOf,
  type PacketReply,
  retailPacketActor,
  type RetailPacketCommand,
} from "../../../actors/courier/retail_packet.ts";
import { ActorHarness, kinds } from "../../helpers/actor.ts";

const T0 = Date.parse("2026-11-02T08:00:00Z");
const NONE: PacketDetails = { note: null, reference: null, activation: null, weight_kg: null };
const ACTIVATION: PacketActivation = {
  sender_name: "Thabo",
  sender_phone: null,
  recipient_name: "Lesedi",
  recipient_phone: "+26772000000",
  recipient_address: "Plot 5, Francistown",
};

function act(
  action: PacketAction,
  details: Partial<PacketDetails> = {},
  store_id = "sto_1",
  code = "PK-001",
): RetailPacketCommand {
  return {
    kind: "act",
    action,
    courier_id: "biz_1",
    client_id: "cli_1",
    store_id,
    code,
    details: { ...NONE, ...details },
    by: "usr_1",
  };
}

/** The details each action needs to be taken. */
const NEEDS: Partial<Record<PacketAction, Partial<PacketDetails>>> = {
  sell: { reference: "TILL-77" },
  activate: { activation: ACTIVATION },
  accept: { weight_kg: 1.2 },
};

function through(...actions: PacketAction[]) {
  const h = new ActorHarness(retailPacketActor, { now: T0 });
  for (const a of actions) {
    h.now += 60_000;
    h.must(act(a, NEEDS[a]));
  }
  return h;
}

function packetOf(reply: PacketReply | unknown) {
  return asPacketReply(reply as PacketReply);
}

Deno.test("retail packet: stocked in a store, with its first step", () => {
  const h = new ActorHarness(retailPacketActor, { now: T0 });
  const step = h.must(act("stock", { note: "box 4" }));
  assert.deepEqual(kinds(step.events), ["packet_stocked"]);
  const { packet, replayed } = packetOf(step.reply);
  assert.equal(replayed, false);
  assert.deepEqual(packet, {
    code: "PK-001",
    courier_id: "biz_1",
    client_id: "cli_1",
    store_id: "sto_1",
    state: "in_stock",
    sale_reference: null,
    activation: null,
    weight_kg: null,
    history: [{ action: "stock", at: T0, by: "usr_1", note: "box 4" }],
    updated_at: T0,
  });
  assert.equal(packetIdOf("cli_1", "PK-001"), "cli_1:PK-001");
});

Deno.test("retail packet: the whole way from stock to hand-over records each detail", () => {
  const h = through("stock", "sell", "activate", "accept", "hand-over");
  const p = h.state!;
  assert.equal(p.state, "handed_over");
  assert.equal(p.sale_reference, "TILL-77");
  assert.deepEqual(p.activation, ACTIVATION);
  assert.equal(p.weight_kg, 1.2);
  assert.deepEqual(p.history.map((s) => s.action), [
    "stock",
    "sell",
    "activate",
    "accept",
    "hand-over",
  ]);
  assert.equal(p.updated_at, T0 + 5 * 60_000);
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("retail packet: only a sold packet is refunded, and a refunded one goes no further", () => {
  const h = through("stock", "sell", "refund");
  assert.equal(h.state!.state, "refunded");
  const refused = h.refused(
    act("activate", NEEDS.activate),
    "packet_state_invalid",
    "cannot activate a packet that is refunded; allowed: none",
  );
  assert.deepEqual(refused.details, { state: "refunded", allowed_actions: [] });
  through("stock", "sell", "activate").refused(
    act("refund"),
    "packet_state_invalid",
    "cannot refund a packet that is activated; allowed: accept",
  );
  through("stock").refused(
    act("refund"),
    "packet_state_invalid",
    "cannot refund a packet that is in_stock; allowed: sell",
  );
});

Deno.test("retail packet: an action already taken answers the packet as it is now, moving nothing", () => {
  const h = through("stock", "sell", "activate");
  for (const a of ["stock", "sell", "activate"] as const) {
    const again = h.must(act(a, NEEDS[a]));
    assert.deepEqual(again.events, []);
    const { packet, replayed } = packetOf(again.reply);
    assert.equal(replayed, true);
    assert.equal(packet.state, "activated");
  }
  // A detail left out restates nothing: still a replay.
  assert.equal(packetOf(h.must(act("sell")).reply).replayed, true);
});

Deno.test("retail packet: an action sent again with other details is a conflict", () => {
  const h = through("stock", "sell", "activate", "accept");
  h.refused(
    act("sell", { reference: "TILL-99" }),
    "packet_conflict",
    "the packet was already sold with another reference: TILL-77",
  );
  h.refused(
    act("activate", { activation: { ...ACTIVATION, recipient_phone: "+26773000000" } }),
    "packet_conflict",
    "the packet was already activated with other details: to Lesedi",
  );
  h.refused(
    act("accept", { weight_kg: 2 }),
    "packet_conflict",
    "the packet was already accepted with another weight: 1.2 kg",
  );
  // A sale without a reference recorded none; a later reference is another sale.
  const bare = new ActorHarness(retailPacketActor, { now: T0 });
  bare.must(act("stock"));
  bare.must(act("sell"));
  bare.refused(
    act("sell", { reference: "TILL-1" }),
    "packet_conflict",
    "the packet was already sold with another reference: none",
  );
});

Deno.test("retail packet: activation needs the customer's details", () => {
  through("stock", "sell").refused(
    act("activate"),
    "validation_failed",
    "activate needs the sender's and the recipient's details",
  );
});

Deno.test("retail packet: a code is one packet of the client, whichever store it is in", () => {
  const h = through("stock");
  h.refused(
    act("stock", {}, "sto_2"),
    "packet_in_another_store",
    "the packet is stocked in another store: PK-001",
  );
  h.refused(
    act("sell", NEEDS.sell, "sto_2"),
    "not_found",
    "packet not found in this store: PK-001",
  );
  new ActorHarness(retailPacketActor).refused(
    act("sell", NEEDS.sell),
    "not_found",
    "packet not found in this store: PK-001",
  );
});

Deno.test("retail packet: a packet code is 1 to 40 letters, digits, dot, dash or underscore", () => {
  for (const code of ["", "has space", "P".repeat(41)]) {
    new ActorHarness(retailPacketActor).refused(
      act("stock", {}, "sto_1", code),
      "validation_failed",
      `packet code: 1 to 40 letters, digits, dot, dash: ${code}`,
    );
  }
  new ActorHarness(retailPacketActor).must(act("stock", {}, "sto_1", "P".repeat(40)));
});

Deno.test("retail packet: get answers the packet or not_found", () => {
  new ActorHarness(retailPacketActor).refused({ kind: "get" }, "not_found", "packet not found");
  const h = through("stock");
  assert.equal(packetOf(h.must({ kind: "get" }).reply).packet, h.state);
  assert.equal(retailPacketActor.project!(h.state), h.state);
  assert.equal(retailPacketActor.project!(null), undefined);
  assert.throws(() =>
    retailPacketActor.evolve(null, {
      kind: "packet_moved",
      action: "sell",
      to: "sold",
      step: { action: "sell", at: 0, by: "x", note: null },
      details: NONE,
    })
  );
});

Deno.test("retail packet: whatever actions arrive, the packet follows the machine and takes each step once", () => {
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...PACKET_ACTIONS), { maxLength: 25 }), (actions) => {
      const h = new ActorHarness(retailPacketActor, { now: T0 });
      for (const a of actions) {
        const before = h.state;
        const r = h.send(act(a, NEEDS[a]));
        const taken = before?.history.some((s) => s.action === a) ?? false;
        const allowed = allowedActions(before?.state ?? null).includes(a);
        assert.equal(!("ok" in r), taken || allowed, `${a} from ${before?.state ?? "nothing"}`);
        if (!taken && allowed) assert.equal(h.state!.state, PACKET_TRANSITIONS[a].to);
      }
      const steps = h.state?.history.map((s) => s.action) ?? [];
      assert.equal(new Set(steps).size, steps.length);
      assert.deepEqual(h.replayed(), h.state);
    }),
  );
});
