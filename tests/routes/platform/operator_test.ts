import assert from "node:assert/strict";
import { sql } from "kysely";
import { withTestEnv } from "../../helpers/test_env.ts";
import { deferredWorkActor } from "../../../actors/platform/deferred_work.ts";

Deno.test("operator: creating a business answers its key, webhook secret and owner once", () =>
  withTestEnv(async (t) => {
    const r = await t.call("POST", "/operator/businesses", {
      operator: true,
      body: {
        name: "Acme",
        plan: "starter",
        currency: "BWP",
        country: "BW",
        owner_email: "Owner@Acme.example",
      },
    });
    assert.equal(r.status, 201);
    assert.equal(r.body.success, true);
    const d = r.body.data;
    assert.match(d.id, /^biz_/);
    assert.match(d.api_key, /^sk_live_[A-Za-z0-9_-]{32,}$/);
    assert.match(d.webhook_secret, /^whsec_/);
    assert.equal(d.owner.email, "owner@acme.example");
    assert.ok(d.owner.password.length >= 16);
    // Shown once: the settings never carry a key, hash or secret.
    const read = await t.call("GET", `/operator/businesses/${d.id}`, { operator: true });
    assert.equal(read.status, 200);
    const text = JSON.stringify(read.body);
    assert.ok(
      !text.includes(d.api_key) && !text.includes("hash") && !text.includes(d.webhook_secret),
    );
    assert.equal(read.body.data.courier_platform_enabled, false);
    assert.equal(read.body.data.shopping_fulfilment_enabled, false);
  }));

Deno.test("operator: the API refuses a missing or wrong operator token", () =>
  withTestEnv(async (t) => {
    const none = await t.call("GET", "/operator/clock");
    assert.equal(none.status, 401);
    assert.equal(none.body.code, "unauthenticated");
    const wrong = await t.call("GET", "/operator/clock", { bearer: "op_wrong" });
    assert.equal(wrong.status, 401);
    const biz = await t.createBusiness();
    const asBusiness = await t.call("GET", "/operator/clock", { bearer: biz.api_key });
    assert.equal(asBusiness.status, 401);
  }));

Deno.test("operator: bad input answers 422 validation_failed naming each field and creates nothing", () =>
  withTestEnv(async (t) => {
    const r = await t.call("POST", "/operator/businesses", {
      operator: true,
      body: { name: "", plan: "gold", currency: "bwp", country: "BW", owner_email: "nope" },
    });
    assert.equal(r.status, 422);
    assert.equal(r.body.code, "validation_failed");
    const paths = r.body.errors.map((e: { path: string }) => e.path).sort();
    assert.deepEqual(paths, ["currency", "name", "owner_email", "plan"]);
    assert.match(r.body.message, /plan/);
    const malformed = await t.call("POST", "/operator/businesses", {
      operator: true,
      headers: { "Content-Type": "application/json" },
      body: undefined,
    });
    assert.equal(malformed.status, 422);
  }));

Deno.test("operator: a currency or country that is not a real code (XYZ, ZZ) is refused naming each, and creates nothing", () =>
  withTestEnv(async (t) => {
    const body = {
      name: "Acme",
      plan: "starter",
      currency: "XYZ",
      country: "ZZ",
      owner_email: "owner@acme.example",
    };
    const r = await t.call("POST", "/operator/businesses", { operator: true, body });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.code, "validation_failed");
    const paths = r.body.errors.map((e: { path: string }) => e.path).sort();
    assert.deepEqual(paths, ["country", "currency"]);
    assert.match(r.body.message, /currency: not an ISO 4217 currency code: XYZ/);
    assert.match(r.body.message, /country: not an ISO 3166-1 alpha-2 country code: ZZ/);
    // Nothing was made: the owner e-mail is still free.
    const created = await t.call("POST", "/operator/businesses", {
      operator: true,
      body: { ...body, currency: "BWP", country: "BW" },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
  }));

Deno.test("operator: an owner e-mail longer than an address can be is refused naming it, and creates nothing", () =>
  withTestEnv(async (t) => {
    const long = `${"a".repeat(3_000)}@example.com`;
    const r = await t.call("POST", "/operator/businesses", {
      operator: true,
      body: { name: "Acme", plan: "starter", currency: "BWP", country: "BW", owner_email: long },
    });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.code, "validation_failed");
    assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), ["owner_email"]);
    // The portal sign-in refuses it the same way, before looking anyone up.
    const login = await t.call("POST", "/business/login", {
      body: { email: long, password: "wrong-password" },
    });
    assert.equal(login.status, 422, JSON.stringify(login.body));
    assert.deepEqual(login.body.errors.map((e: { path: string }) => e.path), ["email"]);
  }));

Deno.test("operator: an owner e-mail already in use answers 409 email_taken", () =>
  withTestEnv(async (t) => {
    await t.createBusiness({ owner_email: "same@example.com" });
    const r = await t.call("POST", "/operator/businesses", {
      operator: true,
      body: {
        name: "B",
        plan: "starter",
        currency: "BWP",
        country: "BW",
        owner_email: "SAME@example.com",
      },
    });
    assert.equal(r.status, 409);
    assert.equal(r.body.code, "email_taken");
  }));

Deno.test("operator: PATCH switches capabilities and an unknown business answers 404", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const r = await t.call("PATCH", `/operator/businesses/${b.id}`, {
      operator: true,
      body: {
        courier_platform_enabled: true,
        api_key_scopes: ["billing:administer"],
        vehicle_upgrade_policy: "refuse",
        bulky_services_authorised: ["assembly"],
      },
    });
    assert.equal(r.status, 200);
    assert.equal(r.body.data.courier_platform_enabled, true);
    assert.deepEqual(r.body.data.api_key_scopes, ["billing:administer"]);
    assert.equal(r.body.data.vehicle_upgrade_policy, "refuse");
    const bad = await t.call("PATCH", `/operator/businesses/${b.id}`, {
      operator: true,
      body: { api_key_scopes: ["everything"] },
    });
    assert.equal(bad.status, 422);
    const missing = await t.call("PATCH", "/operator/businesses/biz_missing", {
      operator: true,
      body: { courier_platform_enabled: true },
    });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, "not_found");
  }));

Deno.test("operator: scopes and bulky services sent twice are stored once, as partner keys' are", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const r = await t.call("PATCH", `/operator/businesses/${b.id}`, {
      operator: true,
      body: {
        api_key_scopes: ["runs:override", "runs:override", "claims:approve"],
        bulky_services_authorised: ["assembly", "assembly"],
      },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.data.api_key_scopes, ["runs:override", "claims:approve"]);
    assert.deepEqual(r.body.data.bulky_services_authorised, ["assembly"]);
    const key = await t.call("GET", "/business/api-key", { key: b.api_key });
    assert.equal(key.body.data.scopes.filter((s: string) => s === "runs:override").length, 1);
  }));

Deno.test("operator: an Enterprise business's rate limits are set, used, and cleared with null back to the plan's", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness({ plan: "enterprise" });
    const patch = (body: unknown) =>
      t.call("PATCH", `/operator/businesses/${b.id}`, { operator: true, body });
    const profile = () => t.call("GET", "/business/profile", { key: b.api_key });
    const set = await patch({ rate_limit_per_minute: 2, rate_limit_per_day: 500 });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.data.rate_limit_per_minute, 2);
    assert.equal((await profile()).headers.get("X-RateLimit-Remaining"), "1");
    assert.equal((await profile()).status, 200);
    assert.equal((await profile()).status, 429);
    // Bad values are refused naming the field, and change nothing.
    for (const value of [0, -5, 1.5, "100", true, {}]) {
      const bad = await patch({ rate_limit_per_minute: value, rate_limit_per_day: value });
      assert.equal(bad.status, 422, JSON.stringify(value));
      assert.equal(bad.body.code, "validation_failed");
      assert.deepEqual(
        bad.body.errors.map((e: { path: string }) => e.path).sort(),
        ["rate_limit_per_day", "rate_limit_per_minute"],
        JSON.stringify(value),
      );
    }
    // CONTRACT operator API: until set, 6,000 a minute and 1,000,000 a day; null clears the
    // business's limit, and the plan's applies again.
    const cleared = await patch({ rate_limit_per_minute: null, rate_limit_per_day: null });
    assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
    assert.equal(cleared.body.data.rate_limit_per_minute, null);
    assert.equal(cleared.body.data.rate_limit_per_day, null);
    const read = await t.call("GET", `/operator/businesses/${b.id}`, { operator: true });
    assert.equal(read.body.data.rate_limit_per_minute, null);
    assert.equal(read.body.data.rate_limit_per_day, null);
    const again = await profile();
    assert.equal(again.status, 200);
    // The plan's 6,000 less this minute's two calls let through and this one.
    assert.equal(again.headers.get("X-RateLimit-Remaining"), String(6_000 - 3));
  }));

Deno.test("operator: a rate limit of its own for a business not on the Enterprise plan is refused naming the field, and changes nothing", () =>
  withTestEnv(async (t) => {
    // CONTRACT operator API: only the Enterprise plan's limits are set per business; Starter and
    // Business keep their plan's (Business API 8). Stored anyway, the answer showed a limit the
    // business never got.
    for (const plan of ["starter", "business"]) {
      const b = await t.createBusiness({ plan });
      for (const field of ["rate_limit_per_minute", "rate_limit_per_day"]) {
        const r = await t.call("PATCH", `/operator/businesses/${b.id}`, {
          operator: true,
          body: { courier_platform_enabled: true, [field]: 5 },
        });
        assert.equal(r.status, 422, `${plan} ${field}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.code, "validation_failed");
        assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), [field]);
        assert.match(r.body.message, /Enterprise/);
      }
      const read = await t.call("GET", `/operator/businesses/${b.id}`, { operator: true });
      assert.equal(read.body.data.rate_limit_per_minute, null);
      assert.equal(read.body.data.rate_limit_per_day, null);
      assert.equal(read.body.data.courier_platform_enabled, false, "nothing else changed either");
      // null (the plan's own) is what such a business has, and may be sent.
      const cleared = await t.call("PATCH", `/operator/businesses/${b.id}`, {
        operator: true,
        body: { rate_limit_per_minute: null, rate_limit_per_day: null },
      });
      assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
    }
  }));

Deno.test("operator: a wallet credit books once per reference, in exact minor units", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const credit = (amount: unknown) =>
      t.call("POST", `/operator/businesses/${b.id}/wallet`, {
        operator: true,
        body: { amount, currency: "BWP", reference: "wire-001" },
      });
    const first = await credit("100.10");
    assert.equal(first.status, 201);
    assert.equal(first.body.data.balance, 100.1);
    assert.equal(first.body.data.amount, 100.1);
    const again = await credit("100.10");
    assert.equal(again.status, 200);
    assert.equal(again.body.data.replayed, true);
    const different = await credit("999.00");
    assert.equal(different.status, 409);
    assert.equal(different.body.code, "reference_conflict");
    const other = await t.call("POST", `/operator/businesses/${b.id}/wallet`, {
      operator: true,
      body: { amount: 0.2, currency: "BWP", reference: "wire-002" },
    });
    assert.equal(other.body.data.balance, 100.3); // 100.10 + 0.20, never 100.30000000000001
    const tooPrecise = await t.call("POST", `/operator/businesses/${b.id}/wallet`, {
      operator: true,
      body: { amount: "1.001", currency: "BWP", reference: "wire-003" },
    });
    assert.equal(tooPrecise.status, 422);
    assert.equal(tooPrecise.body.errors[0].path, "amount");
    const wallet = await t.call("GET", "/business/wallet", { key: b.api_key });
    assert.deepEqual(wallet.body.data.balances, [{ currency: "BWP", balance: 100.3 }]);
  }));

Deno.test("operator: a wallet credit's reference is kept for good, not for the replay window", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    // The runtime forgets an ordinary idempotency key after IDEMPOTENCY_TTL_MS (KV expiry, on
    // the machine's clock): a wire credited again a week later would be credited twice.
    const runtime = t.env.runtime;
    const ask = runtime.ask.bind(runtime);
    const credits: unknown[] = [];
    runtime.ask = ((...args: Parameters<typeof ask>) => {
      if ((args[3] as { kind?: string }).kind === "credit") credits.push(args[4]);
      return ask(...args);
    }) as typeof runtime.ask;
    const r = await t.call("POST", `/operator/businesses/${b.id}/wallet`, {
      operator: true,
      body: { amount: "10.00", currency: "BWP", reference: "wire-010" },
    });
    assert.equal(r.status, 201);
    assert.deepEqual(credits, [{ idempotencyKey: "credit:wire-010", permanent: true }]);
  }));

Deno.test("operator: settings are stored and validated", () =>
  withTestEnv(async (t) => {
    const before = await t.call("GET", "/operator/settings", { operator: true });
    assert.deepEqual(before.body.data, {
      price_hold_minutes: 30,
      prep_offer_lead_minutes: 12,
      webhook_ports: [],
      dispatch_offer_seconds: 30,
      dispatch_window_minutes: 15,
      schedule_offer_lead_minutes: 15,
      position_fresh_seconds: 60,
    });
    const r = await t.call("PUT", "/operator/settings", {
      operator: true,
      body: { price_hold_minutes: 45 },
    });
    assert.deepEqual(r.body.data, {
      price_hold_minutes: 45,
      prep_offer_lead_minutes: 12,
      webhook_ports: [],
      dispatch_offer_seconds: 30,
      dispatch_window_minutes: 15,
      schedule_offer_lead_minutes: 15,
      position_fresh_seconds: 60,
    });
    const bad = await t.call("PUT", "/operator/settings", {
      operator: true,
      body: { price_hold_minutes: -1 },
    });
    assert.equal(bad.status, 422);
    // A window shorter than one offer: 422 naming the setting, and the settings as they were.
    const clash = await t.call("PUT", "/operator/settings", {
      operator: true,
      body: { dispatch_window_minutes: 1, dispatch_offer_seconds: 90 },
    });
    assert.equal(clash.status, 422);
    assert.equal(clash.body.code, "validation_failed");
    assert.equal(clash.body.errors[0].path, "dispatch_window_minutes");
    const after = await t.call("GET", "/operator/settings", { operator: true });
    assert.deepEqual(after.body.data, r.body.data);
  }));

Deno.test("operator: the manual clock advances and fires due timers before answering", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const login = await t.call("POST", "/business/login", {
      body: { email: b.owner.email, password: b.owner.password },
    });
    const token = login.body.data.token;
    assert.equal((await t.call("GET", "/business/profile", { key: token })).status, 200);
    const now = await t.call("GET", "/operator/clock", { operator: true });
    const r = await t.call("POST", "/operator/clock/advance", {
      operator: true,
      body: { seconds: 12 * 3600 },
    });
    assert.equal(r.status, 200);
    assert.equal(Date.parse(r.body.data.now) - Date.parse(now.body.data.now), 12 * 3600 * 1000);
    assert.ok(r.body.data.timers_fired >= 1, "the session expiry timer fired");
    const after = await t.call("GET", "/business/profile", { key: token });
    assert.equal(after.status, 401);
  }));

Deno.test("operator: drivers get a bearer token; partner keys are issued and revoked", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const d = await t.call("POST", `/operator/businesses/${b.id}/drivers`, {
      operator: true,
      body: { name: "Neo", phone: "+26771234567", vehicle_type_id: 2 },
    });
    assert.equal(d.status, 201);
    assert.match(d.body.data.id, /^drv_/);
    assert.ok(d.body.data.token.length > 30);
    const badPhone = await t.call("POST", `/operator/businesses/${b.id}/drivers`, {
      operator: true,
      body: { name: "Neo", phone: "71234567", vehicle_type_id: 2 },
    });
    assert.equal(badPhone.status, 422);
    const noBiz = await t.call("POST", `/operator/businesses/biz_nope/drivers`, {
      operator: true,
      body: { name: "Neo", phone: "+26771234567", vehicle_type_id: 2 },
    });
    assert.equal(noBiz.status, 404);
    const pk = await t.call("POST", `/operator/businesses/${b.id}/partner-keys`, {
      operator: true,
      body: { partner: "Shopify connector", scopes: ["deliveries", "rewards", "deliveries"] },
    });
    assert.equal(pk.status, 201);
    assert.match(pk.body.data.key, /^ak_/);
    // The scopes the key holds, each once, as the audit trail records them.
    assert.deepEqual(pk.body.data.scopes, ["deliveries", "rewards"]);
    const del = await t.call("DELETE", `/operator/partner-keys/${pk.body.data.id}`, {
      operator: true,
    });
    assert.equal(del.status, 200);
    const gone = await t.call("DELETE", "/operator/partner-keys/pk_nope", { operator: true });
    assert.equal(gone.status, 404);
  }));

Deno.test("operator: a sandbox business's wallet holds 100,000 BWP and 100,000 ZAR; a live one starts empty", async () => {
  await withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const wallet = await t.call("GET", "/business/wallet", { key: b.api_key });
    assert.equal(wallet.status, 200);
    assert.deepEqual(wallet.body.data.balances, [
      { currency: "BWP", balance: 100000 },
      { currency: "ZAR", balance: 100000 },
    ]);
  }, { name: "sandbox" });
  await withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const wallet = await t.call("GET", "/business/wallet", { key: b.api_key });
    assert.deepEqual(wallet.body.data.balances, []);
  });
});

Deno.test("operator: a change the query side refuses is listed as parked until it goes in", () =>
  withTestEnv(async (t) => {
    // A lasting cause: the query side refuses this one deferral's snapshot.
    await sql`alter table snapshots add constraint poison check (id <> 'w-poison')`
      .execute(t.env.db);
    const deferred = await t.env.runtime.ask(deferredWorkActor, "platform", "w-poison", {
      kind: "defer",
      worker: "client_webhooks",
      subject: "live.shipment.w-poison",
      payload: {},
      error: "receiver down",
    });
    assert.ok(deferred.ok);
    await t.settle();
    const list = async () => {
      const r = await t.call("GET", "/operator/parked-changes", { operator: true });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.data.items;
    };
    const [parked, ...more] = await list();
    assert.deepEqual(more, []);
    assert.equal(parked.projection, "snapshots");
    assert.match(parked.subject, /\.deferred_work\.w-poison$/);
    assert.equal(parked.attempts, 1);
    assert.match(parked.last_error, /poison/);
    assert.match(parked.parked_at, /^\d{4}-\d\d-\d\dT/);
    assert.equal((await t.call("GET", "/operator/parked-changes")).status, 401);

    await sql`alter table snapshots drop constraint poison`.execute(t.env.db);
    assert.equal(await t.projector.retryParked(), 1);
    assert.deepEqual(await list(), []);
    const waiting = await t.call("GET", "/operator/deferred-work", { operator: true });
    assert.deepEqual(waiting.body.data.items.map((w: { id: string }) => w.id), ["w-poison"]);
  }));

Deno.test("operator: deferred work is listed while it waits, with its tries and last error", () =>
  withTestEnv(async (t) => {
    const defer = (id: string, error: string) =>
      t.env.runtime.ask(deferredWorkActor, "platform", id, {
        kind: "defer",
        worker: "client_webhooks",
        subject: `live.shipment.${id}`,
        payload: { secret: "not shown" },
        error,
      });
    assert.ok((await defer("w-1", "receiver down")).ok);
    t.clock.advanceBy(1_000);
    assert.ok((await defer("w-2", "store refused the write")).ok);
    await t.settle();
    const list = async (query = "") => {
      const r = await t.call("GET", `/operator/deferred-work${query}`, { operator: true });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.data.items;
    };
    const waiting = await list();
    assert.deepEqual(waiting.map((w: { id: string }) => w.id), ["w-1", "w-2"], "oldest first");
    assert.equal(waiting[0].worker, "client_webhooks");
    assert.equal(waiting[0].status, "waiting");
    assert.equal(waiting[0].last_error, "receiver down");
    assert.equal(waiting[0].attempts, 0);
    assert.match(waiting[0].deferred_at, /^\d{4}-\d\d-\d\dT/);
    assert.equal(JSON.stringify(waiting).includes("not shown"), false, "the message stays out");
    assert.ok((await t.env.runtime.ask(deferredWorkActor, "platform", "w-1", { kind: "done" })).ok);
    await t.settle();
    assert.deepEqual((await list()).map((w: { id: string }) => w.id), ["w-2"]);
    assert.deepEqual((await list("?status=done")).map((w: { id: string }) => w.id), ["w-1"]);
    assert.equal((await t.call("GET", "/operator/deferred-work")).status, 401);
    const bad = await t.call("GET", "/operator/deferred-work?status=lost", { operator: true });
    assert.equal(bad.status, 422);
  }));
