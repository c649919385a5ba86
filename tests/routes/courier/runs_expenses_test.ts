/**
 * A run's expenses and waiting (courier 4.5): an expense needs its receipt and an idempotency_key
 * (a form, within the receipt's cap), is kept once per key and stays on the run however many
 * follow; waiting needs billing:administer.
 */
import assert from "node:assert/strict";
import { EVIDENCE_FILE_BYTES_MAX } from "../../../src/courier/flows/evidence.ts";
import { postChunked, withTestEnv } from "../../helpers/test_env.ts";
import { bookWaybill, courierWithScopes } from "../../helpers/courier.ts";
import { ledger, newRun, post, ready } from "./runs_fixtures.ts";

Deno.test("runs: expenses need a receipt and an idempotency_key; waiting needs billing:administer", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const run = await newRun(t, courier);
    const waybill = await bookWaybill(t, client);
    const added = await post(t, courier, `/business/network-runs/${run}/stops`, {
      kind: "deliver",
      waybill,
    }, 201);
    const stop = added.data.stops[0].id;
    const form = (withReceipt: boolean, key?: string, currency = "BWP") => {
      const f = new FormData();
      f.set("amount", "150.00");
      f.set("currency", currency);
      if (key) f.set("idempotency_key", key);
      if (withReceipt) {
        f.set("receipt", new File([new TextEncoder().encode("fuel receipt")], "fuel.txt"));
      }
      return f;
    };
    const send = (f: FormData) =>
      t.app.request(`/api/business/network-runs/${run}/expenses`, {
        method: "POST",
        headers: { "X-Business-API-Key": courier.business.api_key },
        body: f,
      });
    assert.equal((await send(form(false, "e1"))).status, 422);
    // The expense is a form: the same fields as JSON are a body of another type.
    const json = await t.call("POST", `/business/network-runs/${run}/expenses`, {
      key: courier.business.api_key,
      body: { amount: "150.00", currency: "BWP", idempotency_key: "e1" },
    });
    assert.equal(json.status, 415);
    assert.equal(json.body.code, "unsupported_media_type");
    assert.equal((await send(form(true))).status, 422);
    const fake = await send(form(true, "e1", "XYZ"));
    assert.equal(fake.status, 422);
    const refused = await fake.json();
    assert.equal(refused.code, "validation_failed");
    assert.deepEqual(refused.errors.map((e: { path: string }) => e.path), ["currency"]);
    // Text Postgres cannot keep is refused, naming the field, and no expense is kept.
    const nul = form(true, "e\u00001");
    nul.set("note", "diesel \u0000");
    const unkept = await send(nul);
    assert.equal(unkept.status, 422);
    assert.deepEqual(
      (await unkept.json()).errors.map((e: { path: string }) => e.path),
      ["idempotency_key", "note"],
    );
    // A receipt past the cap is refused 413 also when the body declares no length (chunked).
    const big = form(false, "e2");
    big.set("receipt", new File([new Uint8Array(EVIDENCE_FILE_BYTES_MAX + 1)], "big.bin"));
    const encoded = new Response(big);
    const chunked = await postChunked(t, `/business/network-runs/${run}/expenses`, {
      "X-Business-API-Key": courier.business.api_key,
      "Content-Type": encoded.headers.get("Content-Type")!,
    }, encoded.body!);
    assert.equal(chunked.status, 413, await chunked.clone().text());
    const first = await send(form(true, "e1"));
    assert.equal(first.status, 201, await first.clone().text());
    const again = await send(form(true, "e1"));
    assert.equal(again.status, 201);
    const kept = (await again.json()).data;
    assert.equal(kept.expenses.length, 1);
    // Stated as the rest of the API states them: a decimal amount, ISO times, kg and m3.
    assert.equal(kept.expenses[0].amount, 150);
    assert.equal("amount_minor" in kept.expenses[0], false);
    assert.equal(kept.expenses[0].at, new Date(t.clock.now()).toISOString());
    assert.deepEqual(kept.capacity, { kg: 100, m3: 2, pieces: 10, cold_slots: 0 });
    assert.equal(kept.items[0].load.kg, 2.5);
    assert.equal(kept.created_at, new Date(t.clock.now()).toISOString());
    assert.equal(kept.closed_at, null);
    assert.ok(kept.history.every((h: { at: string }) => typeof h.at === "string"));

    const weak = await courierWithScopes(t, []);
    const denied = await t.call("POST", `/business/network-runs/${run}/waiting`, {
      key: weak.api_key,
      body: { stop_id: stop, minutes: 30 },
    });
    assert.equal(denied.status, 404, "another courier's run is not found");
    await post(t, courier, `/business/network-runs/${run}/waiting`, { stop_id: stop, minutes: 30 });
    await post(t, courier, `/business/network-runs/${run}/waiting`, { stop_id: stop, minutes: 30 });
    const waits = (await ledger(t, courier, client)).filter((e) => e.kind === "waiting");
    assert.equal(waits.length, 1, "the same stop's wait books once");
  }));

Deno.test("runs: an expense's idempotency_key longer than any request's may be is refused 422, keeping nothing", () =>
  withTestEnv(async (t) => {
    const [courier] = await ready(t);
    const run = await newRun(t, courier);
    for (const length of [121, 3000]) {
      const f = new FormData();
      f.set("amount", "150.00");
      f.set("currency", "BWP");
      f.set("idempotency_key", "k".repeat(length));
      f.set("receipt", new File([new TextEncoder().encode("fuel receipt")], "fuel.txt"));
      const r = await t.call("POST", `/business/network-runs/${run}/expenses`, {
        key: courier.business.api_key,
        body: f,
      });
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.equal(r.body.code, "validation_failed");
      assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), ["idempotency_key"]);
    }
    const kept = await t.call("GET", `/business/network-runs/${run}`, {
      key: courier.business.api_key,
    });
    assert.deepEqual(kept.body.data.expenses, []);
  }));

Deno.test("runs: every expense recorded stays on the run, however many follow it", () =>
  withTestEnv(async (t) => {
    const [courier] = await ready(t);
    const run = await newRun(t, courier);
    const keys = Array.from({ length: 22 }, (_, i) => `fuel-${i + 1}`);
    for (const key of keys) {
      const f = new FormData();
      f.set("amount", "12.50");
      f.set("currency", "BWP");
      f.set("idempotency_key", key);
      f.set("receipt", new File([new TextEncoder().encode(`receipt ${key}`)], "fuel.txt"));
      const r = await t.call("POST", `/business/network-runs/${run}/expenses`, {
        key: courier.business.api_key,
        body: f,
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
    }
    const kept = await t.call("GET", `/business/network-runs/${run}`, {
      key: courier.business.api_key,
    });
    assert.deepEqual(kept.body.data.expenses.map((e: { key: string }) => e.key), keys);
  }));
