/** Rate cards (courier 2.4, 4.2): versions, what each holds and when it is in force. */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { courier, EVERY_TERM_SHOWN, HOUR, list, publish, terms } from "./rate_cards_fixtures.ts";

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
    // What these routes answer besides their 409 (an unknown card or version, a bad parameter,
    // a missing key) is listed too, each with its code, as on every other route.
    for (const method of ["put", "patch", "delete"]) {
      const responses = paths[method].responses;
      for (const status of ["401", "404", "409", "422"]) {
        assert.ok(responses[status], `${method} lists ${status}`);
      }
      assert.deepEqual(
        responses["409"].content["application/json"].schema.allOf[1].properties.code.enum,
        ["rate_card_version_immutable"],
      );
    }
  }));

Deno.test("rate cards API: an effective_from finer than a millisecond is never in force before it (microseconds as Python's isoformat sends them)", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    const v1 = await publish(t, b);
    const at = t.clock.now() + 2 * HOUR;
    const ms = new Date(at).toISOString(); // ...T10:00:00.000Z
    const v2 = await t.call("POST", `/business/courier/rate-cards/${v1.id}/versions`, {
      key: b.api_key,
      body: { per_kg: 15, effective_from: ms.replace(".000Z", ".000500+00:00") },
    });
    assert.equal(v2.status, 201, JSON.stringify(v2.body));
    // Held to the millisecond: the first one not before the instant sent.
    assert.equal(v2.body.data.effective_from, new Date(at + 1).toISOString());
    t.clock.advanceBy(2 * HOUR);
    assert.equal((await list(t, b))[0].version_in_force, 1, "half a millisecond early");
    t.clock.advanceBy(1);
    assert.equal((await list(t, b))[0].version_in_force, 2);
    // Zeros past the millisecond say nothing: in force from the millisecond itself.
    const v3 = await t.call("POST", `/business/courier/rate-cards/${v1.id}/versions`, {
      key: b.api_key,
      body: { per_kg: 16, effective_from: ms.replace(".000Z", ".000000Z") },
    });
    assert.equal(v3.status, 422, "before v2's effective_from");
    assert.equal(v3.body.code, "effective_from_before_latest");
  }));
