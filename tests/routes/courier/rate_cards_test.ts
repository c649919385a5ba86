import assert from "node:assert/strict";
import { type CreatedBusiness, type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  clientKey,
  courierWithScopes,
  DOMESTIC,
  newClient,
  newCourier,
} from "../../helpers/courier.ts";

const HOUR = 3_600_000;

/** A courier with the platform on and the given scopes stored on its key. */
function courier(
  t: TestEnv,
  scopes: readonly string[] = ["billing:administer"],
): Promise<CreatedBusiness> {
  return courierWithScopes(t, scopes);
}

/** Every term of courier 2.4, as an integrator sends them (numbers and decimal strings). */
const EVERY_TERM = {
  name: "Standard 2026",
  currency: "BWP",
  effective_from: "2026-11-01T00:00:00+02:00",
  base_charge: 45,
  per_kg: 12.34,
  included_kg: "2.5",
  volumetric_divisor: 4_000,
  minimum_charge: "30.10",
  collection_fee: 5.5,
  delivery_fee: "7",
  discount_pct: 2.5,
  surcharge_pct: "10",
  tax_pct: 14,
  tax_inclusive: true,
  tax_label: "VAT 14%",
  corridors: [
    { from: "BW", to: "ZA", base_charge: "120.50", per_kg: 20, label: "Gaborone-Johannesburg" },
    { from: "ZA", to: "BW", base_charge: 99.99, per_kg: "19.05", label: "Johannesburg-Gaborone" },
  ],
  liability_cover_pct: 1.25,
  redelivery_fee: 25,
  return_fee: 30.01,
  claim_window_days: 14,
  customs_admin_fee: 150,
  errand_fee: 10.75,
  failed_collection_fee: 20,
  cold_chain_fee: 50,
  waiting_fee: 0.8,
};

/** What the API shows back for EVERY_TERM: decimals and percentages as numbers. */
const EVERY_TERM_SHOWN = {
  name: "Standard 2026",
  currency: "BWP",
  effective_from: "2026-10-31T22:00:00.000Z",
  base_charge: 45,
  per_kg: 12.34,
  included_kg: 2.5,
  volumetric_divisor: 4_000,
  minimum_charge: 30.1,
  collection_fee: 5.5,
  delivery_fee: 7,
  discount_pct: 2.5,
  surcharge_pct: 10,
  tax_pct: 14,
  tax_inclusive: true,
  tax_label: "VAT 14%",
  corridors: [
    { from: "BW", to: "ZA", base_charge: 120.5, per_kg: 20, label: "Gaborone-Johannesburg" },
    { from: "ZA", to: "BW", base_charge: 99.99, per_kg: 19.05, label: "Johannesburg-Gaborone" },
  ],
  liability_cover_pct: 1.25,
  redelivery_fee: 25,
  return_fee: 30.01,
  claim_window_days: 14,
  customs_admin_fee: 150,
  errand_fee: 10.75,
  failed_collection_fee: 20,
  cold_chain_fee: 50,
  waiting_fee: 0.8,
};

async function publish(t: TestEnv, b: CreatedBusiness, body: unknown = EVERY_TERM) {
  const r = await t.call("POST", "/business/courier/rate-cards", { key: b.api_key, body });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.data;
}

async function list(t: TestEnv, b: CreatedBusiness) {
  const r = await t.call("GET", "/business/courier/rate-cards", { key: b.api_key });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data;
}

/** A version as the API shows it, without the fields the server chooses. */
function terms(v: Record<string, unknown>) {
  const { id: _, version: _v, published_at: _p, in_force: _f, in_force_from: _i, ...rest } = v;
  return rest;
}

Deno.test("rate cards API: version 1 with every term reads back exactly (12.34 stays 12.34)", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    const v1 = await publish(t, b);
    assert.match(v1.id, /^rc_/);
    assert.equal(v1.version, 1);
    assert.equal(v1.published_at, new Date(t.clock.now()).toISOString());
    assert.deepEqual(terms(v1), EVERY_TERM_SHOWN);
    const cards = await list(t, b);
    assert.equal(cards.length, 1);
    assert.equal(cards[0].id, v1.id);
    assert.equal(cards[0].version_in_force, 1);
    assert.equal(cards[0].versions.length, 1);
    assert.equal(cards[0].versions[0].in_force, true);
    assert.deepEqual(terms(cards[0].versions[0]), EVERY_TERM_SHOWN);
    const one = await t.call("GET", `/business/courier/rate-cards/${v1.id}`, { key: b.api_key });
    assert.deepEqual(one.body.data, cards[0]);
  }));

Deno.test("rate cards API: omitted terms default (fees 0, divisor 5000, VAT) and effective_from is now", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    const v1 = await publish(t, b, {
      name: "Basic",
      currency: "JPY",
      base_charge: 500,
      per_kg: 80,
    });
    assert.equal(v1.effective_from, new Date(t.clock.now()).toISOString());
    assert.equal(v1.currency, "JPY");
    assert.equal(v1.base_charge, 500);
    assert.equal(v1.volumetric_divisor, 5_000);
    assert.equal(v1.tax_label, "VAT");
    assert.equal(v1.tax_inclusive, false);
    assert.equal(v1.included_kg, 0);
    assert.deepEqual(v1.corridors, []);
    for (const fee of ["minimum_charge", "collection_fee", "delivery_fee", "waiting_fee"]) {
      assert.equal(v1[fee], 0, fee);
    }
    const cents = await t.call("POST", "/business/courier/rate-cards", {
      key: b.api_key,
      body: { name: "Yen", currency: "JPY", base_charge: "500.5", per_kg: 1 },
    });
    assert.equal(cents.status, 422, "JPY has no minor unit");
    assert.equal(cents.body.errors[0].path, "base_charge");
  }));

Deno.test("rate cards API: version 2 with only per_kg carries every other term over", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    const v1 = await publish(t, b);
    const from = new Date(t.clock.now() + 24 * HOUR).toISOString();
    const r = await t.call("POST", `/business/courier/rate-cards/${v1.id}/versions`, {
      key: b.api_key,
      body: { per_kg: "13.99", effective_from: from },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const v2 = r.body.data;
    assert.equal(v2.id, v1.id);
    assert.equal(v2.version, 2);
    assert.deepEqual(terms(v2), { ...EVERY_TERM_SHOWN, per_kg: 13.99, effective_from: from });
    const [card] = await list(t, b);
    assert.deepEqual(terms(card.versions[0]), EVERY_TERM_SHOWN, "version 1 is unchanged");
  }));

Deno.test("rate cards API: the version in force moves when the clock passes v2's effective_from", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    const v1 = await publish(t, b);
    const from = new Date(t.clock.now() + 2 * HOUR).toISOString();
    const v2 = await t.call("POST", `/business/courier/rate-cards/${v1.id}/versions`, {
      key: b.api_key,
      body: { per_kg: 15, effective_from: from },
    });
    assert.equal(v2.status, 201);
    const before = (await list(t, b))[0];
    assert.equal(before.version_in_force, 1);
    assert.deepEqual(before.versions.map((v: { in_force: boolean }) => v.in_force), [true, false]);
    t.clock.advanceBy(2 * HOUR - 1);
    assert.equal((await list(t, b))[0].version_in_force, 1, "one millisecond early");
    t.clock.advanceBy(1);
    const after = (await list(t, b))[0];
    assert.equal(after.version_in_force, 2);
    assert.deepEqual(after.versions.map((v: { in_force: boolean }) => v.in_force), [false, true]);
  }));

Deno.test("rate cards API: a back-dated version is in force from its publication (in_force_from); one from the latest's instant supersedes it", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    const v1 = await publish(t, b); // effective_from two days back
    const t0 = new Date(t.clock.now()).toISOString();
    assert.equal(v1.effective_from, "2026-10-31T22:00:00.000Z", "kept as sent");
    assert.equal(v1.in_force_from, t0, "never before it was published");
    t.clock.advanceBy(4 * HOUR);
    const now = new Date(t.clock.now()).toISOString();
    const from = new Date(Date.parse(t0) + 2 * HOUR).toISOString();
    const path = `/business/courier/rate-cards/${v1.id}/versions`;
    const v2 = await t.call("POST", path, {
      key: b.api_key,
      body: { per_kg: 15, effective_from: from },
    });
    assert.equal(v2.status, 201, JSON.stringify(v2.body));
    assert.equal(v2.body.data.effective_from, from);
    assert.equal(v2.body.data.in_force_from, now);
    const view = (card: { versions: Record<string, unknown>[] }) =>
      card.versions.map((
        v,
      ) => [v["version"], v["effective_from"], v["in_force_from"], v["in_force"]]);
    const [card] = await list(t, b);
    assert.equal(card.version_in_force, 2);
    assert.deepEqual(view(card), [
      [1, "2026-10-31T22:00:00.000Z", t0, false],
      [2, from, now, true],
    ]);
    // From the same instant as version 2, the later version supersedes it.
    const same = await t.call("POST", path, {
      key: b.api_key,
      body: { per_kg: 16, effective_from: from },
    });
    assert.equal(same.status, 201, JSON.stringify(same.body));
    assert.equal((await list(t, b))[0].version_in_force, 3);
    // A future effective_from is in force exactly from it.
    const later = new Date(t.clock.now() + HOUR).toISOString();
    const v4 = await t.call("POST", path, {
      key: b.api_key,
      body: { per_kg: 17, effective_from: later },
    });
    assert.equal(v4.status, 201, JSON.stringify(v4.body));
    assert.equal(v4.body.data.in_force_from, later);
    assert.equal((await list(t, b))[0].version_in_force, 3);
    t.clock.advanceBy(HOUR);
    assert.equal((await list(t, b))[0].version_in_force, 4);
  }));

Deno.test("rate cards API: a version may not start before the latest one nor change currency", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    const v1 = await publish(t, b);
    const early = await t.call("POST", `/business/courier/rate-cards/${v1.id}/versions`, {
      key: b.api_key,
      body: { per_kg: 1, effective_from: "2026-10-30T00:00:00Z" },
    });
    assert.equal(early.status, 422);
    assert.equal(early.body.code, "effective_from_before_latest");
    const currency = await t.call("POST", `/business/courier/rate-cards/${v1.id}/versions`, {
      key: b.api_key,
      body: { currency: "ZAR", per_kg: 1 },
    });
    assert.equal(currency.status, 422);
    assert.equal(currency.body.code, "rate_card_currency_fixed");
    assert.equal((await list(t, b))[0].versions.length, 1, "nothing was published");
  }));

Deno.test("rate cards API: a version that changes nothing is refused and not published", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    const v1 = await publish(t, b);
    const from = new Date(t.clock.now() + HOUR).toISOString();
    for (
      const body of [{}, { effective_from: from }, { per_kg: terms(v1).per_kg, name: v1.name }]
    ) {
      const r = await t.call("POST", `/business/courier/rate-cards/${v1.id}/versions`, {
        key: b.api_key,
        body,
      });
      assert.equal(r.status, 422, JSON.stringify(body));
      assert.equal(r.body.code, "validation_failed");
      assert.match(r.body.message, /nothing to publish: .* version 1/);
    }
    assert.equal((await list(t, b))[0].versions.length, 1, "nothing was published");
    const renamed = await t.call("POST", `/business/courier/rate-cards/${v1.id}/versions`, {
      key: b.api_key,
      body: { name: "Retail 2027" },
    });
    assert.equal(renamed.status, 201, "a new name alone is a change");
  }));

Deno.test("rate cards API: the same version sent five times at once (a retry racing its first send) publishes one; the others are refused as changing nothing", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    const v1 = await publish(t, b);
    const path = `/business/courier/rate-cards/${v1.id}/versions`;
    const answers = await Promise.all(
      Array.from(
        { length: 5 },
        () => t.call("POST", path, { key: b.api_key, body: { per_kg: 15 } }),
      ),
    );
    const statuses = answers.map((r) => r.status).sort();
    assert.deepEqual(
      statuses,
      [201, 422, 422, 422, 422],
      JSON.stringify(answers.map((r) => r.body)),
    );
    for (const r of answers.filter((r) => r.status === 422)) {
      assert.equal(r.body.code, "validation_failed");
      assert.match(r.body.message, /nothing to publish: .* version 2/);
    }
    const [card] = await list(t, b);
    assert.deepEqual(card.versions.map((v: { version: number }) => v.version), [1, 2]);
  }));

Deno.test("rate cards API: PUT, PATCH and DELETE on a card or a version answer 409", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    const v1 = await publish(t, b);
    for (const method of ["PUT", "PATCH", "DELETE"]) {
      for (const path of [`/${v1.id}`, `/${v1.id}/versions/1`]) {
        const r = await t.call(method, `/business/courier/rate-cards${path}`, {
          key: b.api_key,
          ...(method === "DELETE" ? {} : { body: { per_kg: 1 } }),
        });
        assert.equal(r.status, 409, `${method} ${path}`);
        assert.equal(r.body.code, "rate_card_version_immutable");
        assert.match(r.body.message, /publish a new version/);
      }
    }
    const missing = await t.call("PATCH", `/business/courier/rate-cards/${v1.id}/versions/7`, {
      key: b.api_key,
      body: {},
    });
    assert.equal(missing.status, 404);
    const named = await t.call("PATCH", `/business/courier/rate-cards/${v1.id}/versions/latest`, {
      key: b.api_key,
      body: {},
    });
    assert.equal(named.status, 422);
    assert.equal(named.body.errors[0].path, "version");
    assert.match(named.body.errors[0].message, /whole number from 1 to .*: latest/);
    const [card] = await list(t, b);
    assert.deepEqual(terms(card.versions[0]), EVERY_TERM_SHOWN, "still as published");
    const doc = await t.call("GET", "/api-docs/openapi.json");
    const paths = doc.body.paths["/business/courier/rate-cards/{card}/versions/{version}"];
    assert.ok(paths?.patch && paths?.put && paths?.delete, "the refusal is documented");
  }));

Deno.test("rate cards API: publishing needs billing:administer; reading does not", () =>
  withTestEnv(async (t) => {
    const admin = await courier(t);
    const card = await publish(t, admin);
    await t.call("PATCH", `/operator/businesses/${admin.id}`, {
      operator: true,
      body: { api_key_scopes: [] },
    });
    const denied = await t.call("POST", "/business/courier/rate-cards", {
      key: admin.api_key,
      body: EVERY_TERM,
    });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.code, "scope_denied");
    assert.match(denied.body.message, /billing:administer/);
    const version = await t.call("POST", `/business/courier/rate-cards/${card.id}/versions`, {
      key: admin.api_key,
      body: { per_kg: 1 },
    });
    assert.equal(version.body.code, "scope_denied");
    assert.equal((await list(t, admin)).length, 1);
  }));

Deno.test("rate cards API: every rate-card endpoint answers 403 while the courier platform is off", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    const card = await publish(t, b);
    await t.call("PATCH", `/operator/businesses/${b.id}`, {
      operator: true,
      body: { courier_platform_enabled: false },
    });
    const calls: [string, string, unknown][] = [
      ["POST", "/business/courier/rate-cards", EVERY_TERM],
      ["POST", `/business/courier/rate-cards/${card.id}/versions`, { per_kg: 1 }],
      ["GET", "/business/courier/rate-cards", undefined],
      ["PATCH", `/business/courier/rate-cards/${card.id}`, {}],
    ];
    for (const [method, path, body] of calls) {
      const r = await t.call(method, path, { key: b.api_key, body });
      assert.equal(r.status, 403, `${method} ${path}`);
      assert.equal(r.body.code, "courier_platform_disabled");
    }
  }));

Deno.test("rate cards API: 422 names each bad field", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    const shape = await t.call("POST", "/business/courier/rate-cards", {
      key: b.api_key,
      body: {
        ...EVERY_TERM,
        currency: "bwp",
        corridors: [{ from: "BWA", to: "ZA", base_charge: 1, per_kg: 1, label: "x" }],
        effective_from: "2026-11-01T00:00:00",
      },
    });
    assert.equal(shape.status, 422);
    assert.equal(shape.body.code, "validation_failed");
    const paths = shape.body.errors.map((e: { path: string }) => e.path).sort();
    assert.deepEqual(paths, ["corridors.0.from", "currency", "effective_from"]);
    const values = await t.call("POST", "/business/courier/rate-cards", {
      key: b.api_key,
      body: {
        ...EVERY_TERM,
        tax_pct: "abc",
        per_kg: "1.234",
        included_kg: "1.2345",
        discount_pct: 101,
        waiting_fee: -1,
        corridors: [EVERY_TERM.corridors[0], EVERY_TERM.corridors[0]],
      },
    });
    assert.equal(values.status, 422);
    const named = values.body.errors.map((e: { path: string }) => e.path).sort();
    assert.deepEqual(named, [
      "corridors.1",
      "discount_pct",
      "included_kg",
      "per_kg",
      "tax_pct",
      "waiting_fee",
    ]);
    assert.match(values.body.message, /tax_pct: .*abc/);
    const version = await t.call("POST", "/business/courier/rate-cards", {
      key: b.api_key,
      body: EVERY_TERM,
    });
    const bad = await t.call(
      "POST",
      `/business/courier/rate-cards/${version.body.data.id}/versions`,
      {
        key: b.api_key,
        body: { surcharge_pct: "ten" },
      },
    );
    assert.equal(bad.status, 422);
    assert.equal(bad.body.errors[0].path, "surcharge_pct");
    // Trailing zeros say nothing: 14.500 is 14.5, as 12.50000 is 12.5; 7.555 is over 2 decimals.
    const zeros = await t.call(
      "POST",
      `/business/courier/rate-cards/${version.body.data.id}/versions`,
      { key: b.api_key, body: { tax_pct: "14.500", discount_pct: "7.555" } },
    );
    assert.equal(zeros.status, 422);
    assert.deepEqual(zeros.body.errors.map((e: { path: string }) => e.path), ["discount_pct"]);
    const exact = await t.call(
      "POST",
      `/business/courier/rate-cards/${version.body.data.id}/versions`,
      { key: b.api_key, body: { tax_pct: "14.500", surcharge_pct: 2.50 } },
    );
    assert.equal(exact.status, 201, JSON.stringify(exact.body));
    assert.equal(exact.body.data.tax_pct, 14.5);
    assert.equal(exact.body.data.surcharge_pct, 2.5);
    assert.equal((await list(t, b)).length, 1, "refused cards are not listed");
  }));

Deno.test("rate cards API: an amount past 10,000,000,000.00 is refused naming it; a card at every bound prices", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    const over = await t.call("POST", "/business/courier/rate-cards", {
      key: b.api_key,
      body: {
        ...EVERY_TERM,
        base_charge: "90000000000000",
        collection_fee: "10000000000000",
        corridors: [{ ...EVERY_TERM.corridors[0], per_kg: "10000000000.01" }],
      },
    });
    assert.equal(over.status, 422, JSON.stringify(over.body));
    assert.equal(over.body.code, "validation_failed");
    const paths = over.body.errors.map((e: { path: string }) => e.path).sort();
    assert.deepEqual(paths, ["base_charge", "collection_fee", "corridors.0.per_kg"]);
    assert.match(over.body.message, /base_charge: at most 10000000000\.00 BWP/);
    const card = await publish(t, b);
    const version = await t.call("POST", `/business/courier/rate-cards/${card.id}/versions`, {
      key: b.api_key,
      body: { waiting_fee: 10_000_000_001 },
    });
    assert.equal(version.status, 422, JSON.stringify(version.body));
    assert.equal(version.body.errors[0].path, "waiting_fee");
    assert.equal((await list(t, b)).length, 1, "refused cards are not listed");

    // Every amount and percentage at its bound: published, and every price answers.
    const most = "10000000000";
    const dear = await newCourier(t, {
      base_charge: most,
      per_kg: most,
      minimum_charge: most,
      collection_fee: most,
      delivery_fee: most,
      surcharge_pct: 1000,
      tax_pct: 100,
      liability_cover_pct: 100,
      corridors: [{ from: "BW", to: "ZA", base_charge: most, per_kg: most, label: "Dear" }],
    });
    const client = await newClient(t, dear);
    for (const to_country of ["BW", "ZA"]) {
      const p = await t.call("POST", "/client/prices", {
        headers: clientKey(client),
        body: { ...DOMESTIC, to_country },
      });
      assert.equal(p.status, 200, JSON.stringify(p.body));
    }
  }));

Deno.test("rate cards API: another courier's card answers 404 and is not listed", () =>
  withTestEnv(async (t) => {
    const a = await courier(t);
    const b = await courier(t);
    const card = await publish(t, a);
    const read = await t.call("GET", `/business/courier/rate-cards/${card.id}`, { key: b.api_key });
    assert.equal(read.status, 404);
    assert.equal(read.body.code, "not_found");
    const version = await t.call("POST", `/business/courier/rate-cards/${card.id}/versions`, {
      key: b.api_key,
      body: { per_kg: 1 },
    });
    assert.equal(version.status, 404);
    const patch = await t.call("PATCH", `/business/courier/rate-cards/${card.id}`, {
      key: b.api_key,
      body: {},
    });
    assert.equal(patch.status, 404, "no hint that the card exists");
    assert.deepEqual(await list(t, b), []);
    assert.equal((await list(t, a))[0].versions.length, 1);
  }));

Deno.test("rate cards API: a currency or corridor country that is not a real code (XYZ, ZZ) is refused naming it, and publishes nothing", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    const r = await t.call("POST", "/business/courier/rate-cards", {
      key: b.api_key,
      body: {
        ...EVERY_TERM,
        currency: "XYZ",
        corridors: [{ from: "BW", to: "ZZ", base_charge: 1, per_kg: 1, label: "Nowhere" }],
      },
    });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.code, "validation_failed");
    const paths = r.body.errors.map((e: { path: string }) => e.path).sort();
    assert.deepEqual(paths, ["corridors.0.to", "currency"]);
    assert.match(r.body.message, /currency: not an ISO 4217 currency code: XYZ/);
    assert.match(r.body.message, /corridors\.0\.to: not an ISO 3166-1 alpha-2 country code: ZZ/);
    assert.equal((await list(t, b)).length, 0, "nothing is published");
    const card = await publish(t, b);
    const version = await t.call("POST", `/business/courier/rate-cards/${card.id}/versions`, {
      key: b.api_key,
      body: { corridors: [{ from: "ZZ", to: "BW", base_charge: 1, per_kg: 1, label: "x" }] },
    });
    assert.equal(version.status, 422, JSON.stringify(version.body));
    assert.deepEqual(version.body.errors.map((e: { path: string }) => e.path), [
      "corridors.0.from",
    ]);
    const [only] = await list(t, b);
    assert.equal(only.versions.length, 1, "no version is added");
  }));
