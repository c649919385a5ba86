/**
 * Business API 4.3 GET /business/wallet: the balance and the billing type, named with the words
 * the operator sets it with (CONTRACT PATCH /operator/businesses/{id} `billing_type: wallet or
 * credit`), so one setting reads the same wherever it is shown.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { balanceOf, fundedBusiness } from "./trips_fixtures.ts";

Deno.test("wallet: billing_type reads wallet or credit, as the operator set it; a credit limit as a number or decimal text", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t, "50.00");
    const set = (body: Record<string, unknown>) =>
      t.call("PATCH", `/operator/businesses/${b.id}`, { operator: true, body });
    assert.deepEqual(await balanceOf(t, b.api_key), {
      billing_type: "wallet",
      credit_limit: null,
      balances: [{ currency: "BWP", balance: 50 }],
    });
    const credit = await set({ billing_type: "credit", credit_limit: 100 });
    assert.equal(credit.body.data.billing_type, "credit");
    type Read = { billing_type: string; credit_limit: number | null };
    const onCredit = await balanceOf(t, b.api_key) as Read;
    assert.deepEqual([onCredit.billing_type, onCredit.credit_limit], ["credit", 100]);
    // Decimal text, as a wallet credit's amount is sent, reads the same; past a cent of BWP or
    // below zero it is refused naming it.
    assert.equal((await set({ credit_limit: "250.50" })).status, 200);
    assert.equal((await balanceOf(t, b.api_key) as Read).credit_limit, 250.5);
    for (const bad of ["250.505", "-5", "lots"]) {
      const r = await set({ credit_limit: bad });
      assert.equal(r.status, 422, `${bad}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.errors[0].path, "credit_limit");
    }
    const back = await set({ billing_type: "wallet" });
    assert.equal(back.body.data.billing_type, "wallet");
    const wallet = await balanceOf(t, b.api_key) as Read;
    assert.deepEqual([wallet.billing_type, wallet.credit_limit], [
      back.body.data.billing_type,
      null,
    ]);
  }));
