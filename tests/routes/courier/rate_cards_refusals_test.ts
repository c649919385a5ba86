/** Rate cards (courier 2.4, 4.2, 5, 7): who may publish, and what is refused, naming it. */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { clientKey, DOMESTIC, newClient, newCourier } from "../../helpers/courier.ts";
import { courier, EVERY_TERM, list, publish } from "./rate_cards_fixtures.ts";

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
