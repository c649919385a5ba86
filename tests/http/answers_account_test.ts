/**
 * The documented success schemas (RouteSpec.response) of the operator API (routes/platform/operator.ts)
 * and the business account routes (routes/business/account.ts) against real answers, checked by
 * tests/helpers/documented.ts.
 */
import assert from "node:assert/strict";
import { businessActor } from "../../actors/platform/business/mod.ts";
import { deferredWorkActor } from "../../actors/platform/deferred_work.ts";
import { hashSecret } from "../../src/domain/secrets.ts";
import {
  BusinessCreatedAnswer,
  BusinessSettingsAnswer,
  ClockAdvancedAnswer,
  ClockAnswer,
  DeferredWorkAnswer,
  DriverRegisteredAnswer,
  PartnerKeyIssuedAnswer,
  PartnerKeyRevokedAnswer,
  PlatformSettingsAnswer,
  WalletCreditAnswer,
} from "../../routes/platform/answers/operator.ts";
import {
  ApiKeyAnswer,
  ApiKeyRegeneratedAnswer,
  AuditEntry,
  AuditLogAnswer,
  BusinessProfileAnswer,
  PortalPersonAnswer,
  PortalPersonInvitedAnswer,
  PortalPersonRemovedAnswer,
  SignedOutAnswer,
  StaffSessionAnswer,
  WalletAnswer,
  WebhookSecretRegeneratedAnswer,
} from "../../routes/business/answers/account.ts";
import { z } from "../../src/http/route.ts";
import { type Answer, type TestEnv, withTestEnv } from "../helpers/test_env.ts";
import { documented, documentedData } from "../helpers/documented.ts";

const NEW_BUSINESS = {
  name: "Kgalagadi Couriers",
  plan: "enterprise",
  currency: "BWP",
  country: "BW",
};

async function created(t: TestEnv, owner_email: string) {
  const r = await t.call("POST", "/operator/businesses", {
    operator: true,
    body: { ...NEW_BUSINESS, owner_email },
  });
  return documented(BusinessCreatedAnswer, r, 201, "create business");
}

async function signIn(t: TestEnv, email: string, password: string): Promise<string> {
  const r = await t.call("POST", "/business/login", { body: { email, password } });
  return documented(StaffSessionAnswer, r, 200, "login").token;
}

Deno.test("answers: the operator API answers what its schemas document", () =>
  withTestEnv(async (t) => {
    const b = await created(t, "owner.operator@example.com");
    const settings = (r: Promise<Awaited<ReturnType<TestEnv["call"]>>>, what: string) =>
      r.then((a) => documented(BusinessSettingsAnswer, a, 200, what));
    // A new business: no limits, webhook, contact or threshold yet (the null variants).
    const fresh = await settings(
      t.call("GET", `/operator/businesses/${b.id}`, { operator: true }),
      "business settings",
    );
    assert.equal(fresh.rate_limit_per_minute, null);
    assert.equal(fresh.low_balance_threshold, null);
    await t.call("PATCH", "/business/profile", {
      key: b.api_key,
      body: { webhook_url: "https://hooks.example.com/k", low_balance_threshold: "250.5" },
    });
    const changed = await settings(
      t.call("PATCH", `/operator/businesses/${b.id}`, {
        operator: true,
        body: {
          courier_platform_enabled: true,
          shopping_fulfilment_enabled: true,
          api_key_scopes: ["billing:administer", "deliveries"],
          vehicle_upgrade_policy: "upgrade_one_size",
          bulky_services_authorised: ["assembly", "removal"],
          rate_limit_per_minute: 9_000,
          rate_limit_per_day: 2_000_000,
        },
      }),
      "business changed",
    );
    assert.equal(changed.rate_limit_per_day, 2_000_000);
    assert.equal(changed.low_balance_threshold, 250.5);
    assert.equal(changed.webhook_url, "https://hooks.example.com/k");

    const key = documented(
      PartnerKeyIssuedAnswer,
      await t.call("POST", `/operator/businesses/${b.id}/partner-keys`, {
        operator: true,
        body: { partner: "Shopify connector", scopes: ["deliveries", "billing:view-own"] },
      }),
      201,
      "partner key",
    );
    for (const what of ["revoke", "revoke again"]) {
      const r = await t.call("DELETE", `/operator/partner-keys/${key.id}`, { operator: true });
      documented(PartnerKeyRevokedAnswer, r, 200, what);
    }
    documented(
      DriverRegisteredAnswer,
      await t.call("POST", `/operator/businesses/${b.id}/drivers`, {
        operator: true,
        body: { name: "Neo", phone: "+26771234567", vehicle_type_id: 2 },
      }),
      201,
      "driver",
    );

    // The wallet: empty, credited (201), the same credit again (200), read by the business.
    const wallet = async (what: string) =>
      documented(
        WalletAnswer,
        await t.call("GET", "/business/wallet", { key: b.api_key }),
        200,
        what,
      );
    assert.deepEqual((await wallet("empty wallet")).balances, []);
    const credit = (currency: string, amount: string, reference: string) =>
      t.call("POST", `/operator/businesses/${b.id}/wallet`, {
        operator: true,
        body: { amount, currency, reference },
      });
    const first = documented(
      WalletCreditAnswer,
      await credit("BWP", "100.10", "w-1"),
      201,
      "credit",
    );
    assert.equal(first.replayed, false);
    const again = documented(
      WalletCreditAnswer,
      await credit("BWP", "100.10", "w-1"),
      200,
      "again",
    );
    assert.equal(again.replayed, true);
    assert.equal(again.transaction_id, first.transaction_id);
    documented(WalletCreditAnswer, await credit("JPY", "1500", "w-2"), 201, "credit in JPY");
    documented(WalletCreditAnswer, await credit("KWD", "1.125", "w-3"), 201, "credit in KWD");
    assert.deepEqual((await wallet("wallet")).balances, [
      { currency: "BWP", balance: 100.1 },
      { currency: "JPY", balance: 1500 },
      { currency: "KWD", balance: 1.125 },
    ]);

    documented(
      PlatformSettingsAnswer,
      await t.call("GET", "/operator/settings", { operator: true }),
      200,
      "settings",
    );
    documented(
      PlatformSettingsAnswer,
      await t.call("PUT", "/operator/settings", {
        operator: true,
        body: { price_hold_minutes: 45 },
      }),
      200,
      "settings changed",
    );
    const clock = documented(
      ClockAnswer,
      await t.call("GET", "/operator/clock", { operator: true }),
      200,
      "clock",
    );
    assert.equal(clock.kind, "manual");
    documented(
      ClockAdvancedAnswer,
      await t.call("POST", "/operator/clock/advance", { operator: true, body: { seconds: 60 } }),
      200,
      "clock advanced",
    );

    // Deferred work waiting (done_at null) and done.
    for (const id of ["w-1", "w-2"]) {
      const r = await t.env.runtime.ask(deferredWorkActor, b.id, id, {
        kind: "defer",
        worker: "client_webhooks",
        subject: `live.shipment.${id}`,
        payload: {},
        error: "receiver down",
      });
      assert.ok(r.ok);
    }
    assert.ok((await t.env.runtime.ask(deferredWorkActor, b.id, "w-1", { kind: "done" })).ok);
    await t.settle();
    for (const status of ["waiting", "done"]) {
      const r = await t.call("GET", `/operator/deferred-work?status=${status}`, {
        operator: true,
      });
      const list = documented(DeferredWorkAnswer, r, 200, `deferred work ${status}`);
      assert.equal(list.items.length, 1, status);
      assert.equal(list.items[0].done_at === null, status === "waiting");
    }
  }));

Deno.test("answers: the account routes answer what their schemas document", () =>
  withTestEnv(async (t) => {
    const b = await created(t, "owner.account@example.com");
    await t.call("PATCH", `/operator/businesses/${b.id}`, {
      operator: true,
      body: { courier_platform_enabled: true, api_key_scopes: ["billing:administer"] },
    });
    const owner = await signIn(t, b.owner.email, b.owner.password);
    const profile = async (key: string, what: string) =>
      documented(
        BusinessProfileAnswer,
        await t.call("GET", "/business/profile", { key }),
        200,
        what,
      );
    // Nothing set yet, called with the key: the null variants.
    const byKey = await profile(b.api_key, "profile by key");
    assert.equal(byKey.portal_role, null);
    assert.equal(byKey.webhook_url, null);
    assert.equal(byKey.billing_endpoint_url, null);
    const endpoint = await t.call("PUT", "/business/courier/billing/endpoint", {
      key: owner,
      body: { url: "https://billing.example.com/in" },
    });
    assert.equal(endpoint.status, 200, JSON.stringify(endpoint.body));
    const changed = documented(
      BusinessProfileAnswer,
      await t.call("PATCH", "/business/profile", {
        key: owner,
        body: {
          name: "Kgalagadi Couriers (Pty) Ltd",
          billing_contact: "accounts@example.com",
          webhook_url: "https://hooks.example.com/k",
        },
      }),
      200,
      "profile changed",
    );
    assert.equal(changed.portal_role, "owner");
    assert.equal(changed.billing_endpoint_url, "https://billing.example.com/in");

    const invited = documented(
      PortalPersonInvitedAnswer,
      await t.call("POST", "/business/people", {
        key: owner,
        body: { name: "Ada", email: "ada@example.com", portal_role: "admin" },
      }),
      201,
      "invite",
    );
    const admin = await signIn(t, invited.email, invited.password);
    assert.equal((await profile(admin, "profile as admin")).principal, "admin");
    const people = documented(
      z.array(PortalPersonAnswer),
      await t.call("GET", "/business/people", { key: admin }),
      200,
      "people",
    );
    assert.deepEqual(people.map((p: { portal_role: string }) => p.portal_role), [
      "owner",
      "admin",
    ]);
    const renamed = documented(
      PortalPersonAnswer,
      await t.call("PATCH", `/business/people/${invited.id}`, {
        key: owner,
        body: { name: "Ada Lovelace" },
      }),
      200,
      "person changed",
    );
    assert.equal(renamed.name, "Ada Lovelace");
    const leaving = await t.call("POST", "/business/people", {
      key: owner,
      body: { name: "Temp", email: "temp@example.com", portal_role: "coordinator" },
    });
    documented(
      PortalPersonRemovedAnswer,
      await t.call("DELETE", `/business/people/${leaving.body.data.id}`, { key: admin }),
      200,
      "person removed",
    );

    const rotated = documented(
      ApiKeyRegeneratedAnswer,
      await t.call("POST", "/business/api-key/regenerate", { key: owner }),
      201,
      "api key regenerated",
    );
    const meta = documented(
      ApiKeyAnswer,
      await t.call("GET", "/business/api-key", { key: rotated.api_key }),
      200,
      "api key",
    );
    assert.equal(meta.hint, rotated.hint);
    documented(
      WebhookSecretRegeneratedAnswer,
      await t.call("POST", "/business/webhook-secret/regenerate", { key: admin }),
      201,
      "webhook secret regenerated",
    );
    await t.env.runtime.ask(businessActor, b.id, b.id, {
      kind: "import_legacy_key",
      key: {
        hash: await hashSecret("9f8e7d6c5b4a39281706f5e4d3c2b1a0"),
        hint: "b1a0",
        created_at: 0,
      },
      by: "operator",
    });
    const issued = await t.call("POST", `/operator/businesses/${b.id}/partner-keys`, {
      operator: true,
      body: { partner: "Shopify connector", scopes: ["deliveries"] },
    });
    await t.call("DELETE", `/operator/partner-keys/${issued.body.data.id}`, { operator: true });
    const session = documented(
      StaffSessionAnswer,
      await t.call("POST", "/business/change-password", {
        key: admin,
        body: { current_password: invited.password, new_password: "a-much-better-password" },
      }),
      200,
      "password changed",
    );
    documented(
      SignedOutAnswer,
      await t.call("POST", "/business/logout", { key: session.token }),
      200,
      "logout",
    );

    // Every kind of audit entry; then the threshold, money with no currency beside it in the
    // entry (so not for documented()'s decimals check), read after the others.
    const audit = (after: number | null) =>
      t.call("GET", `/business/audit-log${after === null ? "" : `?after=${after}`}`, {
        key: owner,
      });
    const log = documented(AuditLogAnswer, await audit(null), 200, "audit log");
    assert.deepEqual(log.entries.map((e: { action: string }) => e.action), [
      "business_created",
      "settings_changed",
      "profile_changed",
      "profile_changed",
      "staff_added",
      "staff_changed",
      "staff_added",
      "staff_removed",
      "api_key_rotated",
      "webhook_secret_rotated",
      "legacy_key_imported",
      "partner_key_issued",
      "partner_key_revoked",
      "password_changed",
    ]);
    const ends = documented(AuditLogAnswer, await audit(log.next_after), 200, "audit end");
    assert.deepEqual(ends, { entries: [], next_after: null });
    const threshold = await t.call("PATCH", "/business/profile", {
      key: owner,
      body: { low_balance_threshold: 50, billing_contact: null },
    });
    const set = documented(BusinessProfileAnswer, threshold, 200, "threshold set");
    assert.equal(set.low_balance_threshold, 50);
    const last = await audit(log.next_after);
    assert.equal(last.status, 200);
    const entry = last.body.data.entries[0];
    assert.deepEqual(AuditEntry.parse(entry), entry, "the parse keeps every field and value");
    assert.deepEqual(entry.detail, {
      changes: { low_balance_threshold: 50, billing_contact: null },
    });
  }));

Deno.test("answers: sandbox answers carry their variants (sandbox keys, opening wallet)", () =>
  withTestEnv(async (t) => {
    // Sandbox envelopes carry environment: sandbox beside data, so data alone is checked here.
    const sandbox = (schema: z.ZodType, r: Answer, status: number, what: string) => {
      assert.equal(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.environment, "sandbox", what);
      return documentedData(schema, r, what);
    };
    const b = sandbox(
      BusinessCreatedAnswer,
      await t.call("POST", "/operator/businesses", {
        operator: true,
        body: { ...NEW_BUSINESS, owner_email: "owner.sandbox@example.com" },
      }),
      201,
      "sandbox business",
    );
    assert.match(b.api_key, /^sk_sandbox_/);
    const wallet = sandbox(
      WalletAnswer,
      await t.call("GET", "/business/wallet", { key: b.api_key }),
      200,
      "sandbox wallet",
    );
    assert.deepEqual(wallet.balances, [
      { currency: "BWP", balance: 100000 },
      { currency: "ZAR", balance: 100000 },
    ]);
    const profile = sandbox(
      BusinessProfileAnswer,
      await t.call("GET", "/business/profile", { key: b.api_key }),
      200,
      "sandbox profile",
    );
    assert.equal(profile.environment, "sandbox");
  }, { name: "sandbox" }));

Deno.test("answers: the audit trail shows an operator's credit limit as money (a number), as documented and as the operator's answer", () =>
  withTestEnv(async (t) => {
    const b = await created(t, "owner.credit@example.com");
    const patched = await t.call("PATCH", `/operator/businesses/${b.id}`, {
      operator: true,
      body: { billing_type: "credit", credit_limit: 50 },
    });
    assert.equal(documented(BusinessSettingsAnswer, patched, 200, "credit set").credit_limit, 50);
    const r = await t.call("GET", "/business/audit-log", { key: b.api_key });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const entry = r.body.data.entries.find((e: { action: string }) =>
      e.action === "settings_changed"
    );
    assert.deepEqual(entry.detail, { changes: { billing_type: "credit", credit_limit: 50 } });
    assert.deepEqual(AuditEntry.parse(entry), entry, "the documented schema takes it as it is");
  }));
