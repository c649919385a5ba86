/**
 * Customs duties (courier 2.6, 5, 7): duties paid for the client are recoverable, apart from
 * revenue, and booked once: also when the client's account was busy, refused them or a crash
 * kept them off it, and when the same duties are sent again in other words.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { billingAction, postCharge } from "../../helpers/courier.ts";
import { advance, until } from "../../helpers/receiver.ts";
import { SCAN_CHARGE_RETRY_MS } from "../../../src/limits.ts";
import { UNRESOLVED_FX_MAX } from "../../../src/courier/rules/ledger.ts";
import { whileFlaky } from "../../helpers/faults.ts";
import { billingEvent, crossings, ledger, move, presented } from "./customs_fixtures.ts";

Deno.test("customs: duties paid for the client are recoverable, apart from revenue; others are not charged", () =>
  withTestEnv(async (t) => {
    const { courier, client, waybill, id } = await presented(t, { customs: true });
    const duty = {
      action: "duties",
      amount: "125.50",
      currency: "BWP",
      payer: "client",
      evidence: "SARS receipt 9001",
    };
    const first = await move(t, courier, id, duty);
    assert.equal(first.data.charge_reference, `DUT-${id}-1`);
    // An amount is a JSON number in its currency, as every other answer states one (courier 9.4).
    assert.equal(first.data.move.amount, 125.5);
    assert.equal(first.data.duties[0].amount, 125.5);
    const replay = await move(t, courier, id, duty);
    assert.equal(replay.data.replayed, true);
    await move(t, courier, id, { ...duty, amount: 30, evidence: "SARS receipt 9002" });
    const recipient = await move(t, courier, id, {
      ...duty,
      amount: "12",
      payer: "recipient",
      evidence: "paid at the counter",
    });
    assert.equal(recipient.data.charge_reference, null);
    // Duties still follow a clearance.
    await move(t, courier, id, { action: "clear", customs_reference: "SARS-77" });
    await move(t, courier, id, { ...duty, amount: "5", evidence: "late excise" });

    const duties = await ledger(t, courier, "duties");
    assert.deepEqual(duties.map((d) => [d.reference, d.amount_minor, d.source_event]), [
      [`DUT-${id}-1`, 12550, `customs.duties:${id}`],
      [`DUT-${id}-2`, 3000, `customs.duties:${id}:2`],
      [`DUT-${id}-4`, 500, `customs.duties:${id}:4`],
    ]);
    assert.ok(duties.every((d) => d.recoverable && d.status === "posted"));
    assert.equal(duties[0]!.evidence_path, "SARS receipt 9001");
    assert.equal((await ledger(t, courier, "customs_admin")).length, 1);

    const bill = await t.call("GET", `/business/courier/clients/${client.id}/billing`, {
      key: courier.business.api_key,
    });
    assert.equal(bill.status, 200, JSON.stringify(bill.body));
    const totals = bill.body.data.statement.totals.find((x: { currency: string }) =>
      x.currency === "BWP"
    );
    assert.equal(Number(totals.recoverable_duties), 160.5);
    const shipmentCharge = bill.body.data.statement.entries
      .filter((e: { kind: string }) => e.kind === "shipment")
      .reduce((sum: number, e: { amount: string }) => sum + Math.round(Number(e.amount) * 100), 0);
    const charges = Math.round(Number(totals.charges) * 100);
    assert.equal(charges, shipmentCharge + 7500, "revenue leaves the duties out");

    const [c] = await crossings(t, courier, waybill);
    assert.deepEqual(c!.duties.map((d) => [d.amount, d.payer]), [
      [125.5, "client"],
      [30, "client"],
      [12, "recipient"],
      [5, "client"],
    ]);
    for (const n of ["", ":2", ":4"]) await billingEvent(t, courier, `customs.duties:${id}${n}`);
    await billingEvent(t, courier, `customs.cleared:${id}`);
  }));

Deno.test("customs: duties the client's account was too busy to take stay on the crossing and are booked once", () =>
  withTestEnv(async (t) => {
    const { courier, waybill, id } = await presented(t, { customs: true });
    const duty = {
      action: "duties",
      amount: "40",
      currency: "BWP",
      payer: "client",
      evidence: "SARS receipt 9100",
    };
    // The client's account answers actor_busy (its mailbox full) while the duties are recorded:
    // not now is no refusal, so the duties the courier paid stay on the crossing, due.
    await whileFlaky(t.env, {
      fails: (type, command) =>
        type === "courier_client" && (command as { kind: string }).kind === "post_charge",
      times: Infinity,
      refuse: true,
    }, async () => {
      const busy = await move(t, courier, id, duty, 503);
      assert.equal(busy.code, "actor_busy");
    });
    const [held] = await crossings(t, courier, waybill);
    assert.deepEqual(held!.duties.map((d) => [d.amount, d.payer]), [[40, "client"]]);
    // Nobody sends the duties again: they are booked once time passes (courier 2.6 rules 2, 3).
    await advance(t, SCAN_CHARGE_RETRY_MS / 1000);
    await until(
      t,
      async () => (await ledger(t, courier, "duties")).length > 0,
      "the duties booked",
    );
    const again = await move(t, courier, id, duty);
    assert.equal(again.data.replayed, true);
    assert.equal(again.data.charge_reference, `DUT-${id}-1`);
    await advance(t, SCAN_CHARGE_RETRY_MS / 1000);
    const duties = await ledger(t, courier, "duties");
    assert.deepEqual(duties.map((d) => [d.reference, d.amount_minor]), [[`DUT-${id}-1`, 4000]]);
  }));

Deno.test("customs: duties the client's account refuses are not recorded on the crossing; sent again once it takes them, booked once", () =>
  withTestEnv(async (t) => {
    const { courier, client, waybill, id } = await presented(t);
    // The account holds as many charges awaiting an FX rate as it keeps (size bound: 80).
    for (let n = 1; n <= UNRESOLVED_FX_MAX; n++) {
      await postCharge(t, courier, client, {
        reference: `OLD-${n}`,
        entry_kind: "duties",
        amount_minor: 1_000,
        currency: "ZAR",
        evidence_path: `receipt ${n}`,
        recoverable: true,
      });
    }
    const duty = {
      action: "duties",
      amount: "300.00",
      currency: "ZAR",
      payer: "client",
      evidence: "SARS receipt 9100",
    };
    // spec: courier 2.6 rule 4: a conversion without a rate awaits one; the account takes no more.
    const refused = await move(t, courier, id, duty, 422);
    assert.equal(refused.code, "unresolved_fx_limit");
    // Refused: nothing changed, the crossing claims no duty the client was not charged.
    let [c] = await crossings(t, courier, waybill);
    assert.deepEqual(c!.history, []);
    assert.deepEqual(c!.duties, []);
    assert.deepEqual(await ledger(t, courier, "duties").then((d) => d.map((e) => e.reference)), [
      ...Array.from({ length: UNRESOLVED_FX_MAX }, (_, i) => `OLD-${i + 1}`),
    ]);
    // Once a conversion is resolved, the same duties sent again are booked, once.
    const resolved = await billingAction(t, courier, client, "resolve-fx", {
      entry_reference: "OLD-1",
      rate: "0.75",
      source: "central bank",
    });
    assert.equal(resolved.status, 201, JSON.stringify(resolved.body));
    const booked = await move(t, courier, id, duty);
    assert.equal(booked.data.replayed, false);
    assert.equal(booked.data.charge_reference, `DUT-${id}-1`);
    const again = await move(t, courier, id, duty);
    assert.equal(again.data.replayed, true);
    [c] = await crossings(t, courier, waybill);
    assert.deepEqual(c!.history.map((h) => h.action), ["duties"]);
    assert.deepEqual(c!.duties.map((d) => [d.amount, d.payer]), [[300, "client"]]);
    const mine = (await ledger(t, courier, "duties")).filter((e) => e.reference.startsWith("DUT"));
    assert.deepEqual(mine.map((e) => [e.reference, e.amount_minor, e.currency, e.status]), [
      [`DUT-${id}-1`, 30_000, "ZAR", "unresolved_fx"],
    ]);
  }));

Deno.test("customs: duties whose charge a crash kept off the account are booked once without the duties sent again", () =>
  withTestEnv(async (t) => {
    const { courier, waybill, id } = await presented(t);
    const duty = {
      action: "duties",
      amount: "125.50",
      currency: "BWP",
      payer: "client",
      evidence: "SARS receipt 9200",
    };
    // The process dies after the crossing recorded the duties, before the ledger booked them.
    const failed = await whileFlaky(t.env, {
      fails: (type, command) =>
        type === "courier_client" && (command as { kind: string }).kind === "post_charge",
    }, async () => {
      await move(t, courier, id, duty, 500);
    });
    assert.equal(failed, 1);
    const [c] = await crossings(t, courier, waybill);
    assert.deepEqual(c!.duties.map((d) => [d.amount, d.payer]), [[125.5, "client"]]);
    // Nobody sends the duties again; time passes.
    await advance(t, SCAN_CHARGE_RETRY_MS / 1000);
    // spec: courier 2.6 rules 2, 3: the duties the crossing records are on the client's account,
    // once, however often they are due or sent again.
    await until(
      t,
      async () => (await ledger(t, courier, "duties")).length > 0,
      "the duties booked",
    );
    await billingEvent(t, courier, `customs.duties:${id}`);
    const again = await move(t, courier, id, duty);
    assert.equal(again.data.replayed, true);
    await advance(t, SCAN_CHARGE_RETRY_MS / 1000);
    const duties = await ledger(t, courier, "duties");
    assert.deepEqual(
      duties.map((d) => [d.reference, d.amount_minor, d.recoverable, d.source_event]),
      [
        [`DUT-${id}-1`, 12550, true, `customs.duties:${id}`],
      ],
    );
  }));

Deno.test("customs: the same duties sent again in other words are the duties recorded, booked once", () =>
  withTestEnv(async (t) => {
    const { courier, waybill, id } = await presented(t);
    const duty = {
      action: "duties",
      amount: "125.50",
      currency: "BWP",
      payer: "client",
      evidence: "SARS receipt 9300",
    };
    await move(t, courier, id, { ...duty, reason: "excise" });
    // spec: courier 2.6 rule 2: the same duties (amount, currency, payer, receipt) retyped with
    // another reason, or none, are one event: booked once.
    for (const reason of ["excise and VAT", null]) {
      const again = await move(t, courier, id, { ...duty, reason });
      assert.equal(again.data.replayed, true, JSON.stringify(again.data.move));
      assert.equal(again.data.charge_reference, `DUT-${id}-1`);
    }
    const [c] = await crossings(t, courier, waybill);
    assert.equal(c!.duties.length, 1);
    assert.deepEqual(
      (await ledger(t, courier, "duties")).map((d) => d.reference),
      [`DUT-${id}-1`],
    );
  }));
