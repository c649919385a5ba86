import assert from "node:assert/strict";
import { type CreatedBusiness, type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { SESSION_TTL_MS } from "../../../src/limits.ts";
import {
  billingAction,
  bookShipment,
  clientKey,
  DOMESTIC,
  newClient,
  newCourier,
  postCharge,
  postClient,
} from "../../helpers/courier.ts";

/** A courier with the platform on and billing administration granted to its key. */
async function courier(t: TestEnv): Promise<CreatedBusiness> {
  const b = await t.createBusiness();
  const r = await t.call("PATCH", `/operator/businesses/${b.id}`, {
    operator: true,
    body: {
      courier_platform_enabled: true,
      api_key_scopes: ["billing:administer", "billing:view-own"],
    },
  });
  assert.equal(r.status, 200);
  return b;
}

async function createClient(t: TestEnv, b: CreatedBusiness, code = "PHARMA1") {
  const r = await t.call("POST", "/business/courier/clients", {
    key: b.api_key,
    body: {
      name: "Molapo Pharmacy",
      code,
      email: `${code.toLowerCase()}.${b.id}@example.com`,
      settlement_mode: "credit",
      credit_limit: "5000.00",
      billing_currency: "BWP",
      rate_card_id: null,
    },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.data as { id: string; api_key: string; user: { email: string; password: string } };
}

Deno.test("courier clients: creating one needs billing:administer and the courier platform on", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const body = {
      name: "X",
      code: "X1",
      email: "x1@example.com",
      settlement_mode: "prepaid",
      billing_currency: "BWP",
    };
    const off = await t.call("POST", "/business/courier/clients", { key: b.api_key, body });
    // The scope is checked first: the default key has no billing:administer.
    assert.equal(off.status, 403);
    await t.call("PATCH", `/operator/businesses/${b.id}`, {
      operator: true,
      body: { api_key_scopes: ["billing:administer"] },
    });
    const disabled = await t.call("POST", "/business/courier/clients", { key: b.api_key, body });
    assert.equal(disabled.status, 403);
    assert.equal(disabled.body.code, "courier_platform_disabled");
    await t.call("PATCH", `/operator/businesses/${b.id}`, {
      operator: true,
      body: { courier_platform_enabled: true },
    });
    const created = await t.call("POST", "/business/courier/clients", { key: b.api_key, body });
    assert.equal(created.status, 201);
    assert.match(created.body.data.api_key, /^ck_live_[A-Za-z0-9_-]{32,}$/);
    const again = await t.call("POST", "/business/courier/clients", {
      key: b.api_key,
      body: { ...body, email: "other@example.com" },
    });
    assert.equal(again.status, 409, "the code is taken");
  }));

Deno.test("courier clients: the settlement settings are stored exactly and changed by PATCH", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    const c = await createClient(t, b);
    const read = await t.call("GET", `/business/courier/clients/${c.id}`, { key: b.api_key });
    assert.equal(read.body.data.settlement_mode, "credit");
    assert.equal(read.body.data.credit_limit_minor, 500_000);
    // spec: courier 2.5: read back as written, a decimal in the billing currency.
    assert.equal(read.body.data.credit_limit, 5000);
    const patched = await t.call("PATCH", `/business/courier/clients/${c.id}`, {
      key: b.api_key,
      body: { credit_limit: 12.34, unique_external_reference: true, payment_days: 30 },
    });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.data.credit_limit_minor, 1_234);
    assert.equal(patched.body.data.credit_limit, 12.34);
    assert.equal(patched.body.data.unique_external_reference, true);
    const bad = await t.call("PATCH", `/business/courier/clients/${c.id}`, {
      key: b.api_key,
      body: { settlement_mode: "barter" },
    });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.errors[0].path, "settlement_mode");
  }));

Deno.test("courier clients: another courier's client answers 404", () =>
  withTestEnv(async (t) => {
    const a = await courier(t);
    const b = await courier(t);
    const c = await createClient(t, a);
    const r = await t.call("GET", `/business/courier/clients/${c.id}`, { key: b.api_key });
    assert.equal(r.status, 404);
    assert.equal(r.body.code, "not_found");
    const patch = await t.call("PATCH", `/business/courier/clients/${c.id}`, {
      key: b.api_key,
      body: { credit_limit: 1 },
    });
    assert.equal(patch.status, 404);
  }));

Deno.test("client API: the sent password must be changed before anything else", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    const c = await createClient(t, b);
    const login = await t.call("POST", "/client/login", {
      body: { email: c.user.email, password: c.user.password },
    });
    assert.equal(login.status, 200);
    const token = login.body.data.token;
    assert.match(token, /^cs_/);
    const blocked = await t.call("GET", "/client/me", { headers: { "X-Client-API-Key": token } });
    assert.equal(blocked.status, 403);
    assert.equal(blocked.body.code, "password_change_required");
    const changed = await t.call("POST", "/client/password", {
      headers: { "X-Client-API-Key": token },
      body: { current_password: c.user.password, new_password: "pharmacy-password-2026" },
    });
    assert.equal(changed.status, 200);
    const fresh = changed.body.data.token;
    const me = await t.call("GET", "/client/me", { headers: { "X-Client-API-Key": fresh } });
    assert.equal(me.status, 200);
    assert.equal(me.body.data.user.email, c.user.email);
    assert.equal(me.body.data.client.id, c.id);
    // The old session and the old password are gone.
    assert.equal(
      (await t.call("GET", "/client/me", { headers: { "X-Client-API-Key": token } })).status,
      401,
    );
    const old = await t.call("POST", "/client/login", {
      body: { email: c.user.email, password: c.user.password },
    });
    assert.equal(old.status, 401);
  }));

Deno.test("client API: the client key works, rotates, and stops when the courier platform is off", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    const c = await createClient(t, b);
    const me = await t.call("GET", "/client/me", { headers: { "X-Client-API-Key": c.api_key } });
    assert.equal(me.status, 200);
    assert.equal(me.body.data.user, null);
    // A client key is not a business key, and the reverse.
    assert.equal((await t.call("GET", "/business/profile", { key: c.api_key })).status, 401);
    assert.equal(
      (await t.call("GET", "/client/me", { headers: { "X-Client-API-Key": b.api_key } })).status,
      401,
    );
    const rotated = await t.call("POST", "/client/api-key", {
      headers: { "X-Client-API-Key": c.api_key },
    });
    assert.equal(rotated.status, 201);
    assert.equal(
      (await t.call("GET", "/client/me", { headers: { "X-Client-API-Key": c.api_key } })).status,
      401,
    );
    const key = rotated.body.data.api_key;
    assert.equal(
      (await t.call("GET", "/client/me", { headers: { "X-Client-API-Key": key } })).status,
      200,
    );
    await t.call("PATCH", `/operator/businesses/${b.id}`, {
      operator: true,
      body: { courier_platform_enabled: false },
    });
    const off = await t.call("GET", "/client/me", { headers: { "X-Client-API-Key": key } });
    assert.equal(off.status, 403);
    assert.equal(off.body.code, "courier_platform_disabled");
  }));

Deno.test("client API: a session ends at logout, and by itself after its lifetime", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    const c = await createClient(t, b);
    const signIn = async (password: string) => {
      const r = await t.call("POST", "/client/login", { body: { email: c.user.email, password } });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.data.token as string;
    };
    const first = await signIn(c.user.password);
    const changed = await t.call("POST", "/client/password", {
      headers: { "X-Client-API-Key": first },
      body: { current_password: c.user.password, new_password: "pharmacy-password-2026" },
    });
    assert.equal(changed.status, 200);
    const me = (token: string) =>
      t.call("GET", "/client/me", { headers: { "X-Client-API-Key": token } });
    // Logout ends this session only.
    const one = await signIn("pharmacy-password-2026");
    const two = await signIn("pharmacy-password-2026");
    const out = await t.call("POST", "/client/logout", { headers: { "X-Client-API-Key": one } });
    assert.equal(out.status, 200);
    assert.equal((await me(one)).status, 401);
    assert.equal((await me(two)).status, 200);
    // A session lives SESSION_TTL_MS, then answers 401 like an unknown one.
    t.clock.advanceBy(SESSION_TTL_MS - 60_000);
    assert.equal((await me(two)).status, 200);
    t.clock.advanceBy(60_000);
    assert.equal((await me(two)).status, 401);
  }));

Deno.test("courier clients: a rate card the courier does not have is refused at create and PATCH, alike for another courier's", () =>
  withTestEnv(async (t) => {
    const a = await newCourier(t);
    const b = await newCourier(t);
    const foreign = await postClient(t, b, "CROSS1", { rate_card_id: a.rateCardId });
    const missing = await postClient(t, b, "CROSS1", { rate_card_id: "rc_missing" });
    for (const r of [foreign, missing]) {
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.equal(r.body.code, "validation_failed");
      assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), ["rate_card_id"]);
    }
    // Another courier's card answers exactly as a card that does not exist.
    assert.deepEqual(
      JSON.parse(JSON.stringify(foreign.body).replaceAll(a.rateCardId, "<card>")),
      JSON.parse(JSON.stringify(missing.body).replaceAll("rc_missing", "<card>")),
    );
    // Nothing was made: the code is still free.
    assert.equal((await postClient(t, b, "CROSS1", { rate_card_id: b.rateCardId })).status, 201);

    const client = await newClient(t, b);
    for (const rate_card_id of [a.rateCardId, "rc_missing"]) {
      const r = await t.call("PATCH", `/business/courier/clients/${client.id}`, {
        key: b.business.api_key,
        body: { rate_card_id, payment_days: 7 },
      });
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), ["rate_card_id"]);
    }
    const read = await t.call("GET", `/business/courier/clients/${client.id}`, {
      key: b.business.api_key,
    });
    assert.equal(read.body.data.rate_card_id, b.rateCardId);
    assert.equal(read.body.data.payment_days, null);
    const p = await t.call("POST", "/client/prices", {
      headers: clientKey(client),
      body: DOMESTIC,
    });
    assert.equal(p.status, 200, JSON.stringify(p.body));
  }));

Deno.test("courier clients: a rate card in another currency than the billing currency is refused", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t); // its card prices in BWP
    const key = courier.business.api_key;
    const zar = await t.call("POST", "/business/courier/rate-cards", {
      key,
      body: {
        name: "Rand 2026",
        currency: "ZAR",
        base_charge: 60,
        per_kg: 12,
        included_kg: 1,
        volumetric_divisor: 5000,
        minimum_charge: 40,
        tax_pct: 15,
        tax_inclusive: false,
        tax_label: "VAT",
      },
    });
    assert.equal(zar.status, 201, JSON.stringify(zar.body));
    const zarCard = zar.body.data.id;
    const created = await postClient(t, courier, "ZAR1", {
      billing_currency: "ZAR",
      rate_card_id: courier.rateCardId,
    });
    assert.equal(created.status, 422, JSON.stringify(created.body));
    assert.equal(created.body.code, "currency_mismatch");
    assert.match(created.body.message, /BWP/);
    assert.match(created.body.message, /ZAR/);

    const client = await newClient(t, courier, { settlement_mode: "external" });
    const path = `/business/courier/clients/${client.id}`;
    for (const body of [{ billing_currency: "ZAR" }, { rate_card_id: zarCard }]) {
      const r = await t.call("PATCH", path, { key, body });
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.equal(r.body.code, "currency_mismatch");
      assert.match(r.body.message, /BWP/);
      assert.match(r.body.message, /ZAR/);
    }
    const unchanged = await t.call("GET", path, { key });
    assert.equal(unchanged.body.data.billing_currency, "BWP");
    assert.equal(unchanged.body.data.rate_card_id, courier.rateCardId);
    // Both together: what the client is then shown, it can book.
    const moved = await t.call("PATCH", path, {
      key,
      body: { billing_currency: "ZAR", rate_card_id: zarCard },
    });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    const p = await t.call("POST", "/client/prices", {
      headers: clientKey(client),
      body: DOMESTIC,
    });
    assert.equal(p.status, 200, JSON.stringify(p.body));
    const booked = await t.call("POST", "/client/book", {
      headers: clientKey(client),
      body: { prices_reference: p.body.data.prices_reference, service_level: "express" },
    });
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
  }));

Deno.test("courier clients: a new billing currency needs the credit limit again, read in that currency", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const key = courier.business.api_key;
    const client = await newClient(t, courier, {
      settlement_mode: "credit",
      credit_limit: "1000.00",
      rate_card_id: null,
    });
    const path = `/business/courier/clients/${client.id}`;
    const bare = await t.call("PATCH", path, { key, body: { billing_currency: "JPY" } });
    assert.equal(bare.status, 422, JSON.stringify(bare.body));
    assert.equal(bare.body.code, "validation_failed");
    assert.deepEqual(bare.body.errors.map((e: { path: string }) => e.path), ["credit_limit"]);
    const unchanged = await t.call("GET", path, { key });
    assert.equal(unchanged.body.data.billing_currency, "BWP");
    assert.equal(unchanged.body.data.credit_limit, 1000);
    // A yen amount has no decimals: the limit is read in the new currency.
    const cents = await t.call("PATCH", path, {
      key,
      body: { billing_currency: "JPY", credit_limit: "1000.50" },
    });
    assert.equal(cents.status, 422, JSON.stringify(cents.body));
    const moved = await t.call("PATCH", path, {
      key,
      body: { billing_currency: "JPY", credit_limit: "150000" },
    });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.equal(moved.body.data.billing_currency, "JPY");
    assert.equal(moved.body.data.credit_limit, 150000);
    assert.equal(moved.body.data.credit_limit_minor, 150000);
  }));

Deno.test("courier clients: created at once with one code and e-mail, one is made and the rest refused", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    const body = (i: number) => ({
      name: `Molapo Pharmacy ${i}`,
      code: "TWIN",
      email: `twin.${b.id}@example.com`,
      settlement_mode: "prepaid",
      billing_currency: "BWP",
      rate_card_id: null,
    });
    const answers = await Promise.all(
      [0, 1, 2, 3].map((i) =>
        t.call("POST", "/business/courier/clients", { key: b.api_key, body: body(i) })
      ),
    );
    assert.deepEqual(answers.map((a) => a.status).sort(), [201, 409, 409, 409]);
    for (const a of answers.filter((a) => a.status === 409)) {
      assert.ok(["already_exists", "email_taken"].includes(a.body.code), a.body.code);
    }
    // The one made signs in with its e-mail: no other client user holds it.
    const made = answers.find((a) => a.status === 201)!.body.data;
    const login = await t.call("POST", "/client/login", {
      body: { email: made.user.email, password: made.user.password },
    });
    assert.equal(login.status, 200, JSON.stringify(login.body));
    // Another code with the same e-mail is refused too.
    const again = await t.call("POST", "/business/courier/clients", {
      key: b.api_key,
      body: { ...body(9), code: "OTHER" },
    });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, "email_taken");
  }));

Deno.test("courier clients: the settlement mode changes only with the balances settled", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const key = courier.business.api_key;
    const client = await newClient(t, courier, { settlement_mode: "credit", credit_limit: "500" });
    await bookShipment(t, client);
    const path = `/business/courier/clients/${client.id}`;
    // spec: courier 4.2: a credit receivable is paid and invoiced, which neither prepaid nor
    // external allows: moved, it could never be settled.
    for (const settlement_mode of ["prepaid", "external"]) {
      const r = await t.call("PATCH", path, { key, body: { settlement_mode } });
      assert.equal(r.status, 409, JSON.stringify(r.body));
      assert.equal(r.body.code, "balance_not_settled");
      assert.match(r.body.message, /settlement_mode/);
    }
    const after = await t.call("GET", "/client/account", { headers: clientKey(client) });
    assert.equal(after.body.data.settlement_mode, "credit");
    assert.equal(after.body.data.credit_used, 88.92);
  }));

Deno.test("courier clients: the settlement mode stays while an invoice is open, though a credit note offsets what is owed", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const key = courier.business.api_key;
    const client = await newClient(t, courier, { settlement_mode: "credit", credit_limit: "500" });
    await postCharge(t, courier, client, { reference: "CUS-1", amount_minor: 10_000 });
    const period = new Date(t.clock.now()).toISOString().slice(0, 7);
    const issued = await t.call("POST", `/business/courier/clients/${client.id}/invoice`, {
      key,
      body: { period },
    });
    assert.equal(issued.status, 201, JSON.stringify(issued.body));
    await t.settle();
    // The credit note is not invoiced yet: the client owes nothing, the invoice is still open.
    const note = await billingAction(t, courier, client, "correct", {
      entry_reference: "CUS-1",
      amount: "-100",
      reason: "waived",
      reference: "CN-1",
    });
    assert.equal(note.status, 201, JSON.stringify(note.body));
    // spec: courier 4.2: external posts no invoice and takes no payment, and a prepaid account
    // takes none either: moved there, the open invoice could never be settled.
    const path = `/business/courier/clients/${client.id}`;
    for (const settlement_mode of ["external", "prepaid"]) {
      const r = await t.call("PATCH", path, { key, body: { settlement_mode } });
      assert.equal(r.status, 409, JSON.stringify(r.body));
      assert.equal(r.body.code, "balance_not_settled");
    }
    // Invoiced, the credit note settles the invoice; then the mode may change.
    const credit = await t.call("POST", `/business/courier/clients/${client.id}/invoice`, {
      key,
      body: { period },
    });
    assert.equal(credit.status, 201, JSON.stringify(credit.body));
    const moved = await t.call("PATCH", path, { key, body: { settlement_mode: "external" } });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    const account = await t.call("GET", "/client/account", { headers: clientKey(client) });
    assert.deepEqual(
      account.body.data.invoices.map((i: { status: string }) => i.status),
      ["settled", "settled"],
    );
  }));

Deno.test("courier clients: a credit client becomes external only once every entry is invoiced, though nothing is owed", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const key = courier.business.api_key;
    const client = await newClient(t, courier, { settlement_mode: "credit", credit_limit: "500" });
    await postCharge(t, courier, client, { reference: "CUS-1", amount_minor: 10_000 });
    const paid = await billingAction(t, courier, client, "payment", {
      amount: "100.00",
      currency: "BWP",
      reference: "PAY-1",
    });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
    await t.settle();
    // Owed 0, but the charge is on no invoice: external could never invoice it.
    const path = `/business/courier/clients/${client.id}`;
    const period = new Date(t.clock.now()).toISOString().slice(0, 7);
    const refused = await t.call("PATCH", path, { key, body: { settlement_mode: "external" } });
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(refused.body.code, "balance_not_settled");
    assert.match(refused.body.message, new RegExp(`invoice ${period} first`));
    const still = await t.call("GET", path, { key });
    assert.equal(still.body.data.settlement_mode, "credit");
    // Prepaid can still invoice the period: that move stays open.
    const issued = await t.call("POST", `/business/courier/clients/${client.id}/invoice`, {
      key,
      body: { period },
    });
    assert.equal(issued.status, 201, JSON.stringify(issued.body));
    assert.equal(issued.body.data.invoices[0].status, "settled", "the payment met it");
    const moved = await t.call("PATCH", path, { key, body: { settlement_mode: "external" } });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
  }));

Deno.test("courier clients: an empty external system is refused, naming the field, and changes nothing", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    const c = await createClient(t, b);
    const path = `/business/courier/clients/${c.id}`;
    const named = await t.call("PATCH", path, {
      key: b.api_key,
      body: { settlement_mode: "external", external_system: "Sage X3" },
    });
    assert.equal(named.status, 200, JSON.stringify(named.body));
    for (const external_system of ["", "   "]) {
      const r = await t.call("PATCH", path, { key: b.api_key, body: { external_system } });
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.equal(r.body.code, "validation_failed");
      assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), ["external_system"]);
    }
    const read = await t.call("GET", path, { key: b.api_key });
    assert.equal(read.body.data.external_system, "Sage X3");
    // null clears it.
    const cleared = await t.call("PATCH", path, {
      key: b.api_key,
      body: { external_system: null },
    });
    assert.equal(cleared.body.data.external_system, null);
  }));

Deno.test("courier clients: a billing currency that is not ISO 4217 (XYZ) is refused at create and PATCH, naming it, and changes nothing", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    const body = {
      name: "Molapo Pharmacy",
      code: "PHARMA1",
      email: `pharma1.${b.id}@example.com`,
      settlement_mode: "credit",
      credit_limit: "5000.00",
      billing_currency: "XYZ",
      rate_card_id: null,
    };
    const refused = await t.call("POST", "/business/courier/clients", { key: b.api_key, body });
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.equal(refused.body.code, "validation_failed");
    assert.deepEqual(refused.body.errors.map((e: { path: string }) => e.path), [
      "billing_currency",
    ]);
    assert.match(refused.body.message, /billing_currency: not an ISO 4217 currency code: XYZ/);
    // Nothing was made: the same code and e-mail are still free.
    const c = await createClient(t, b);
    const path = `/business/courier/clients/${c.id}`;
    const patched = await t.call("PATCH", path, {
      key: b.api_key,
      body: { billing_currency: "XYZ", credit_limit: "10.00" },
    });
    assert.equal(patched.status, 422, JSON.stringify(patched.body));
    assert.equal(patched.body.code, "validation_failed");
    assert.deepEqual(patched.body.errors.map((e: { path: string }) => e.path), [
      "billing_currency",
    ]);
    const read = await t.call("GET", path, { key: b.api_key });
    assert.equal(read.body.data.billing_currency, "BWP");
    assert.equal(read.body.data.credit_limit, 5000);
  }));

Deno.test("clients: a client key says its environment; live answers a sandbox one sandbox_key_on_live", async () => {
  let sandboxKey = "";
  await withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    sandboxKey = client.api_key;
    assert.match(sandboxKey, /^ck_sandbox_/);
    const own = await t.call("GET", "/client/account", { headers: clientKey(client) });
    assert.equal(own.status, 200, JSON.stringify(own.body));
  }, { name: "sandbox" });
  await withTestEnv(async (t) => {
    const r = await t.call("GET", "/client/account", {
      headers: { "X-Client-API-Key": sandboxKey },
    });
    assert.equal(r.status, 401);
    assert.equal(r.body.code, "sandbox_key_on_live");
    const unknown = await t.call("GET", "/client/account", {
      headers: { "X-Client-API-Key": "ck_live_unknown" },
    });
    assert.equal(unknown.body.code, "unauthenticated");
  });
});
