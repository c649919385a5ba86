/**
 * POST /business/sandbox/credentials (Business API 4.4, 5.2, 5.6, 8): a live account's sandbox
 * twin, made the first time and rotated afterwards, reached from live through the twins port.
 */
import assert from "node:assert/strict";
import { businessActor } from "../../../actors/platform/business/mod.ts";
import { walletActor } from "../../../actors/platform/wallet.ts";
import { SANDBOX_CODE } from "../../../src/business/rules/sandbox.ts";
import { createBusiness } from "../../../src/platform/flows/businesses.ts";
import { sandboxCredentials } from "../../../src/business/flows/sandbox_credentials.ts";
import { Refused } from "../../../src/runtime/actor.ts";
import { AuditLogAnswer } from "../../../routes/business/answers/account.ts";
import { documentedData } from "../../helpers/documented.ts";
import type { TestEnv } from "../../helpers/test_env.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { invite, login } from "./account_fixtures.ts";
import { balances, credentials, SANDBOX_BASE, withTwins } from "./sandbox_twin_fixtures.ts";
import { book, PARCEL } from "./trips_fixtures.ts";

Deno.test("sandbox credentials: the first call makes the twin with the live account's details and both wallets", () =>
  withTwins(async ({ live, sandbox }) => {
    const b = await live.createBusiness({
      name: "Molapo Stores",
      plan: "starter",
      currency: "ZAR",
      country: "ZA",
    });
    const c = await credentials(live, b.api_key);
    assert.equal(c.base_url, SANDBOX_BASE);
    assert.equal(c.business_id, b.id);
    assert.equal(c.created, true);
    assert.match(c.api_key, /^sk_sandbox_/);
    assert.match(c.webhook_secret, /^whsec_/);
    assert.equal(c.storefront.source, `storefront-${b.id}`);
    assert.equal(c.storefront.audience, "service-sandbox");
    assert.equal(c.storefront.algorithm, "HS256");
    assert.equal(c.storefront.issuer, c.storefront.source);
    assert.equal(c.storefront.subject, b.id);
    assert.equal(c.storefront.events_url, `${SANDBOX_BASE}/channel/${c.storefront.source}/events`);
    assert.match(c.storefront.signing_key, /^chk_/);
    const profile = await sandbox.call("GET", "/business/profile", { key: c.api_key });
    assert.equal(profile.status, 200, JSON.stringify(profile.body));
    assert.equal(profile.body.data.name, "Molapo Stores");
    assert.equal(profile.body.data.plan, "starter");
    assert.deepEqual(await balances(sandbox, c.api_key), { BWP: 100_000, ZAR: 100_000 });
    assert.equal(profile.body.data.id, b.id);
    assert.equal(profile.body.data.currency, "ZAR");
    assert.equal(profile.body.data.country, "ZA");
    // The owner's e-mail is the twin's owner's in the sandbox.
    const twin = await sandbox.env.runtime.read(businessActor, b.id, b.id, { kind: "get" });
    assert.ok(twin.ok && twin.reply && "staff" in twin.reply);
    assert.equal(twin.reply.staff[0]?.email, b.owner.email);
  }));

Deno.test("sandbox credentials: a second call rotates: the old sandbox key is refused, the new works, wallets below 10,000 topped up", () =>
  withTwins(async ({ live, sandbox }) => {
    const b = await live.createBusiness();
    const first = await credentials(live, b.api_key);
    // BWP spent down to 9,999.99, ZAR to 10,000.00 exactly: only BWP is below 10,000.
    for (const [currency, minor] of [["BWP", 9_000_001], ["ZAR", 9_000_000]] as const) {
      const r = await sandbox.env.runtime.ask(walletActor, b.id, b.id, {
        kind: "debit",
        amount_minor: minor,
        currency,
        reference: `spend-${currency}`,
        by: "test",
        low_balance: null,
      });
      assert.ok(r.ok);
    }
    const second = await credentials(live, b.api_key);
    assert.equal(second.created, false);
    assert.equal(second.business_id, b.id);
    assert.notEqual(second.api_key, first.api_key);
    assert.notEqual(second.webhook_secret, first.webhook_secret);
    assert.notEqual(second.storefront.signing_key, first.storefront.signing_key);
    const old = await sandbox.call("GET", "/business/wallet", { key: first.api_key });
    assert.equal(old.status, 401);
    assert.equal(old.body.code, "live_key_on_sandbox");
    assert.deepEqual(await balances(sandbox, second.api_key), { BWP: 100_000, ZAR: 10_000 });
    // A third call finds nothing below 10,000 to top up.
    const third = await credentials(live, b.api_key);
    assert.deepEqual(await balances(sandbox, third.api_key), { BWP: 100_000, ZAR: 10_000 });
  }));

Deno.test("sandbox credentials: the twin's key on live is 401 sandbox_key_on_live; another live business gets its own twin", () =>
  withTwins(async ({ live, sandbox }) => {
    const a = await live.createBusiness();
    const b = await live.createBusiness();
    const ca = await credentials(live, a.api_key);
    const cb = await credentials(live, b.api_key);
    assert.equal(cb.business_id, b.id);
    assert.notEqual(cb.business_id, ca.business_id);
    assert.equal(cb.created, true);
    const onLive = await live.call("GET", "/business/profile", { key: ca.api_key });
    assert.equal(onLive.status, 401);
    assert.equal(onLive.body.code, "sandbox_key_on_live");
    // Each twin's key reaches its own twin only.
    for (const [c, id] of [[ca, a.id], [cb, b.id]] as const) {
      const seen = await sandbox.call("GET", "/business/profile", { key: c.api_key });
      assert.equal(seen.body.data.id, id);
    }
    const aAgain = await credentials(live, a.api_key);
    assert.equal(aAgain.created, false);
    assert.equal(aAgain.business_id, a.id);
  }));

Deno.test("sandbox credentials: owner, admin and the integration key may; a coordinator may not; on the sandbox it is 404", () =>
  withTwins(async ({ live, sandbox }) => {
    const b = await live.createBusiness();
    const owner = await login(live, b.owner.email, b.owner.password);
    assert.equal((await credentials(live, owner)).created, true);
    const admin = await invite(live, owner, "admin");
    assert.equal((await credentials(live, admin)).created, false);
    const coordinator = await invite(live, owner, "coordinator");
    const refused = await live.call("POST", "/business/sandbox/credentials", { key: coordinator });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, "portal_admin_only");
    const twin = await credentials(live, b.api_key);
    const onSandbox = await sandbox.call("POST", "/business/sandbox/credentials", {
      key: twin.api_key,
    });
    assert.equal(onSandbox.status, 404);
    assert.equal(onSandbox.body.code, "not_found");
    assert.match(onSandbox.body.message, /live base/);
  }));

Deno.test("sandbox credentials: with the sandbox off the endpoint answers 503 sandbox_unavailable", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const r = await t.call("POST", "/business/sandbox/credentials", { key: b.api_key });
    assert.equal(r.status, 503);
    assert.equal(r.body.code, "sandbox_unavailable");
  }));

// spec: business 4.4, 5.2: sign-up codes are always 123456, so anyone signs up any e-mail; the
// sandbox signs no one in to the portal, so the twin needs no hold of its owner's e-mail, and an
// account that took it first must neither stop the twin (made, rotated) nor reach it.
Deno.test("sandbox credentials: sandbox accounts holding the owner's e-mail never stop the twin, and neither reaches the other", () =>
  withTwins(async ({ live, sandbox }) => {
    const b = await live.createBusiness();
    const signedUp = await signUpWith(sandbox, b.owner.email.toUpperCase());
    // Two first calls at once: one twin, made once, the other rotating it.
    const both = await Promise.all(
      [1, 2].map(() => live.call("POST", "/business/sandbox/credentials", { key: b.api_key })),
    );
    assert.deepEqual(
      both.map((r) => r.status),
      [201, 201],
      JSON.stringify(both.map((r) => r.body)),
    );
    assert.deepEqual(both.map((r) => r.body.data.created).sort(), [false, true]);
    const rotated = await credentials(live, b.api_key);
    assert.equal(rotated.created, false);
    assert.equal(rotated.business_id, b.id);
    const again = await signUpWith(sandbox, b.owner.email);
    assert.equal(again.business_id, signedUp.business_id, "a sign-up rotates its own account");
    for (
      const [key, id] of [
        [rotated.api_key, b.id],
        [again.api_key, signedUp.business_id],
      ]
    ) {
      const seen = await sandbox.call("GET", "/business/profile", { key });
      assert.equal(seen.status, 200, JSON.stringify(seen.body));
      assert.equal(seen.body.data.id, id);
    }
    assert.notEqual(signedUp.business_id, b.id);
    const twin = await sandbox.env.runtime.read(businessActor, b.id, b.id, { kind: "get" });
    assert.ok(twin.ok && twin.reply && "staff" in twin.reply);
    assert.deepEqual(twin.reply.staff.map((s) => [s.role, s.email]), [["owner", b.owner.email]]);
    const signIn = await sandbox.call("POST", "/business/login", {
      body: { email: b.owner.email, password: b.owner.password },
    });
    assert.equal(signIn.status, 401);
    assert.equal(signIn.body.code, "live_key_on_sandbox");
  }));

Deno.test("sandbox credentials: an account the operator made on the sandbox with the owner's e-mail does not stop the twin", () =>
  withTwins(async ({ live, sandbox }) => {
    const b = await live.createBusiness();
    const other = await sandbox.createBusiness({ owner_email: b.owner.email });
    const c = await credentials(live, b.api_key);
    assert.equal(c.created, true);
    assert.equal(c.business_id, b.id);
    for (const [key, id] of [[c.api_key, b.id], [other.api_key, other.id]]) {
      const seen = await sandbox.call("GET", "/business/profile", { key });
      assert.equal(seen.body.data.id, id);
    }
  }));

// A twin made before twins held no e-mail still holds its owner's: the next credentials call
// lets it go, so a sign-up of that e-mail is no longer refused for ever (business 4.4, 5.2).
Deno.test("sandbox credentials: a twin made when twins held their owner's e-mail lets it go on the next call", () =>
  withTwins(async ({ live, sandbox }) => {
    const b = await live.createBusiness({ name: "Old Twin Co" });
    // As the twin was made before: the live id, the owner's e-mail held by its owner.
    await createBusiness(sandbox.env, {
      name: "Old Twin Co",
      plan: "starter",
      currency: "BWP",
      country: "BW",
      owner_email: b.owner.email,
    }, b.id);
    assert.ok(await sandbox.env.runtime.lookup("staff_email", b.owner.email));
    const c = await credentials(live, b.api_key);
    assert.equal(c.created, false);
    assert.equal(await sandbox.env.runtime.lookup("staff_email", b.owner.email), null);
    const signedUp = await signUpWith(sandbox, b.owner.email);
    assert.notEqual(signedUp.business_id, b.id);
    const again = await credentials(live, b.api_key);
    const seen = await sandbox.call("GET", "/business/profile", { key: again.api_key });
    assert.equal(seen.body.data.id, b.id);
    const trail = await sandbox.call("GET", "/business/audit-log", { key: again.api_key });
    const entries = documentedData(AuditLogAnswer, trail, "audit log").entries;
    const marked = entries.filter((e: { action: string }) => e.action === "sandbox_twin_marked");
    assert.deepEqual(marked.map((e: { by: string }) => e.by), ["live_credentials"]);
  }));

/** A sandbox sign-up of `email`, verified with the sandbox code: its business and key. */
async function signUpWith(sandbox: TestEnv, email: string) {
  const person = { first_names: "Ann", surname: "Lee", company: "Lee Couriers", email };
  assert.equal((await sandbox.call("POST", "/sandbox/signup", { body: person })).status, 202);
  const v = await sandbox.call("POST", "/sandbox/signup/verify", {
    body: { email, code: SANDBOX_CODE },
  });
  assert.equal(v.status, 201, JSON.stringify(v.body));
  return v.body.data as { business_id: string; api_key: string };
}

/** The operator's settings of the business `id` as its environment holds them. */
async function settingsIn(t: TestEnv, id: string) {
  const r = await t.env.runtime.read(businessActor, id, id, { kind: "get" });
  assert.ok(r.ok && r.reply && "settings" in r.reply, JSON.stringify(r));
  return r.reply.settings;
}

// spec: business 1.3, 4.4, 9.4: the twin runs the same code for the same account: going live
// changes only the base address and the key, so the add-ons and policies the operator set on
// live are the twin's too, made or rotated.
Deno.test("sandbox credentials: the twin has the live account's operator settings, followed on each call", () =>
  withTwins(async ({ live, sandbox }) => {
    const b = await live.createBusiness();
    const patch = (body: Record<string, unknown>) =>
      live.call("PATCH", `/operator/businesses/${b.id}`, { operator: true, body });
    const set = await patch({
      custody_scanning: true,
      vehicle_upgrade_policy: "refuse",
      shopping_fulfilment_enabled: true,
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const first = await credentials(live, b.api_key);
    assert.deepEqual(await settingsIn(sandbox, b.id), await settingsIn(live, b.id));
    const booked = await book(sandbox, first.api_key, PARCEL);
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    assert.equal(typeof booked.body.data.scan_code, "string", "custody scanning on, as on live");
    assert.equal((await patch({ custody_scanning: false })).status, 200);
    await credentials(live, b.api_key);
    const twin = await settingsIn(sandbox, b.id);
    assert.deepEqual(twin, await settingsIn(live, b.id));
    assert.equal(twin.custody_scanning, false);
  }));

// Two requests at once: the twin is made once and the other call rotates it, as one after the
// other would (business 4.4 "creates or rotates"), never a refusal of the account's own twin.
Deno.test("sandbox credentials: two first calls at once make the twin once; the other rotates it", () =>
  withTwins(async ({ live, sandbox }) => {
    const b = await live.createBusiness();
    const both = await Promise.all(
      [1, 2].map(() => live.call("POST", "/business/sandbox/credentials", { key: b.api_key })),
    );
    assert.deepEqual(
      both.map((r) => r.status),
      [201, 201],
      JSON.stringify(both.map((r) => r.body)),
    );
    const made = both.map((r) => r.body.data.created).sort();
    assert.deepEqual(made, [false, true]);
    const working = [];
    for (const r of both) {
      const seen = await sandbox.call("GET", "/business/profile", { key: r.body.data.api_key });
      if (seen.status === 200) working.push(seen.body.data.id);
    }
    assert.deepEqual(working, [b.id], "the key of the later rotation works, on the one twin");
  }));

Deno.test("sandbox credentials: two rotating calls at once: one rotates the twin's key, the other is refused key_already_rotated", () =>
  withTwins(async ({ live, sandbox }) => {
    const b = await live.createBusiness();
    const first = await credentials(live, b.api_key);
    // Through the flow the route calls: both calls find the twin's key before either rotates it.
    const both = await Promise.allSettled([1, 2].map(() => sandboxCredentials(live.env, b.id)));
    const won = both.flatMap((r) => r.status === "fulfilled" ? [r.value] : []);
    const lost = both.flatMap((r) => r.status === "rejected" ? [r.reason] : []);
    assert.equal(won.length, 1, JSON.stringify(both));
    assert.equal(lost.length, 1);
    assert.ok(lost[0] instanceof Refused && lost[0].rejection.code === "key_already_rotated");
    const profile = (key: string) => sandbox.call("GET", "/business/profile", { key });
    assert.equal((await profile(won[0]!.api_key)).status, 200);
    assert.equal((await profile(first.api_key)).status, 401);
  }));

// spec: business 8: "topped up to 100,000": two calls at once read the same low balance; each
// crediting the difference it read took the wallet to twice that, past 100,000.
Deno.test("sandbox credentials: two calls at once top a wallet below 10,000 up to 100,000, once", () =>
  withTwins(async ({ live, sandbox }) => {
    const b = await live.createBusiness();
    const first = await credentials(live, b.api_key);
    const set = await sandbox.call("PUT", "/business/sandbox/wallet", {
      key: first.api_key,
      body: { currency: "BWP", balance: "5000" },
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const both = await Promise.all(
      [1, 2].map(() => live.call("POST", "/business/sandbox/credentials", { key: b.api_key })),
    );
    // Two rotations at once: one may be refused key_already_rotated (the other rotates).
    assert.ok(both.every((r) => r.status === 201 || r.status === 409), JSON.stringify(both));
    const working = both.filter((r) => r.status === 201).map((r) => r.body.data.api_key);
    assert.ok(working.length >= 1);
    const seen = await Promise.all(
      working.map((key) => sandbox.call("GET", "/business/wallet", { key })),
    );
    // One key answered works: a call refused after its key rotation would leave none working.
    const key = working[seen.findIndex((r) => r.status === 200)];
    assert.ok(key, `no key answered works: ${JSON.stringify(seen.map((r) => r.status))}`);
    assert.deepEqual(await balances(sandbox, key), { BWP: 100_000, ZAR: 100_000 });
  }));
