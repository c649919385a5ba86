/**
 * Compliance checklists (courier 2.10, 4.5): versioned lists supplied by the courier's clearing
 * agent and laboratories; publishing needs runs:override; a published version is never edited;
 * another courier's checklists do not exist for the caller.
 */
import assert from "node:assert/strict";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { courierWithScopes, newCourier } from "../../helpers/courier.ts";

const BORDER = {
  code: "BW-ZA-EXPORT",
  name: "Export documents for Tlokweng",
  supplier: "clearing_agent",
  items: [
    { key: "invoice", label: "Commercial invoice, 3 copies" },
    { key: "sad500", label: "SAD 500 signed by the clearing agent" },
  ],
};

function publish(t: TestEnv, key: string, body: unknown) {
  return t.call("POST", "/business/compliance-checklists", { key, body });
}

Deno.test("checklists: a POST with an existing code publishes the next version; none is edited", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const key = courier.business.api_key;
    const first = await publish(t, key, BORDER);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.body.data.version, 1);
    assert.equal(first.body.data.published, true);
    assert.deepEqual(first.body.data.items[0], {
      key: "invoice",
      label: "Commercial invoice, 3 copies",
      required: true,
    });
    assert.equal(first.body.data.published_by, "api_key");

    const items = [...BORDER.items, { key: "permit", label: "Export permit", required: false }];
    const second = await publish(t, key, { ...BORDER, items });
    assert.equal(second.status, 201, JSON.stringify(second.body));
    assert.equal(second.body.data.version, 2);
    // The same content again is a retry: nothing new is published.
    const retry = await publish(t, key, { ...BORDER, items });
    assert.equal(retry.status, 200);
    assert.equal(retry.body.data.published, false);
    assert.equal(retry.body.data.version, 2);

    const one = await t.call("GET", `/business/compliance-checklists/${BORDER.code}`, { key });
    assert.equal(one.status, 200, JSON.stringify(one.body));
    assert.deepEqual(one.body.data.versions.map((v: { version: number }) => v.version), [1, 2]);
    assert.equal(one.body.data.versions[0].items.length, 2, "version 1 is as published");
    assert.equal(one.body.data.versions[1].items.length, 3);

    await publish(t, key, {
      code: "LAB-BLOOD",
      name: "Blood sample handover",
      supplier: "laboratory",
      items: [{ key: "label_matches", label: "Label matches the request form" }],
    });
    await t.settle();
    const list = await t.call("GET", "/business/compliance-checklists", { key });
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.deepEqual(list.body.data.map((c: { code: string }) => c.code), [
      "BW-ZA-EXPORT",
      "LAB-BLOOD",
    ]);
    const border = list.body.data[0];
    assert.equal(border.version, 2);
    assert.equal(border.items.length, 3);
    assert.deepEqual(
      border.versions.map((v: { version: number; items_count: number }) => [
        v.version,
        v.items_count,
      ]),
      [[1, 2], [2, 3]],
    );
    const labs = await t.call("GET", "/business/compliance-checklists?supplier=laboratory", {
      key,
    });
    assert.deepEqual(labs.body.data.map((c: { code: string }) => c.code), ["LAB-BLOOD"]);

    for (const method of ["PUT", "PATCH", "DELETE"]) {
      const r = await t.call(method, `/business/compliance-checklists/${BORDER.code}`, {
        key,
        body: BORDER,
      });
      // No such route: the path takes only what reads or adds (405, Allow without edits).
      assert.equal(r.status, 405, method);
      assert.doesNotMatch(r.headers.get("Allow") ?? "", /PUT|PATCH|DELETE/, method);
    }
  }));

Deno.test("checklists: publishing needs runs:override; reading needs runs:operate", () =>
  withTestEnv(async (t) => {
    const plain = await courierWithScopes(t, []);
    const denied = await publish(t, plain.api_key, BORDER);
    assert.equal(denied.status, 403);
    assert.equal(denied.body.code, "scope_denied");
    assert.match(denied.body.message, /runs:override/);
    await t.settle();
    const list = await t.call("GET", "/business/compliance-checklists", { key: plain.api_key });
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data, []);
    const missing = await t.call("GET", `/business/compliance-checklists/${BORDER.code}`, {
      key: plain.api_key,
    });
    assert.equal(missing.status, 404);
  }));

Deno.test("checklists: items are validated; keys are unique", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const key = courier.business.api_key;
    const dup = await publish(t, key, {
      ...BORDER,
      items: [{ key: "a", label: "A" }, { key: "a", label: "A again" }],
    });
    assert.equal(dup.status, 422);
    assert.equal(dup.body.code, "duplicate_item_key");
    const cases: Record<string, unknown>[] = [
      { supplier: "ourselves" },
      { items: [] },
      { code: "bad code" },
      { items: Array.from({ length: 41 }, (_, i) => ({ key: `k${i}`, label: "x" })) },
      { items: [{ key: "a", label: "" }] },
    ];
    for (const change of cases) {
      const r = await publish(t, key, { ...BORDER, ...change });
      assert.equal(r.status, 422, JSON.stringify(change));
      assert.equal(r.body.code, "validation_failed");
    }
    const none = await t.call("GET", `/business/compliance-checklists/${BORDER.code}`, { key });
    assert.equal(none.status, 404, "nothing was published");
  }));

Deno.test("checklists: another courier's checklists do not exist for the caller", () =>
  withTestEnv(async (t) => {
    const a = await newCourier(t);
    const b = await newCourier(t);
    assert.equal((await publish(t, a.business.api_key, BORDER)).status, 201);
    const peek = await t.call("GET", `/business/compliance-checklists/${BORDER.code}`, {
      key: b.business.api_key,
    });
    assert.equal(peek.status, 404);
    // The same code is B's own, from version 1.
    const own = await publish(t, b.business.api_key, { ...BORDER, name: "B's export list" });
    assert.equal(own.status, 201);
    assert.equal(own.body.data.version, 1);
    await t.settle();
    const list = await t.call("GET", "/business/compliance-checklists", {
      key: b.business.api_key,
    });
    assert.deepEqual(list.body.data.map((c: { name: string }) => c.name), ["B's export list"]);
  }));
