/** Searching a courier's shipments by reference, and what each one found carries. */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { clientKey, DOMESTIC, topUp } from "../../helpers/courier.ts";
import { book, office, prices, ready } from "./booking_fixtures.ts";

Deno.test("search: every shipment with a reference is found, newest first, page by page; never another courier's", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, { settlement_mode: "external" });
    const rows = Array.from({ length: 53 }, (_, i) => ({
      ...DOMESTIC,
      service_level: "economy",
      external_customer_code: "CUST-MANY",
      client_order_reference: `ORD-${i}`,
    }));
    const bulk = await t.call("POST", "/client/shipments/bulk", {
      headers: clientKey(client),
      body: { shipments: rows },
    });
    assert.equal(bulk.status, 200, JSON.stringify(bulk.body));
    assert.equal(bulk.body.data.booked, 53);
    // Another courier's shipment with the same reference stays its own.
    const [elsewhere, theirs] = await ready(t, { settlement_mode: "external" });
    const foreign = await office(t, elsewhere, {
      ...DOMESTIC,
      courier_client_id: theirs.id,
      external_customer_code: "CUST-MANY",
    });
    assert.equal(foreign.status, 201, JSON.stringify(foreign.body));
    await t.settle();
    const seen: string[] = [];
    const order: { booked_at: string; waybill: string }[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const qs: string = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`;
      const r = await t.call("GET", `/business/courier/shipments?q=CUST-MANY&limit=20${qs}`, {
        key: courier.business.api_key,
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.ok(r.body.data.length <= 20);
      seen.push(...r.body.data.map((s: { waybill: string }) => s.waybill));
      order.push(...r.body.data.map((s: { booked_at: string; waybill: string }) => s));
      cursor = r.body.meta.next_cursor;
      pages++;
    } while (cursor !== null && pages < 10);
    assert.equal(pages, 3);
    assert.equal(seen.length, 53);
    assert.equal(new Set(seen).size, 53);
    assert.ok(!seen.includes(foreign.body.data.waybill));
    // Newest booked first, ties by waybill, so pages never skip or repeat a row.
    for (let i = 1; i < order.length; i++) {
      const [a, b] = [order[i - 1]!, order[i]!];
      assert.ok(
        a.booked_at > b.booked_at || (a.booked_at === b.booked_at && a.waybill > b.waybill),
        `${a.waybill} before ${b.waybill}`,
      );
    }
    const expected = bulk.body.data.results.map((r: { waybill: string }) => r.waybill);
    assert.deepEqual([...seen].sort(), [...expected].sort());
    // Without a limit, one page of 50, and the rest is named by the cursor.
    const first = await t.call("GET", "/business/courier/shipments?q=CUST-MANY", {
      key: courier.business.api_key,
    });
    assert.equal(first.body.data.length, 50);
    assert.notEqual(first.body.meta.next_cursor, null);
    // A prefix finds in any case (issue 42: search finds), still never another courier's;
    // wildcards are taken literally; a bad cursor or limit is refused, naming it.
    for (const q of ["CUST", "cust-man"]) {
      const r = await t.call("GET", `/business/courier/shipments?q=${encodeURIComponent(q)}`, {
        key: courier.business.api_key,
      });
      assert.equal(r.status, 200);
      const found = r.body.data.map((s: { waybill: string }) => s.waybill);
      assert.equal(found.length, 50, q);
      assert.ok(found.every((w: string) => expected.includes(w)), q);
    }
    for (const q of ["%", "ORD-1%"]) {
      const r = await t.call("GET", `/business/courier/shipments?q=${encodeURIComponent(q)}`, {
        key: courier.business.api_key,
      });
      assert.equal(r.status, 200);
      assert.deepEqual(r.body.data, [], q);
    }
    const badCursor = await t.call("GET", "/business/courier/shipments?q=CUST-MANY&cursor=x", {
      key: courier.business.api_key,
    });
    assert.equal(badCursor.status, 422);
    assert.equal(badCursor.body.code, "validation_failed");
    assert.match(badCursor.body.message, /cursor/);
    const noQuery = await t.call("GET", "/business/courier/shipments", {
      key: courier.business.api_key,
    });
    assert.equal(noQuery.status, 422);
    assert.match(noQuery.body.message, /q/);
  }));

Deno.test("search: each shipment found carries its next milestone, due time, owner, estimate and health", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const booked = await book(t, client, (await prices(t, client)).prices_reference);
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    await t.settle();
    const r = await t.call("GET", `/business/courier/shipments?q=${booked.body.data.waybill}`, {
      key: courier.business.api_key,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const [found] = r.body.data;
    // spec: courier 2.3: every shipment carries these, and 3.2: health is what operations sees.
    assert.equal(found.status, "booked");
    assert.equal(found.health, "on_schedule");
    assert.equal(found.next_milestone, "collection");
    assert.equal(found.next_owner, "courier");
    assert.ok(!Number.isNaN(Date.parse(found.next_due_at)), JSON.stringify(found));
    assert.equal(found.estimated_delivery_on, found.pricing.promise.earliest_delivery);
  }));

Deno.test("search: a shipment is found by each of its references (waybill, external_customer_code, external_billing_reference, client_order_reference), whatever channel booked it; another courier's never", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, { settlement_mode: "external" });
    const refs = (tag: string) => ({
      external_customer_code: `CC-${tag}`,
      external_billing_reference: `BR-${tag}`,
      client_order_reference: `OR-${tag}`,
    });
    // Held prices booked, and the office booking for the client.
    const offer = await prices(t, client, { ...DOMESTIC, ...refs("PRICES") });
    const viaPrices = await book(t, client, offer.prices_reference);
    assert.equal(viaPrices.status, 201, JSON.stringify(viaPrices.body));
    const viaOffice = await office(t, courier, {
      ...DOMESTIC,
      ...refs("OFFICE"),
      courier_client_id: client.id,
    });
    assert.equal(viaOffice.status, 201, JSON.stringify(viaOffice.body));
    // Another courier's shipment with the very same references.
    const [elsewhere, theirs] = await ready(t, { settlement_mode: "external" });
    const foreign = await office(t, elsewhere, {
      ...DOMESTIC,
      ...refs("OFFICE"),
      courier_client_id: theirs.id,
    });
    assert.equal(foreign.status, 201, JSON.stringify(foreign.body));
    await t.settle();
    const find = async (q: string, key = courier.business.api_key) => {
      const r = await t.call("GET", `/business/courier/shipments?q=${encodeURIComponent(q)}`, {
        key,
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.data.map((s: { waybill: string }) => s.waybill);
    };
    for (
      const [tag, waybill] of [
        ["PRICES", viaPrices.body.data.waybill],
        ["OFFICE", viaOffice.body.data.waybill],
      ] as const
    ) {
      for (const q of [waybill, ...Object.values(refs(tag))]) {
        assert.deepEqual(await find(q), [waybill], `${tag}: ${q}`);
      }
    }
    assert.deepEqual(await find(foreign.body.data.waybill), []);
    assert.deepEqual(await find("CC-OFFICE", elsewhere.business.api_key), [
      foreign.body.data.waybill,
    ]);
  }));
