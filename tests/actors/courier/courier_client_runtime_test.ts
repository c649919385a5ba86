/** The client account on the runtime: one booking per source event and key, and the replies it keeps. */
import assert from "node:assert/strict";
import {
  type BookingChargeReply,
  courierClientActor,
  type CourierClientCommand,
  type CourierClientEvent,
  isWithdrawn,
  keptClientReply,
} from "../../../actors/courier/courier_client.ts";
import { entryAsk } from "../../../actors/courier/client_ledger.ts";
import { MemoryBus } from "../../../src/bus/memory_bus.ts";
import { ManualClock } from "../../../src/runtime/clock.ts";
import { KvActorStore } from "../../../src/runtime/kv_store.ts";
import { ActorRuntime } from "../../../src/runtime/runtime.ts";
import { DAY, newClient, T0 } from "./courier_client_fixtures.ts";

Deno.test("client account runtime: the same source event books once, even asked concurrently", async () => {
  const store = await KvActorStore.open(":memory:");
  const bus = new MemoryBus();
  const clock = new ManualClock(T0);
  const runtime = new ActorRuntime({
    env: "test",
    store,
    bus,
    clock,
    definitions: [courierClientActor],
    onError: () => {},
  });
  await runtime.start();
  try {
    const created = await runtime.ask(courierClientActor, "biz_1", "cli_1", {
      kind: "create",
      client: newClient("cli_1", "biz_1", {}),
      by: "test",
    });
    assert.ok(created.ok);
    const charge = (reference: string): CourierClientCommand => ({
      kind: "post_charge",
      reference,
      entry_kind: "customs_admin",
      amount_minor: 7_500,
      currency: "BWP",
      reason: "customs administration",
      evidence_path: null,
      source_event: "customs.cleared:crs_1",
      shipment: "WB1",
      recoverable: false,
      by: "test",
    });
    const options = entryAsk("customs.cleared:crs_1");
    assert.deepEqual(options, { idempotencyKey: "entry:customs.cleared:crs_1", permanent: true });
    const answers = await Promise.all(
      Array.from(
        { length: 10 },
        () => runtime.ask(courierClientActor, "biz_1", "cli_1", charge("CUS-1"), options),
      ),
    );
    assert.ok(answers.every((r) => r.ok));
    assert.equal(answers.filter((r) => r.ok && !r.replayed).length, 1);
    // Sent again much later, under another reference even: still booked once.
    clock.advanceBy(30 * DAY);
    const late = await runtime.ask(
      courierClientActor,
      "biz_1",
      "cli_1",
      charge("CUS-1-again"),
      options,
    );
    assert.ok(late.ok && late.replayed);
    const got = await runtime.ask(courierClientActor, "biz_1", "cli_1", { kind: "get" });
    assert.ok(got.ok && got.reply && "money" in got.reply);
    assert.equal(got.reply.money.receivable_minor, 7_500);
    const kinds: string[] = [];
    for await (const e of runtime.events(courierClientActor, "cli_1")) {
      kinds.push((e.event as CourierClientEvent).kind);
    }
    assert.deepEqual(kinds, ["client_created", "entry_posted"]);
    // Another courier's client does not exist for this tenant.
    const other = await runtime.ask(
      courierClientActor,
      "biz_2",
      "cli_1",
      charge("X"),
      entryAsk("x"),
    );
    assert.equal(other.ok ? "" : other.code, "not_found");
  } finally {
    await runtime.close();
    await bus.flush();
    store.close();
  }
});

Deno.test("client account runtime: a booking's charge and its withdrawal under one key: the first to commit answers both", async () => {
  const store = await KvActorStore.open(":memory:");
  const bus = new MemoryBus();
  const runtime = new ActorRuntime({
    env: "test",
    store,
    bus,
    clock: new ManualClock(T0),
    definitions: [courierClientActor],
    onError: () => {},
  });
  await runtime.start();
  try {
    const created = await runtime.ask(courierClientActor, "biz_1", "cli_1", {
      kind: "create",
      client: newClient("cli_1", "biz_1", {}),
      by: "test",
    });
    assert.ok(created.ok);
    const key = (waybill: string) => ({ idempotencyKey: `charge:${waybill}`, permanent: true });
    const charge = (waybill: string) =>
      runtime.ask(courierClientActor, "biz_1", "cli_1", {
        kind: "charge_booking",
        waybill,
        amount_minor: 8_892,
        currency: "BWP",
        by: "t",
      }, key(waybill));
    const withdraw = (waybill: string) =>
      runtime.ask(
        courierClientActor,
        "biz_1",
        "cli_1",
        { kind: "withdraw_booking", waybill },
        key(waybill),
      );
    // Withdrawn first: the late charge is answered the withdrawal and takes nothing.
    const fenced = await withdraw("WB1");
    assert.ok(fenced.ok && isWithdrawn(fenced.reply));
    const late = await charge("WB1");
    assert.ok(late.ok && late.replayed && isWithdrawn(late.reply));
    // Charged first: the withdrawal is answered the charge, which stands.
    const charged = await charge("WB2");
    assert.ok(charged.ok && !isWithdrawn(charged.reply));
    const after = await withdraw("WB2");
    assert.ok(after.ok && after.replayed && !isWithdrawn(after.reply));
    // The charge as kept under the key: what completing the booking reads of it.
    assert.ok(charged.ok && charged.reply);
    assert.deepEqual(after.reply, keptClientReply(charged.reply));
    // Sent together, one of them commits first and the other is answered its reply.
    const both = await Promise.all([charge("WB3"), withdraw("WB3")]);
    assert.equal(new Set(both.map((r) => r.ok && isWithdrawn(r.reply))).size, 1);
    const got = await runtime.ask(courierClientActor, "biz_1", "cli_1", { kind: "get" });
    assert.ok(got.ok && got.reply && "money" in got.reply);
    // WB2's charge, and WB3's unless its withdrawal came first; never WB1's.
    const charges = both[0]!.ok && isWithdrawn(both[0]!.reply) ? 1 : 2;
    assert.equal(got.reply.money.receivable_minor, charges * 8_892);
  } finally {
    await runtime.close();
    await bus.flush();
    store.close();
  }
});

Deno.test("client account: a booking's charge is kept small under its key, and its replay reads what completing the booking needs", async () => {
  const store = await KvActorStore.open(":memory:");
  const bus = new MemoryBus();
  const runtime = new ActorRuntime({
    env: "test",
    store,
    bus,
    clock: new ManualClock(T0),
    definitions: [courierClientActor],
    onError: () => {},
  });
  await runtime.start();
  try {
    await runtime.ask(courierClientActor, "biz_1", "cli_1", {
      kind: "create",
      client: newClient("cli_1", "biz_1", {}),
      by: "test",
    });
    const booking = { prices_reference: "prc_1", dangerous_goods_confirmed: false, by: "u" };
    const charge = () =>
      runtime.ask(courierClientActor, "biz_1", "cli_1", {
        kind: "charge_booking",
        waybill: "WB1",
        amount_minor: 8_892,
        currency: "BWP",
        service_level: "express",
        references: {
          external_customer_code: "C-1",
          external_billing_reference: null,
          client_order_reference: "PO-1",
        },
        booking,
        by: "u",
      }, { idempotencyKey: "charge:WB1", permanent: true });
    const first = await charge();
    assert.ok(first.ok && !first.replayed);
    const whole = first.reply as BookingChargeReply;
    assert.equal(whole.entry.reference, "WB1", "the first answer is the whole charge");
    const replay = await charge();
    assert.ok(replay.ok && replay.replayed);
    assert.deepEqual(replay.reply, {
      entry: { created_at: T0 },
      balances: { settlement_mode: whole.balances.settlement_mode },
      service_level: "express",
      booking,
    });
    const kept = await runtime.replyUnder(courierClientActor, "cli_1", "charge:WB1");
    assert.deepEqual(kept?.reply, replay.reply);
    const keptBytes = JSON.stringify(kept?.reply).length;
    assert.ok(keptBytes < 200, `kept ${keptBytes} bytes`);
    assert.ok(JSON.stringify(whole).length > 3 * keptBytes);
  } finally {
    await runtime.close();
    await bus.flush();
    store.close();
  }
});

Deno.test("client account: replies other than a booking's charge are kept whole", () => {
  const withdrawn = { withdrawn: "WB2" };
  assert.equal(keptClientReply(withdrawn), withdrawn);
  assert.equal(keptClientReply(undefined), undefined);
});
