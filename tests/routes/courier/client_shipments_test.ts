/**
 * The client's shipments (courier 4.6): the paged list, booking in one call, and one shipment
 * with its custody timeline.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { bookWaybill, clientKey, DOMESTIC, newClient, topUp } from "../../helpers/courier.ts";
import { priceOfferActor } from "../../../actors/courier/price_offer.ts";
import {
  balance,
  csvOf,
  EXPRESS,
  line,
  list,
  post,
  ready,
  ROW,
  upload,
} from "./client_shipments_fixtures.ts";

Deno.test("client shipments: the list holds only the caller's, newest first, paged and filtered", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const other = await newClient(t, courier);
    await topUp(t, courier, other, "500");
    const mine: string[] = [];
    for (let i = 0; i < 3; i++) {
      mine.push(
        await bookWaybill(t, client, {
          client_order_reference: `ORD-${i}`,
          external_billing_reference: `INV-${i}`,
        }),
      );
      t.clock.advanceBy(60_000);
    }
    const theirs = await bookWaybill(t, other, { client_order_reference: "ORD-0" });

    const first = await list(t, client, "?limit=2");
    assert.deepEqual(first.data.map((s) => s.waybill), [mine[2], mine[1]]);
    assert.equal(first.meta.limit, 2);
    assert.ok(first.meta.next_cursor);
    const second = await list(t, client, `?limit=2&cursor=${first.meta.next_cursor}`);
    assert.deepEqual(second.data.map((s) => s.waybill), [mine[0]]);
    assert.equal(second.meta.next_cursor, null);
    // A page size that is no whole number is refused naming it.
    for (const limit of ["two", "2.5", "0", ""]) {
      const bad = await t.call("GET", `/client/shipments?limit=${limit}`, {
        headers: clientKey(client),
      });
      assert.equal(bad.status, 422, limit);
      assert.equal(bad.body.errors[0].path, "limit");
      assert.match(bad.body.errors[0].message, /whole number from 1 to \d+: /);
    }
    // Given twice, which one was meant is not known: refused, not read as the first.
    const twice = await t.call("GET", "/client/shipments?limit=2&status=booked&limit=3", {
      headers: clientKey(client),
    });
    assert.equal(twice.status, 422);
    assert.deepEqual(twice.body.errors, [{
      path: "limit",
      message: "given more than once: it takes one value",
    }]);

    // Another client's shipment is absent, even by a reference both use.
    const byOrder = await list(t, client, "?reference=ORD-0");
    assert.deepEqual(byOrder.data.map((s) => s.waybill), [mine[0]]);
    assert.deepEqual((await list(t, client, `?reference=${theirs}`)).data, []);
    assert.deepEqual((await list(t, other, "")).data.map((s) => s.waybill), [theirs]);
    assert.deepEqual(
      (await list(t, client, "?reference=INV-1")).data.map((s) => s.waybill),
      [mine[1]],
    );
    assert.deepEqual(
      (await list(t, client, `?reference=${mine[2]}`)).data.map((s) => s.waybill),
      [mine[2]],
    );

    const scanned = await t.call("POST", `/business/courier/shipments/${mine[1]}/scans`, {
      key: courier.business.api_key,
      body: { event: "collected", holder: "Driver Thabo" },
    });
    assert.equal(scanned.status, 201, JSON.stringify(scanned.body));
    const collected = await list(t, client, "?status=collected");
    assert.deepEqual(collected.data.map((s) => [s.waybill, s.status]), [[mine[1], "collected"]]);
    assert.equal((await list(t, client, "?status=booked")).data.length, 2);

    const bad = await t.call("GET", "/client/shipments?status=lost&cursor=zz", {
      headers: clientKey(client),
    });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.code, "validation_failed");
  }));

Deno.test("client shipments: POST books in one call; the same request again is already_booked", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "1000", { unique_external_reference: true });
    const key = { "Idempotency-Key": "order-7-attempt" };
    const first = await post(t, client, "/client/shipments", ROW, key);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.match(first.body.data.waybill, /^WB/);
    assert.match(first.body.data.tracking_url, /\/api\/s\//);
    assert.equal(first.body.data.service_level, "express");
    assert.equal(first.body.data.already_booked, false);
    const again = await post(t, client, "/client/shipments", ROW, key);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.data.waybill, first.body.data.waybill);
    assert.equal(again.body.data.already_booked, true);
    assert.equal(await balance(t, client), 1000 - EXPRESS);

    // The same key with other details is refused, naming what it booked.
    const changed = await post(t, client, "/client/shipments", { ...ROW, contents: "Books" }, key);
    assert.equal(changed.status, 409);
    assert.equal(changed.body.code, "idempotency_key_reused");
    assert.match(changed.body.message, new RegExp(first.body.data.waybill));

    // Without a key, the client_order_reference is the request's identity (the client books
    // each external reference once).
    const ordered = { ...ROW, client_order_reference: "SHOP-77" };
    const o1 = await post(t, client, "/client/shipments", ordered);
    const o2 = await post(t, client, "/client/shipments", ordered);
    assert.equal(o1.status, 201);
    assert.equal(o2.status, 200);
    assert.equal(o2.body.data.waybill, o1.body.data.waybill);
    const dup = await post(t, client, "/client/shipments", {
      ...ordered,
      service_level: "economy",
    });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.code, "duplicate_order");

    // With no identity at all, each request books.
    const n1 = await post(t, client, "/client/shipments", ROW);
    const n2 = await post(t, client, "/client/shipments", ROW);
    assert.equal(n1.status, 201);
    assert.equal(n2.status, 201);
    assert.notEqual(n1.body.data.waybill, n2.body.data.waybill);
    assert.equal(await balance(t, client), Number((1000 - 4 * EXPRESS).toFixed(2)));
  }));

Deno.test("client shipments: a body idempotency_key wins over the Idempotency-Key header, so a retry under a new header books nothing new", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "1000");
    const row = { ...ROW, idempotency_key: "order-9" };
    const first = await post(t, client, "/client/shipments", row, { "Idempotency-Key": "try-1" });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    // spec: courier 4.1 (the same request again books nothing new); business appendix 2 (a body
    // reference wins over the header), as a bulk row's idempotency_key does.
    for (const headers of [{ "Idempotency-Key": "try-2" }, {}]) {
      const again = await post(t, client, "/client/shipments", row, headers);
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.equal(again.body.data.waybill, first.body.data.waybill);
      assert.equal(again.body.data.already_booked, true);
    }
    assert.equal(await balance(t, client), 1000 - EXPRESS);
  }));

Deno.test("client shipments: a request booked under its Idempotency-Key header before the body's idempotency_key won over it is answered, not booked again, when retried the same", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "1000");
    const headers = { "Idempotency-Key": "try-1" };
    // Stored as the code before stored it: the header named the request (the fingerprint leaves
    // the body's key out, so this is the very binding `row` under that header got then).
    const first = await post(t, client, "/client/shipments", ROW, headers);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    // spec: courier 4.1: the same request again books nothing new.
    const row = { ...ROW, idempotency_key: "order-7" };
    const again = await post(t, client, "/client/shipments", row, headers);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.data.waybill, first.body.data.waybill);
    assert.equal(again.body.data.already_booked, true);
    assert.equal(await balance(t, client), 1000 - EXPRESS);
  }));

Deno.test("client shipments: the cut-off passing between pricing and booking in one call prices again, once", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "1000");
    // 13:59:59 in Gaborone; each offer made moves the clock two seconds on, past the cut-off.
    t.clock.advanceBy(Date.parse("2026-11-02T11:59:59Z") - t.clock.now());
    const runtime = t.env.runtime;
    const ask = runtime.ask.bind(runtime);
    let offers = 0;
    runtime.ask = (async (...args: Parameters<typeof ask>) => {
      const r = await ask(...args);
      const command = args[3] as { kind?: string };
      if (args[0] === priceOfferActor && command.kind === "make") {
        offers++;
        t.clock.advanceBy(2_000);
      }
      return r;
    }) as typeof runtime.ask;
    // Without an identity, then with one: each is priced twice and booked once.
    const calls = [
      [{}, "2026-11-03", "2026-11-03T11:59:59Z"],
      [{ "Idempotency-Key": "cut-off-race" }, "2026-11-04", null],
    ] as const;
    for (const [i, [key, collectedOn, next]] of calls.entries()) {
      const booked = await post(t, client, "/client/shipments", ROW, key);
      assert.equal(booked.status, 201, JSON.stringify(booked.body));
      // Priced again after the cut-off: collected the next working day, as the answer says.
      assert.equal(booked.body.data.collection_on, collectedOn);
      assert.equal(offers, 2 * (i + 1));
      if (next) t.clock.advanceBy(Date.parse(next) - t.clock.now());
    }
    assert.equal(await balance(t, client), Number((1000 - 2 * EXPRESS).toFixed(2)));
  }));

Deno.test("client shipments: without unique_external_reference an order reference may repeat", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "1000");
    const ordered = { ...ROW, client_order_reference: "SHOP-77" };
    const o1 = await post(t, client, "/client/shipments", ordered);
    const o2 = await post(t, client, "/client/shipments", { ...ordered, contents: "Books" });
    assert.equal(o1.status, 201, JSON.stringify(o1.body));
    assert.equal(o2.status, 201, "no duplicate_order unless the client asked for it (7)");
    assert.notEqual(o2.body.data.waybill, o1.body.data.waybill);
    const csv = csvOf([line({ client_order_reference: "SHOP-77" })]);
    const o3 = await upload(t, client, csv);
    assert.equal(o3.body.data.booked, 1, JSON.stringify(o3.body));
    assert.equal(await balance(t, client), Number((1000 - 3 * EXPRESS).toFixed(2)));
  }));

Deno.test("client shipments: detail shows custody per piece and the timeline, never notes", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const other = await newClient(t, courier);
    const r = await post(t, client, "/client/shipments", {
      ...ROW,
      parcels: [DOMESTIC.parcels[0], DOMESTIC.parcels[0]],
    });
    const waybill = r.body.data.waybill as string;
    t.clock.advanceBy(3_600_000);
    const scan = (body: Record<string, unknown>) =>
      t.call("POST", `/business/courier/shipments/${waybill}/scans`, {
        key: courier.business.api_key,
        body,
      });
    assert.equal((await scan({ event: "collected", holder: "Driver Thabo" })).status, 201);
    t.clock.advanceBy(3_600_000);
    const depot = await scan({
      event: "received_at_depot",
      facility_id: "GBE-HUB",
      pieces: [`${waybill}-1`],
      note: "INTERNAL-NOTE shelf 4",
    });
    assert.equal(depot.status, 201, JSON.stringify(depot.body));

    const d = await t.call("GET", `/client/shipments/${waybill}`, { headers: clientKey(client) });
    assert.equal(d.status, 200, JSON.stringify(d.body));
    const v = d.body.data;
    assert.equal(v.status, "at_origin_facility");
    assert.match(v.tracking_url, /\/api\/s\//);
    assert.deepEqual(
      v.pieces.map((p: { id: string; holder: string; facility: string }) => [
        p.id,
        p.holder,
        p.facility,
      ]),
      // The depot holds the piece it received; the driver still has the other.
      [[`${waybill}-1`, null, "GBE-HUB"], [`${waybill}-2`, "Driver Thabo", null]],
    );
    assert.deepEqual(
      v.timeline.map((e: { event: string; pieces: string[] }) => [e.event, e.pieces.length]),
      [["booked", 2], ["collected", 2], ["received_at_depot", 1]],
    );
    assert.equal(v.timeline[2].facility, "GBE-HUB");
    assert.ok(Date.parse(v.timeline[1].at) < Date.parse(v.timeline[2].at));
    assert.equal(v.scans_total, 2);
    assert.ok(!JSON.stringify(v).includes("INTERNAL-NOTE"));
    // spec: courier 2.3: every shipment carries next_milestone, next_due_at, next_owner,
    // estimated_delivery_on, a headline status and a health value; the list rows too.
    const ops = await t.call("GET", `/business/courier/operations/${waybill}`, {
      key: courier.business.api_key,
    });
    assert.equal(v.next_milestone, "depot_dwell");
    assert.equal(v.next_owner, "courier");
    assert.equal(v.next_due_at, ops.body.data.next_due_at);
    assert.equal(v.health, ops.body.data.health);
    await t.settle();
    const list = await t.call("GET", "/client/shipments", { headers: clientKey(client) });
    const row = list.body.data.find((x: { waybill: string }) => x.waybill === waybill);
    assert.equal(row.next_milestone, "depot_dwell");
    assert.equal(row.next_owner, "courier");
    assert.equal(row.next_due_at, ops.body.data.next_due_at);
    assert.equal(row.health, ops.body.data.health);
    assert.equal(row.estimated_delivery_on, ops.body.data.estimated_delivery_on);

    // Another client's waybill does not exist for this one, nor does a made-up one.
    const theirs = await t.call("GET", `/client/shipments/${waybill}`, {
      headers: clientKey(other),
    });
    assert.equal(theirs.status, 404);
    assert.equal(theirs.body.code, "not_found");
    const none = await t.call("GET", "/client/shipments/WBNOPE", { headers: clientKey(client) });
    assert.equal(none.status, 404);
  }));

Deno.test("client shipments: refused while the courier platform is off", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const off = await t.call("PATCH", `/operator/businesses/${courier.business.id}`, {
      operator: true,
      body: { courier_platform_enabled: false },
    });
    assert.equal(off.status, 200);
    for (
      const [method, path] of [
        ["GET", "/client/shipments"],
        ["POST", "/client/shipments"],
        ["POST", "/client/shipments/bulk"],
        ["GET", "/client/shipments/csv/template"],
      ]
    ) {
      const r = await t.call(method!, path!, {
        headers: clientKey(client),
        ...(method === "POST" ? { body: { shipments: [ROW] } } : {}),
      });
      assert.equal(r.status, 403, `${method} ${path}`);
      assert.equal(r.body.code, "courier_platform_disabled");
    }
  }));

Deno.test("client shipments: the list finds a waybill typed in lower case, as search and the shipment read do; client references stay exact", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t);
    const waybill = await bookWaybill(t, client, { client_order_reference: "Ord-A" });
    // spec: courier 2.3: the waybill identifies the shipment, whatever case it is typed in
    // (GET /client/shipments/{waybill} and the courier's search read it so).
    const read = await t.call("GET", `/client/shipments/${waybill.toLowerCase()}`, {
      headers: clientKey(client),
    });
    assert.equal(read.status, 200, JSON.stringify(read.body));
    assert.deepEqual(
      (await list(t, client, `?reference=${waybill.toLowerCase()}`)).data.map((s) => s.waybill),
      [waybill],
    );
    assert.deepEqual((await list(t, client, "?reference=ORD-A")).data, []);
    assert.deepEqual(
      (await list(t, client, "?reference=Ord-A")).data.map((s) => s.waybill),
      [waybill],
    );
  }));
