/**
 * The shopping_store actor's work (shopping 3; CONTRACT "Driver app"): every line transition and
 * refusal, the preference's say over a substitution, the decision window's timer, a store's
 * collection and unavailability, and the outbox items the merchant's events are made from.
 */
import assert from "node:assert/strict";
import { ActorHarness, kinds } from "../../helpers/actor.ts";
import {
  shoppingStoreActor,
  type ShoppingStoreCommand,
  type ShoppingStoreState,
} from "../../../actors/shopping/store.ts";
import type { SubstitutionPreference } from "../../../src/shopping/rules/order.ts";
import type { LineReport } from "../../../src/shopping/rules/shopper.ts";
import { SHOPPING_EVENT_OUTBOX } from "../../../src/shopping/rules/events.ts";

const ASK_MS = 5 * 60_000;

function opened(preference: SubstitutionPreference = "refund") {
  const h = new ActorHarness(shoppingStoreActor, { now: 1_000 });
  h.must({
    kind: "open",
    order_reference: "BK-1",
    business_id: "biz_1",
    store_id: "shc_1.0",
    substitution_preference: preference,
    store: {
      external_fulfilment_id: "F1",
      external_store_id: 5,
      store_name: "Spar",
      sequence: 1,
      estimated_amount_minor: 4_000,
      items: [1, "b", "c"].map((id) => ({
        external_item_id: id,
        name: `Item ${id}`,
        qty: 2,
        unit_price_minor: 1_000,
        barcode: null,
        image: null,
      })),
    },
  });
  return h;
}

const found = (qty = 2, price = 1_050): LineReport => ({
  outcome: "found",
  qty_found: qty,
  unit_price_paid_minor: price,
  substitute: null,
});
const substituted: LineReport = {
  outcome: "substituted",
  qty_found: 1,
  unit_price_paid_minor: 1_200,
  substitute: { name: "Other milk", barcode: "600", unit_price_minor: 1_200 },
};
const missing: LineReport = {
  outcome: "unavailable",
  qty_found: null,
  unit_price_paid_minor: null,
  substitute: null,
};

function record(id: string | number, report: LineReport): ShoppingStoreCommand {
  return { kind: "record_line", external_item_id: id, report, ask_timeout_ms: ASK_MS };
}

const RECEIPT = { sha256: "a".repeat(64), content_type: "image/png" };

function outboxOf(h: ActorHarness<ShoppingStoreState, ShoppingStoreCommand, unknown, unknown>) {
  return h.log.flatMap((e) => shoppingStoreActor.outbox!(e as never, h.state));
}

function line(h: { state: ShoppingStoreState }, id: string | number) {
  return h.state!.lines.find((l) => String(l.external_item_id) === String(id))!;
}

Deno.test("shopping store actor: found, unavailable and refund-preference substitutions are recorded with who decided", () => {
  const h = opened("refund");
  h.must(record(1, found(1)));
  assert.deepEqual(
    [line(h, 1).outcome, line(h, 1).qty_found, line(h, 1).unit_price_paid_minor],
    ["found", 1, 1_050],
  );
  assert.equal(line(h, 1).decided_by, "shopper");
  // A number sent as text finds the line; the id keeps the type it was sent with.
  h.must(record("b", missing));
  assert.deepEqual([line(h, "b").outcome, line(h, "b").qty_found], ["unavailable", 0]);
  // spec: shopping 3: under refund a substitute is refused: unavailable, refunded.
  const sub = h.must(record("c", substituted));
  assert.deepEqual(kinds(sub.events), ["line_recorded"]);
  assert.deepEqual(
    [line(h, "c").outcome, line(h, "c").decided_by, line(h, "c").substitute],
    ["unavailable", "preference", null],
  );
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("shopping store actor: match takes the substitute; ask waits for the customer and accept substitutes", () => {
  const m = opened("match");
  m.must(record("b", substituted));
  assert.deepEqual([line(m, "b").outcome, line(m, "b").decided_by], ["substituted", "preference"]);
  assert.equal(line(m, "b").substitute?.name, "Other milk");

  const h = opened("ask");
  const asked = h.must(record("b", substituted));
  assert.deepEqual(kinds(asked.events), ["decision_awaited"]);
  assert.equal(line(h, "b").outcome, "awaiting_decision");
  assert.equal(line(h, "b").decide_by, 1_000 + ASK_MS);
  assert.deepEqual(asked.timers, [{ op: "set", name: "decision:b", at: 1_000 + ASK_MS }]);
  assert.deepEqual(outboxOf(h), [{
    outbox: SHOPPING_EVENT_OUTBOX,
    payload: {
      kind: "decision_needed",
      business_id: "biz_1",
      order_reference: "BK-1",
      store_id: "shc_1.0",
      external_item_id: "b",
      event_id: "evt_1",
      decide_by: 1_000 + ASK_MS,
      // The line as it began to wait, so its event states it however late it is made.
      line: {
        qty_found: 1,
        unit_price_paid_minor: 1_200,
        substitute: { name: "Other milk", barcode: "600", unit_price_minor: 1_200 },
      },
      at: 1_000,
    },
  }]);
  // While it waits the shopper cannot record it again, nor finish the store.
  h.refused(record("b", found()), "decision_pending");
  h.must(record(1, found()));
  h.must(record("c", missing));
  h.refused(
    { kind: "collect", collected_amount_minor: 3_300, receipt_photo: RECEIPT },
    "decision_pending",
  );
  h.refused({ kind: "mark_unavailable" }, "decision_pending");
  h.now += ASK_MS - 1;
  const yes = h.must({ kind: "decide", external_item_id: "b", decision: "accept" });
  assert.deepEqual(yes.timers, [{ op: "cancel", name: "decision:b" }]);
  assert.deepEqual(
    [line(h, "b").outcome, line(h, "b").decided_by, line(h, "b").qty_found],
    ["substituted", "customer", 1],
  );
  assert.equal(line(h, "b").unit_price_paid_minor, 1_200);
  // A second answer: the line awaits nothing now.
  h.refused({ kind: "decide", external_item_id: "b", decision: "reject" }, "not_awaiting_decision");
  // A timer that fires late changes nothing.
  assert.deepEqual(h.fire("decision:b").events, []);
});

Deno.test("shopping store actor: reject makes the line unavailable by the customer; no answer in time refunds it by preference", () => {
  const h = opened("ask");
  h.must(record(1, substituted));
  h.must({ kind: "decide", external_item_id: "1", decision: "reject" });
  assert.deepEqual(
    [line(h, 1).outcome, line(h, 1).decided_by, line(h, 1).qty_found, line(h, 1).substitute],
    ["unavailable", "customer", 0, null],
  );
  h.must(record("b", substituted));
  h.now += ASK_MS;
  // At the deadline the window is closed, even before the timer fires.
  h.refused(
    { kind: "decide", external_item_id: "b", decision: "accept" },
    "decision_window_closed",
    "the decision window closed and the item was refunded: b",
  );
  const expired = h.fire("decision:b");
  assert.deepEqual(kinds(expired.events), ["line_recorded"]);
  assert.deepEqual(
    [line(h, "b").outcome, line(h, "b").decided_by, line(h, "b").unit_price_paid_minor],
    ["unavailable", "preference", null],
  );
  h.refused(
    { kind: "decide", external_item_id: "b", decision: "accept" },
    "decision_window_closed",
  );
  // The sandbox's timeout closes a waiting window at once, as the timer does.
  h.must(record("c", substituted));
  const closed = h.must({ kind: "close_window", external_item_id: "c" });
  assert.deepEqual(closed.timers, [{ op: "cancel", name: "decision:c" }]);
  assert.deepEqual([line(h, "c").outcome, line(h, "c").decided_by], ["unavailable", "preference"]);
  h.refused({ kind: "close_window", external_item_id: "c" }, "not_awaiting_decision");
  h.refused(
    { kind: "decide", external_item_id: "c", decision: "accept" },
    "decision_window_closed",
  );
  // A line never asked about awaits nothing; an unknown line is not found.
  h.refused({ kind: "decide", external_item_id: 1, decision: "accept" }, "not_awaiting_decision");
  h.refused({ kind: "decide", external_item_id: "zz", decision: "accept" }, "not_found");
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("shopping store actor: a line report's refusals change nothing", () => {
  const h = opened();
  h.refused(record("zz", found()), "not_found", /no item zz at store F1/);
  h.refused(record(1, found(3)), "validation_failed", /1 to the 2 asked for: 3 given/);
  h.refused(record(1, found(0)), "validation_failed");
  h.refused(
    record(1, { ...found(), unit_price_paid_minor: null }),
    "validation_failed",
    /unit_price_paid/,
  );
  h.refused(record(1, { ...substituted, substitute: null }), "substitute_required");
  h.refused(record(1, { ...missing, qty_found: 1 }), "validation_failed", /must be 0/);
  h.must(record(1, found()));
  h.refused(record(1, missing), "line_finished", "item 1 was already recorded found");
});

Deno.test("shopping store actor: collected once every line is settled, with its amount, receipt and one store_finished item", () => {
  const h = opened();
  const collect: ShoppingStoreCommand = {
    kind: "collect",
    collected_amount_minor: 3_150,
    receipt_photo: RECEIPT,
  };
  h.must(record(1, found()));
  h.refused(collect, "lines_pending", /2 item\(s\) not yet recorded, first: b/);
  h.must(record("b", missing));
  h.must(record("c", found(1)));
  h.refused({ kind: "mark_unavailable" }, "items_found", /collect the store/);
  h.refused({ ...collect, receipt_photo: null }, "receipt_photo_required");
  h.now = 9_000;
  h.must(collect);
  assert.equal(h.state!.status, "collected");
  assert.equal(h.state!.collected_amount_minor, 3_150);
  assert.deepEqual(h.state!.receipt_photo, RECEIPT);
  assert.equal(h.state!.finished_at, 9_000);
  assert.deepEqual(outboxOf(h).map((o) => o.payload), [{
    kind: "store_finished",
    business_id: "biz_1",
    order_reference: "BK-1",
    store_id: "shc_1.0",
    event_id: "evt_1",
  }]);
  h.refused(collect, "store_finished", "the store was already collected: F1");
  h.refused(record("c", found()), "store_finished");
  h.refused({ kind: "mark_unavailable" }, "store_finished");
});

Deno.test("shopping store actor: unavailable makes its unrecorded lines the shopper's unavailable; nothing found cannot be collected", () => {
  const h = opened();
  h.must(record(1, missing));
  h.refused(
    { kind: "collect", collected_amount_minor: 0, receipt_photo: RECEIPT },
    "lines_pending",
  );
  h.must(record("b", missing));
  h.must(record("c", missing));
  h.refused(
    { kind: "collect", collected_amount_minor: 0, receipt_photo: RECEIPT },
    "nothing_found",
  );
  const gone = opened();
  gone.must(record("b", missing));
  const r = gone.must({ kind: "mark_unavailable" });
  assert.deepEqual(kinds(r.events), ["store_unavailable"]);
  assert.equal(gone.state!.status, "unavailable");
  assert.deepEqual(
    gone.state!.lines.map((l) => [l.outcome, l.decided_by, l.qty_found]),
    [["unavailable", "shopper", 0], ["unavailable", "shopper", 0], ["unavailable", "shopper", 0]],
  );
  assert.equal(outboxOf(gone).length, 1);
  assert.deepEqual(gone.replayed(), gone.state);
});

Deno.test("shopping store actor: commands before the opening are not found; a stray timer is harmless", () => {
  const h = new ActorHarness(shoppingStoreActor);
  h.refused(record(1, found()), "not_found");
  h.refused({ kind: "mark_unavailable" }, "not_found");
  assert.deepEqual(h.fire("decision:1").events, []);
});
