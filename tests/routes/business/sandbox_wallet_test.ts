/**
 * Business API 4.4 PUT /business/sandbox/wallet over HTTP: the balance set exactly, read back by
 * GET /business/wallet, explained by the ledger and seen by bookings; bad input changes nothing;
 * live answers 404.
 */
import assert from "node:assert/strict";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { balanceOf, book, PARCEL } from "./trips_fixtures.ts";

const sandbox = { name: "sandbox" as const };

function setWallet(t: TestEnv, key: string, body: Record<string, unknown>) {
  return t.call("PUT", "/business/sandbox/wallet", { key, body });
}

function wallet(bwp: number) {
  return {
    billing_type: "wallet",
    credit_limit: null,
    balances: [{ currency: "BWP", balance: bwp }, { currency: "ZAR", balance: 100000 }],
  };
}

Deno.test("sandbox wallet: set exactly, read back, booked against, explained by the ledger", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const low = await setWallet(t, b.api_key, { currency: "BWP", balance: "1.00" });
    assert.equal(low.status, 200, JSON.stringify(low.body));
    assert.deepEqual(low.body.data, wallet(1));
    assert.deepEqual(await balanceOf(t, b.api_key), wallet(1));
    const poor = await book(t, b.api_key, { ...PARCEL, external_reference: "W-1" });
    assert.equal(poor.status, 422);
    assert.equal(poor.body.code, "insufficient_balance");

    assert.equal((await setWallet(t, b.api_key, { currency: "BWP", balance: 500 })).status, 200);
    const paid = await book(t, b.api_key, { ...PARCEL, external_reference: "W-1" });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
    const charged = Math.round(Number(paid.body.data.billing_amount) * 100);
    assert.ok(charged > 0);
    assert.deepEqual(await balanceOf(t, b.api_key), wallet((50_000 - charged) / 100));

    const log = await t.call("GET", "/business/wallet/transactions", { key: b.api_key });
    const sets = log.body.data.filter((x: { by: string }) => x.by === "sandbox");
    assert.deepEqual(
      sets.map((x: { kind: string; amount: number }) => [x.kind, x.amount]),
      [["debit", 99999], ["credit", 499]],
    );
  }, sandbox));

Deno.test("sandbox wallet: negative, unknown currency and too many decimals are 422, unchanged", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const cases: [Record<string, unknown>, string][] = [
      [{ currency: "BWP", balance: -1 }, "balance"],
      [{ currency: "USD", balance: 10 }, "currency"],
      [{ currency: "BWP", balance: "1.001" }, "balance"],
      [{ currency: "BWP" }, "balance"],
    ];
    for (const [body, path] of cases) {
      const r = await setWallet(t, b.api_key, body);
      assert.equal(r.status, 422, JSON.stringify(body));
      assert.equal(r.body.code, "validation_failed");
      assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), [path]);
    }
    assert.deepEqual(await balanceOf(t, b.api_key), wallet(100000));
  }, sandbox));

Deno.test("sandbox wallet: on live a live key is answered 404 naming the sandbox base", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const r = await setWallet(t, b.api_key, { currency: "BWP", balance: 10 });
    assert.equal(r.status, 404);
    assert.equal(r.body.code, "not_found");
    assert.match(r.body.message, /sandbox base/);
  }));
