/**
 * The operator's flows without HTTP (CONTRACT "Operator API"; Business API 5.2, 5.5, 8, appendix
 * 2): businesses, partner keys, drivers, wallet credits and the manual clock.
 */
import assert from "node:assert/strict";
import { walletActor } from "../../../actors/platform/wallet.ts";
import { changeSettings } from "../../../src/platform/flows/businesses.ts";
import { advanceClock } from "../../../src/platform/flows/clock.ts";
import { registerDriver } from "../../../src/platform/flows/drivers.ts";
import { issuePartnerKey, revokePartnerKey } from "../../../src/platform/flows/keys.ts";
import { creditWallet } from "../../../src/platform/flows/wallet.ts";
import { SANDBOX_WALLET_OPENING_MINOR } from "../../../src/limits.ts";
import { SystemClock } from "../../../src/runtime/clock.ts";
import { newBusiness, refusedAs, withPlatform } from "./platform_deps.ts";

Deno.test("createBusiness: the key says its environment, the owner's e-mail signs in to one portal", () =>
  withPlatform(async (deps) => {
    const { created, business } = await newBusiness(deps, { owner_email: "owner@example.com" });
    assert.match(created.api_key, /^sk_live_/);
    assert.match(created.webhook_secret, /^whsec_/);
    assert.equal(business.staff[0]!.role, "owner");
    assert.notEqual(business.api_key.hash, created.api_key, "only the hash is kept");
    await assert.rejects(
      newBusiness(deps, { owner_email: "owner@example.com" }),
      refusedAs("email_taken"),
    );
    const wallet = await deps.runtime.read(walletActor, created.id, created.id, { kind: "get" });
    assert.deepEqual(wallet.ok && wallet.reply.state.balances, {}, "live wallets open empty");
  }));

Deno.test("createBusiness: on the sandbox the key is sk_sandbox_ and the wallets open with test money", () =>
  withPlatform(async (deps) => {
    const { created } = await newBusiness(deps);
    assert.match(created.api_key, /^sk_sandbox_/);
    const wallet = await deps.runtime.read(walletActor, created.id, created.id, { kind: "get" });
    assert.deepEqual(wallet.ok && wallet.reply.state.balances, SANDBOX_WALLET_OPENING_MINOR);
  }, "sandbox"));

Deno.test("changeSettings: own rate limits are for the Enterprise plan only", () =>
  withPlatform(async (deps) => {
    const starter = (await newBusiness(deps)).created.id;
    await assert.rejects(
      changeSettings(deps, starter, { rate_limit_per_minute: 10 }),
      refusedAs("validation_failed"),
    );
    const enterprise = (await newBusiness(deps, { plan: "enterprise" })).created.id;
    const b = await changeSettings(deps, enterprise, { rate_limit_per_minute: 10 });
    assert.equal(b.settings.rate_limit_per_minute, 10);
  }));

Deno.test("partner keys: issued with their scopes once, revoked by id; an unknown key or business is not found", () =>
  withPlatform(async (deps) => {
    const id = (await newBusiness(deps)).created.id;
    const issued = await issuePartnerKey(deps, id, { partner: "Shopify", scopes: ["deliveries"] });
    assert.match(issued.key, /^ak_/);
    assert.deepEqual(issued.scopes, ["deliveries"]);
    await revokePartnerKey(deps, issued.id);
    await assert.rejects(revokePartnerKey(deps, "pk_unknown"), refusedAs("not_found"));
    await assert.rejects(
      issuePartnerKey(deps, "biz_unknown", { partner: "X", scopes: ["deliveries"] }),
      refusedAs("not_found"),
    );
  }));

Deno.test("registerDriver: a driver of an unknown business is refused before one is made", () =>
  withPlatform(async (deps) => {
    const driver = { name: "Neo", phone: "+26771234567", vehicle_type_id: 1 };
    await assert.rejects(registerDriver(deps, "biz_unknown", driver), refusedAs("not_found"));
    const id = (await newBusiness(deps)).created.id;
    const made = await registerDriver(deps, id, driver);
    assert.match(made.token, /^dt_/);
  }));

Deno.test("creditWallet: a reference credits once; the same again replays, another amount conflicts", () =>
  withPlatform(async (deps) => {
    const id = (await newBusiness(deps)).created.id;
    const input = { amount: "120.50", currency: "BWP", reference: "ref-1" };
    const first = await creditWallet(deps, id, input);
    assert.deepEqual([first.amount_minor, first.balance_minor, first.replayed], [
      12050,
      12050,
      false,
    ]);
    const again = await creditWallet(deps, id, input);
    assert.deepEqual([again.transaction_id, again.balance_minor, again.replayed], [
      first.transaction_id,
      12050,
      true,
    ]);
    await assert.rejects(
      creditWallet(deps, id, { ...input, amount: 99 }),
      refusedAs("reference_conflict", (r) => r.message.includes("120.50 BWP")),
    );
    await assert.rejects(
      creditWallet(deps, id, { ...input, currency: "ZAR" }),
      refusedAs("reference_conflict"),
    );
  }));

Deno.test("creditWallet: an amount that is not positive money in the currency names the field", () =>
  withPlatform(async (deps) => {
    const id = (await newBusiness(deps)).created.id;
    for (const amount of [0, -5, "1.234", "abc"]) {
      await assert.rejects(
        creditWallet(deps, id, { amount, currency: "BWP", reference: `r-${amount}` }),
        refusedAs("validation_failed", (r) => {
          const errors = r.details?.errors as { path: string }[];
          return errors.length === 1 && errors[0]!.path === "amount";
        }),
      );
    }
    await assert.rejects(
      creditWallet(deps, "biz_unknown", { amount: 1, currency: "BWP", reference: "r" }),
      refusedAs("not_found"),
    );
  }));

Deno.test("advanceClock: moves the manual clock; a system clock is refused clock_not_manual", () =>
  withPlatform(async (deps) => {
    const before = deps.clock.now();
    const moved = await advanceClock(deps, 90);
    assert.equal(moved.now, before + 90_000);
    await assert.rejects(
      advanceClock({ ...deps, clock: new SystemClock() }, 1),
      refusedAs("clock_not_manual"),
    );
  }));
