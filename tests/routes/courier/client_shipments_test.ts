/**
 * The client's shipments (courier 4.6): the paged list, booking in one call, bulk and CSV booking
 * with their replay rules, the CSV template, and one shipment with its custody timeline.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { stringify } from "csv-stringify/sync";
import { type Answer, type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  bookWaybill,
  chargeOnly,
  type Client,
  clientKey,
  type Courier,
  DOMESTIC,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";
import { CSV_REQUIRED_COLUMNS, readCsv } from "../../../routes/courier/answers/shipment_csv.ts";
import { ShipmentRequest } from "../../../routes/courier/answers/booking.ts";
import {
  fingerprintOf,
  STOPPED_AFTER_CLAIM_MS,
  STOPPED_AFTER_EXPIRY_MS,
} from "../../../src/courier/flows/booking/mod.ts";
import { waybillOf } from "../../../src/courier/rules/waybill.ts";
import { bookingRequestActor, bookingRequestId } from "../../../actors/courier/booking_request.ts";
import { priceOfferActor } from "../../../actors/courier/price_offer.ts";
import { commandKind, holdAsk, whileFlaky } from "../../helpers/faults.ts";

/** DOMESTIC express: 65 transport + 13 express + 10.92 VAT. */
const EXPRESS = 88.92;
const ROW = { ...DOMESTIC, service_level: "express" };

async function ready(
  t: TestEnv,
  balance = "2000",
  settings: Record<string, unknown> = {},
): Promise<[Courier, Client]> {
  const courier = await newCourier(t);
  const client = await newClient(t, courier, settings);
  if (balance !== "0") await topUp(t, courier, client, balance);
  return [courier, client];
}

async function balance(t: TestEnv, client: Client): Promise<number> {
  const r = await t.call("GET", "/client/account", { headers: clientKey(client) });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.balance;
}

function post(
  t: TestEnv,
  client: Client,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  return t.call("POST", path, { headers: { ...clientKey(client), ...headers }, body });
}

async function list(t: TestEnv, client: Client, query = "") {
  await t.settle();
  const r = await t.call("GET", `/client/shipments${query}`, { headers: clientKey(client) });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as {
    data: { waybill: string; status: string; client_order_reference: string | null }[];
    meta: { limit: number; next_cursor: string | null };
  };
}

/** Sends a CSV as a text/csv body, or as the multipart field `file`. */
async function upload(
  t: TestEnv,
  client: Client,
  csv: string,
  o: { multipart?: boolean; key?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...clientKey(client) };
  if (o.key) headers["Idempotency-Key"] = o.key;
  let body: BodyInit = csv;
  if (o.multipart) {
    const form = new FormData();
    form.append("file", new File([csv], "orders.csv", { type: "text/csv" }));
    body = form;
  } else headers["Content-Type"] = "text/csv";
  const res = await t.app.request("/api/client/shipments/csv", { method: "POST", headers, body });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

function csvOf(rows: Record<string, unknown>[]): string {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return stringify([columns, ...rows.map((r) => columns.map((c) => String(r[c] ?? "")))]);
}

/** One CSV line's fields for DOMESTIC, express. */
function line(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const { parcels: [parcel], ...rest } = DOMESTIC;
  return { ...rest, ...parcel, service_level: "express", ...extra };
}

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

Deno.test("client shipments: five identical requests at once book one shipment, charged once", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "1000");
    const answers = await Promise.all(
      Array.from(
        { length: 5 },
        () => post(t, client, "/client/shipments", { ...ROW, idempotency_key: "same-5" }),
      ),
    );
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 200, 200, 200, 201]);
    assert.equal(new Set(answers.map((a) => a.body.data.waybill)).size, 1);
    assert.equal(await balance(t, client), Number((1000 - EXPRESS).toFixed(2)));
  }));

Deno.test("client shipments: a retry after a crash resumes its offer, or prices again once expired", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, "1000");
    const runtime = t.env.runtime;
    const tenant = courier.business.id;
    /** The request bound to `reference` as if the process stopped right after. */
    const crashed = async (key: string, reference: string, body: Record<string, unknown>) => {
      const r = await runtime.ask(bookingRequestActor, tenant, bookingRequestId(client.id, key), {
        kind: "begin",
        reference,
        fingerprint: await fingerprintOf(ShipmentRequest.parse(body)),
      });
      assert.ok(r.ok);
    };
    // Stopped before the offer was made: the retry makes it and books it.
    const one = { ...ROW, idempotency_key: "crash-1" };
    await crashed("key:crash-1", "prc_crashed1", one);
    const r1 = await post(t, client, "/client/shipments", one);
    assert.equal(r1.status, 201, JSON.stringify(r1.body));
    assert.equal(r1.body.data.waybill, await waybillOf(tenant, "prc_crashed1"));

    // Stopped after the offer was made: past its hold, the retry prices afresh.
    const priced = await post(t, client, "/client/prices", DOMESTIC);
    const held = await runtime.ask(priceOfferActor, tenant, priced.body.data.prices_reference, {
      kind: "get",
    });
    assert.ok(held.ok && held.reply);
    for (const ref of ["prc_crashed2", "prc_crashed3"]) {
      const made = await runtime.ask(priceOfferActor, tenant, ref, {
        kind: "make",
        offer: { ...held.reply, reference: ref },
      });
      assert.ok(made.ok);
    }
    const two = { ...ROW, idempotency_key: "crash-2" };
    await crashed("key:crash-2", "prc_crashed2", two);
    await crashed("key:crash-3", "prc_crashed3", { ...ROW, idempotency_key: "crash-3" });
    t.clock.advanceBy(31 * 60_000);
    const r2 = await post(t, client, "/client/shipments", two);
    assert.equal(r2.status, 201, JSON.stringify(r2.body));
    assert.notEqual(r2.body.data.prices_reference, "prc_crashed2");
    const again = await post(t, client, "/client/shipments", two);
    assert.equal(again.status, 200);
    assert.equal(again.body.data.waybill, r2.body.data.waybill);
    // Another request under a key whose expired offer booked nothing takes the key over.
    const three = { ...ROW, idempotency_key: "crash-3", contents: "Bandages" };
    const r3 = await post(t, client, "/client/shipments", three);
    assert.equal(r3.status, 201, JSON.stringify(r3.body));
    assert.equal(await balance(t, client), Number((1000 - 3 * EXPRESS).toFixed(2)));
  }));

Deno.test("client shipments: a refused one-shot booking charges nothing and frees its key", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, "50");
    const key = { "Idempotency-Key": "k-1" };
    const poor = await post(t, client, "/client/shipments", ROW, key);
    assert.equal(poor.status, 422);
    assert.equal(poor.body.code, "insufficient_balance");
    const unknown = await post(t, client, "/client/shipments", { ...ROW, service_level: "x" }, key);
    assert.equal(unknown.status, 422);
    assert.equal(unknown.body.code, "validation_failed");
    assert.match(unknown.body.message, /service_level/);
    const missing = await post(t, client, "/client/shipments", DOMESTIC, key);
    assert.equal(missing.status, 422);
    assert.deepEqual(missing.body.errors.map((e: { path: string }) => e.path), ["service_level"]);
    assert.equal(await balance(t, client), 50);
    // After a top-up (and past the first prices' hold) the same key books.
    t.clock.advanceBy(31 * 60_000);
    await topUp(t, courier, client, "100");
    const booked = await post(t, client, "/client/shipments", ROW, key);
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    assert.equal(await balance(t, client), Number((150 - EXPRESS).toFixed(2)));
  }));

Deno.test("client shipments: bulk answers each row; a retry after fixing a bad row books none twice", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "1000");
    const batch = [ROW, { ...ROW, recipient_phone: "71234567" }, { ...ROW, contents: "Vaccines" }];
    const key = { "Idempotency-Key": "batch-2026-11-02" };
    const r = await post(t, client, "/client/shipments/bulk", { shipments: batch }, key);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const [a, bad, c] = r.body.data.results;
    assert.equal(r.body.data.booked, 2);
    assert.equal(r.body.data.failed, 1);
    assert.equal(a.index, 0);
    assert.match(a.waybill, /^WB/);
    assert.match(a.tracking_url, /\/api\/s\//);
    assert.equal(bad.index, 1);
    assert.equal(bad.error.code, "validation_failed");
    assert.match(bad.error.message, /recipient_phone/);
    assert.equal(c.index, 2);
    assert.equal(await balance(t, client), Number((1000 - 2 * EXPRESS).toFixed(2)));

    batch[1] = ROW;
    const retry = await post(t, client, "/client/shipments/bulk", { shipments: batch }, key);
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    const [a2, fixed, c2] = retry.body.data.results;
    assert.deepEqual([a2.waybill, a2.already_booked], [a.waybill, true]);
    assert.deepEqual([c2.waybill, c2.already_booked], [c.waybill, true]);
    assert.equal(fixed.already_booked, false);
    assert.equal(new Set([a.waybill, fixed.waybill, c.waybill]).size, 3);
    assert.equal(await balance(t, client), Number((1000 - 3 * EXPRESS).toFixed(2)));
    await t.settle();
    assert.equal((await list(t, client)).data.length, 3);
  }));

Deno.test("client shipments: a reference twice in one bulk or CSV is duplicate_order, never request_in_progress", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "2000", { unique_external_reference: true });
    // spec: courier 7: the second row is a repeated external reference, answered as a repeated
    // booking would be (a changed one duplicate_order, the same one already_booked), every time.
    const shipments = [0, 1, 2].flatMap((i) => [
      { ...ROW, client_order_reference: `DUP-${i}`, recipient_name: "A" },
      { ...ROW, client_order_reference: `DUP-${i}`, recipient_name: "B" },
    ]);
    shipments.push({ ...shipments[0]! });
    const r = await post(t, client, "/client/shipments/bulk", { shipments });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const results = r.body.data.results as {
      index: number;
      waybill?: string;
      already_booked?: boolean;
      error?: { code: string };
    }[];
    for (const i of [0, 2, 4]) {
      assert.match(results[i]!.waybill ?? "", /^WB/, JSON.stringify(r.body));
    }
    for (const i of [1, 3, 5]) {
      assert.equal(results[i]!.error?.code, "duplicate_order", JSON.stringify(results[i]));
    }
    assert.deepEqual([results[6]!.waybill, results[6]!.already_booked], [
      results[0]!.waybill,
      true,
    ]);
    assert.equal(await balance(t, client), Number((2000 - 3 * EXPRESS).toFixed(2)));
    // Rows with keys of their own repeating one order reference: the later row, every time.
    const keyed = [0, 1, 2].flatMap((i) => [
      { ...ROW, client_order_reference: `KEYED-${i}`, idempotency_key: `k-${i}-a` },
      { ...ROW, client_order_reference: `KEYED-${i}`, idempotency_key: `k-${i}-b` },
    ]);
    const k = await post(t, client, "/client/shipments/bulk", { shipments: keyed });
    const keyedResults = k.body.data.results as { waybill?: string; error?: { code: string } }[];
    for (const i of [0, 2, 4]) assert.match(keyedResults[i]!.waybill ?? "", /^WB/);
    for (const i of [1, 3, 5]) {
      assert.equal(keyedResults[i]!.error?.code, "duplicate_order", JSON.stringify(k.body));
    }

    const csv = csvOf([0, 1, 2].flatMap((i) => [
      line({ client_order_reference: `CSVD-${i}`, recipient_name: "A" }),
      line({ client_order_reference: `CSVD-${i}`, recipient_name: "B" }),
    ]));
    const up = await upload(t, client, csv);
    assert.equal(up.status, 200, JSON.stringify(up.body));
    const lines = up.body.data.results as { line: number; waybill?: string; code?: string }[];
    for (const i of [0, 2, 4]) assert.match(lines[i]!.waybill ?? "", /^WB/, JSON.stringify(lines));
    for (const i of [1, 3, 5]) {
      assert.equal(lines[i]!.code, "duplicate_order", JSON.stringify(lines));
    }
  }));

Deno.test("client shipments: a bulk row's service_level is read as POST /client/shipments reads it (spaces around it trimmed)", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "1000");
    const spaced = { ...ROW, service_level: " express " };
    const one = await post(t, client, "/client/shipments", spaced);
    assert.equal(one.status, 201, JSON.stringify(one.body));
    const r = await post(t, client, "/client/shipments/bulk", { shipments: [spaced] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const [row] = r.body.data.results;
    assert.match(row.waybill ?? "", /^WB/, JSON.stringify(row));
    assert.equal(r.body.data.booked, 1);
    assert.equal(await balance(t, client), Number((1000 - 2 * EXPRESS).toFixed(2)));
  }));

Deno.test("client shipments: bulk over 200 rows is refused whole", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "100");
    const r = await post(t, client, "/client/shipments/bulk", {
      shipments: Array.from({ length: 201 }, () => ROW),
    });
    assert.equal(r.status, 422);
    assert.equal(r.body.code, "validation_failed");
    assert.match(r.body.message, /at most 200 shipments/);
    assert.equal(await balance(t, client), 100);
  }));

Deno.test("client shipments: bulk with a balance for some rows books those and charges no more", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, (EXPRESS * 2 + 5).toFixed(2), {
      unique_external_reference: true,
    });
    const shipments = Array.from(
      { length: 5 },
      (_, i) => ({ ...ROW, client_order_reference: `PO-${i}` }),
    );
    const r = await post(t, client, "/client/shipments/bulk", { shipments });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const results = r.body.data.results as { waybill?: string; error?: { code: string } }[];
    assert.equal(results.filter((x) => x.waybill).length, 2);
    assert.deepEqual(
      results.filter((x) => x.error).map((x) => x.error!.code),
      ["insufficient_balance", "insufficient_balance", "insufficient_balance"],
    );
    assert.equal(await balance(t, client), 5);

    await topUp(t, courier, client, "500");
    const retry = await post(t, client, "/client/shipments/bulk", { shipments });
    const again = retry.body.data.results as { waybill: string; already_booked: boolean }[];
    assert.equal(retry.body.data.failed, 0);
    assert.equal(again.filter((x) => x.already_booked).length, 2);
    for (const [i, x] of results.entries()) {
      if (x.waybill) assert.equal(again[i]!.waybill, x.waybill);
    }
    assert.equal(await balance(t, client), Number((505 - 3 * EXPRESS).toFixed(2)));
  }));

Deno.test("client shipments: the CSV template downloads, and books as uploaded", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "1000");
    const res = await t.app.request("/api/client/shipments/csv/template", {
      headers: clientKey(client),
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("Content-Type")!, /^text\/csv/);
    assert.match(res.headers.get("Content-Disposition")!, /attachment/);
    const template = await res.text();
    const [header, example, rest] = template.split("\n");
    for (const c of CSV_REQUIRED_COLUMNS) assert.ok(header!.split(",").includes(c), c);
    assert.ok(example);
    assert.equal(rest, "");

    const booked = await upload(t, client, template, { multipart: true });
    assert.equal(booked.status, 200, JSON.stringify(booked.body));
    assert.equal(booked.body.data.booked, 1);
    assert.equal(booked.body.data.failed, 0);
    const [only] = booked.body.data.results;
    assert.equal(only.line, 2);
    assert.match(only.waybill, /^WB/);

    const csv = csvOf([line({ client_order_reference: "A-1" }), line({ pieces: 3 })]);
    const two = await upload(t, client, csv);
    assert.equal(two.status, 200, JSON.stringify(two.body));
    assert.deepEqual(two.body.data.results.map((x: { line: number }) => x.line), [2, 3]);
    const detail = await t.call("GET", `/client/shipments/${two.body.data.results[1].waybill}`, {
      headers: clientKey(client),
    });
    assert.equal(detail.body.data.parcels.length, 3);
    assert.equal(detail.body.data.pieces.length, 3);
  }));

Deno.test("client shipments: a CSV's bad lines answer their line numbers and columns", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "1000");
    const rows = csvOf([
      line(),
      line({ weight_kg: "heavy", recipient_phone: "71234567" }),
      line({ to_country: "" }),
      // A quoted address over two lines: the next line's number counts both.
      line({ recipient_address: "Plot 9\nBlock 8", service_level: "overnight" }),
      line({ pieces: 0 }),
      line(),
    ]);
    // A blank line before the last: skipped, and counted.
    const last = rows.lastIndexOf("\n", rows.length - 2) + 1;
    const csv = `${rows.slice(0, last)}\n${rows.slice(last)}`;
    const r = await upload(t, client, csv, { multipart: true });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const results = r.body.data.results;
    assert.equal(r.body.data.booked, 2);
    assert.equal(r.body.data.failed, 4);
    const byLine = Object.fromEntries(results.map((x: { line: number }) => [x.line, x]));
    assert.deepEqual(Object.keys(byLine).map(Number), [2, 3, 4, 5, 7, 9]);
    assert.match(byLine[2].waybill, /^WB/);
    assert.deepEqual(byLine[3].errors.map((e: { column: string }) => e.column).sort(), [
      "recipient_phone",
      "weight_kg",
    ]);
    assert.match(
      byLine[3].errors.find((e: { column: string }) => e.column === "weight_kg").message,
      /not a number: heavy/,
    );
    assert.deepEqual(byLine[4].errors, [{ column: "to_country", message: "required" }]);
    assert.equal(byLine[5].code, "validation_failed");
    assert.equal(byLine[5].errors[0].column, "service_level");
    assert.equal(byLine[7].errors[0].column, "pieces");
    assert.match(byLine[9].waybill, /^WB/);

    // Every problem of a line in one answer: an unknown service level beside bad columns.
    const both = await upload(t, client, csvOf([line({ service_level: "nope", weight_kg: 0 })]));
    assert.equal(both.status, 200, JSON.stringify(both.body));
    const [only] = both.body.data.results;
    assert.deepEqual(only.errors.map((e: { column: string }) => e.column).sort(), [
      "service_level",
      "weight_kg",
    ]);
    assert.match(
      only.errors.find((e: { column: string }) => e.column === "service_level").message,
      /no such service level \(the courier's: express, economy\): nope/,
    );
    const bulk = await post(t, client, "/client/shipments/bulk", {
      shipments: [{ ...ROW, service_level: "nope", recipient_phone: "71234567" }],
    });
    assert.equal(bulk.status, 200, JSON.stringify(bulk.body));
    const [row] = bulk.body.data.results;
    assert.deepEqual(row.error.errors.map((e: { path: string }) => e.path).sort(), [
      "recipient_phone",
      "service_level",
    ]);

    const missing = await upload(t, client, "recipient_name,weight_kg\nNeo,2\n");
    assert.equal(missing.status, 422);
    assert.match(missing.body.message, /missing columns: service_level, from_country/);
    const notCsv = await t.call("POST", "/client/shipments/csv", {
      headers: clientKey(client),
      body: { rows: [] },
    });
    assert.equal(notCsv.status, 422);
    assert.equal(await balance(t, client), Number((1000 - 2 * EXPRESS).toFixed(2)));
  }));

Deno.test("client shipments: uploading a CSV again books none of its lines twice", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "1000", { unique_external_reference: true });
    // Lines without an order reference are known by the upload's key and their content.
    const csv = csvOf([line(), line(), line({ contents: "Syringes" })]);
    const first = await upload(t, client, csv, { key: "upload-1" });
    assert.equal(first.body.data.booked, 3, JSON.stringify(first.body));
    const waybills = first.body.data.results.map((x: { waybill: string }) => x.waybill);
    assert.equal(new Set(waybills).size, 3);
    // Again, with the failed-free lines reordered: each answers the shipment it booked.
    const again = await upload(t, client, csvOf([line({ contents: "Syringes" }), line(), line()]), {
      key: "upload-1",
      multipart: true,
    });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.ok(again.body.data.results.every((x: { already_booked: boolean }) => x.already_booked));
    assert.deepEqual(
      again.body.data.results.map((x: { waybill: string }) => x.waybill).sort(),
      [...waybills].sort(),
    );
    // Order references make lines known without a key (unique_external_reference).
    const ordered = csvOf([line({ client_order_reference: "R-1" })]);
    const o1 = await upload(t, client, ordered);
    const o2 = await upload(t, client, ordered);
    assert.equal(o2.body.data.results[0].waybill, o1.body.data.results[0].waybill);
    assert.equal(o2.body.data.results[0].already_booked, true);
    assert.equal(await balance(t, client), Number((1000 - 4 * EXPRESS).toFixed(2)));
  }));

Deno.test("client shipments: a CSV over the line cap is refused before booking", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "100");
    const one = csvOf([line()]).split("\n")[1]!;
    const csv = csvOf([line()]) + `${one}\n`.repeat(5_000);
    const r = await upload(t, client, csv);
    assert.equal(r.status, 422);
    assert.match(r.body.message, /at most 5000 lines/);
    assert.equal(await balance(t, client), 100);
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

Deno.test("client shipments CSV: every line is numbered where it starts (blank and quoted lines)", () => {
  const header = [...CSV_REQUIRED_COLUMNS];
  const cell = fc.stringMatching(/^[a-z ,"\n]{0,6}$/);
  fc.assert(
    fc.property(
      fc.array(
        fc.record({ cells: fc.array(cell, { minLength: 7, maxLength: 7 }), blank: fc.nat(2) }),
        {
          minLength: 1,
          maxLength: 12,
        },
      ),
      (rows) => {
        let text = stringify([header]);
        const expected: number[] = [];
        for (const r of rows) {
          text += "\n".repeat(r.blank);
          const cells = ["x", ...r.cells.slice(1)]; // never a wholly blank line
          expected.push(text.split("\n").length);
          text += stringify([cells]);
        }
        assert.deepEqual(readCsv(text).lines.map((l) => l.line), expected);
      },
    ),
    { numRuns: 200 },
  );
});

Deno.test("client shipments CSV: with Windows line ends (CRLF, in quoted cells too) every line is numbered where it starts", () => {
  const header = [...CSV_REQUIRED_COLUMNS];
  const windows = { record_delimiter: "windows" } as const;
  const cell = fc.stringMatching(/^[a-z ,"\n]{0,6}$/).map((s) => s.replaceAll("\n", "\r\n"));
  fc.assert(
    fc.property(
      fc.array(
        fc.record({ cells: fc.array(cell, { minLength: 7, maxLength: 7 }), blank: fc.nat(2) }),
        { minLength: 1, maxLength: 12 },
      ),
      (rows) => {
        let text = stringify([header], windows);
        const expected: number[] = [];
        for (const r of rows) {
          text += "\r\n".repeat(r.blank);
          const cells = ["x", ...r.cells.slice(1)]; // never a wholly blank line
          // A CRLF is one line end, as any editor shows the file.
          expected.push(text.split("\r\n").length);
          text += stringify([cells], windows);
        }
        assert.deepEqual(readCsv(text).lines.map((l) => l.line), expected);
      },
    ),
    { numRuns: 200 },
  );
});

Deno.test("client shipments CSV: a country that is not ISO 3166-1 (ZZ) is a line error naming its column", () => {
  const { lines } = readCsv(csvOf([line({ from_country: "ZZ" }), line()]));
  assert.deepEqual(lines.map((l) => "errors" in l ? l.errors : "ok"), [
    [{ column: "from_country", message: "not an ISO 3166-1 alpha-2 country code: ZZ" }],
    "ok",
  ]);
});

Deno.test("client shipments CSV: a file with the NUL character is refused whole, naming the file: Postgres cannot keep it", () => {
  assert.throws(
    () => readCsv(csvOf([line({ contents: "Medicines\u0000" })])),
    (e: { extra?: { errors?: { path: string }[] } }) => e.extra?.errors?.[0]?.path === "file",
  );
});

Deno.test("client shipments: a key whose booking was charged before a crash is not taken over by another request", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, "1000");
    const tenant = courier.business.id;
    const first = { ...ROW, idempotency_key: "paid-1" };
    // The request stopped right after its charge: bound, priced and charged, no shipment.
    const priced = await post(t, client, "/client/prices", DOMESTIC);
    const reference = priced.body.data.prices_reference;
    const waybill = waybillOf(tenant, reference);
    const bound = await t.env.runtime.ask(
      bookingRequestActor,
      tenant,
      bookingRequestId(client.id, "key:paid-1"),
      { kind: "begin", reference, fingerprint: await fingerprintOf(ShipmentRequest.parse(first)) },
    );
    assert.ok(bound.ok);
    await chargeOnly(t, tenant, client.id, waybill);
    t.clock.advanceBy(31 * 60_000);
    // Another request under the key does not free it: the charge stands for the first one.
    const other = await post(t, client, "/client/shipments", { ...first, contents: "Bandages" });
    assert.equal(other.status, 409, JSON.stringify(other.body));
    // The first request sent again completes its booking, charged once.
    const retry = await post(t, client, "/client/shipments", first);
    assert.equal(retry.status, 201, JSON.stringify(retry.body));
    assert.equal(retry.body.data.waybill, waybill);
    assert.equal(await balance(t, client), Number((1000 - EXPRESS).toFixed(2)));
  }));

Deno.test("client shipments: a request sent again while its first attempt is charging as its prices expire books once", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "1000");
    const runtime = t.env.runtime;
    const ask = runtime.ask.bind(runtime);
    /** The next charge waits until `open` is called (a store slow to take it, a busy account). */
    let held: { reached: () => void; gate: Promise<void> } | null = null;
    runtime.ask = (async (...args: Parameters<typeof ask>) => {
      const command = args[3] as { kind?: string };
      const hold = held;
      if (command.kind === "charge_booking" && hold) {
        held = null;
        hold.reached();
        await hold.gate;
      }
      return await ask(...args);
    }) as typeof runtime.ask;
    const slowCharge = async (body: Record<string, unknown>, expire: () => void) => {
      let reached!: () => void, open!: () => void;
      const atCharge = new Promise<void>((r) => (reached = r));
      held = { reached, gate: new Promise<void>((r) => (open = r)) };
      const first = post(t, client, "/client/shipments", body);
      await atCharge;
      // The first attempt checked its prices; they expire before its charge is taken.
      expire();
      const twin = await post(t, client, "/client/shipments", body);
      open();
      return { first: await first, twin };
    };
    // spec: courier 4.1: the same request again books nothing new. The first attempt may still
    // charge the prices it checked: the twin is told to retry, never priced and booked again.
    const one = { ...ROW, idempotency_key: "slow-1" };
    const hold = await slowCharge(one, () => t.clock.advanceBy(30 * 60_000 + 1));
    assert.equal(hold.first.status, 201, JSON.stringify(hold.first.body));
    assert.equal(hold.twin.status, 409, JSON.stringify(hold.twin.body));
    assert.equal(hold.twin.body.code, "request_in_progress");
    const again = await post(t, client, "/client/shipments", one);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.data.waybill, hold.first.body.data.waybill);
    assert.equal(await balance(t, client), Number((1000 - EXPRESS).toFixed(2)));

    // The same when the cut-off overtakes the prices (13:59:59 in Gaborone, then 14:00).
    t.clock.advanceBy(Date.parse("2026-11-03T11:59:59Z") - t.clock.now());
    const two = { ...ROW, idempotency_key: "slow-2" };
    const cut = await slowCharge(two, () => t.clock.advanceBy(1_001));
    assert.equal(cut.first.status, 201, JSON.stringify(cut.first.body));
    assert.equal(cut.twin.status, 409, JSON.stringify(cut.twin.body));
    assert.equal(cut.twin.body.code, "request_in_progress");
    t.clock.advanceBy(STOPPED_AFTER_EXPIRY_MS + 1);
    const after = await post(t, client, "/client/shipments", two);
    assert.equal(after.status, 200, JSON.stringify(after.body));
    assert.equal(after.body.data.waybill, cut.first.body.data.waybill);
    assert.equal(await balance(t, client), Number((1000 - 2 * EXPRESS).toFixed(2)));

    // A first attempt that stopped for good before its charge is priced again by the retry, once
    // the cut-off overtook its prices that long ago (not only once their hold has passed).
    t.clock.advanceBy(Date.parse("2026-11-04T11:59:59Z") - t.clock.now());
    const three = { ...ROW, idempotency_key: "stopped-3" };
    const failed = await whileFlaky(t.env, {
      fails: (_type, command) => (command as { kind?: string }).kind === "charge_booking",
    }, async () => {
      assert.equal((await post(t, client, "/client/shipments", three)).status, 500);
    });
    assert.equal(failed, 1);
    t.clock.advanceBy(1_000 + STOPPED_AFTER_EXPIRY_MS + 1);
    const retried = await post(t, client, "/client/shipments", three);
    assert.equal(retried.status, 201, JSON.stringify(retried.body));
    assert.equal(retried.body.data.collection_on, "2026-11-05", "priced again after the cut-off");
    assert.equal(await balance(t, client), Number((1000 - 3 * EXPRESS).toFixed(2)));
  }));

Deno.test("client shipments: a first attempt stalled before its charge until long past its prices' expiry never charges once its retry priced again", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "1000");
    const body = { ...ROW, idempotency_key: "stall-1" };
    // The first attempt checked its prices in time, then stalled before its charge (a GC pause,
    // a slow store) for far longer than STOPPED_AFTER_EXPIRY_MS after they expired.
    const charge = holdAsk(t.env.runtime, commandKind("charge_booking"));
    const first = post(t, client, "/client/shipments", body);
    await charge.reached;
    t.clock.advanceBy(30 * 60_000 + STOPPED_AFTER_EXPIRY_MS + 10 * 60_000);
    const retry = await post(t, client, "/client/shipments", body);
    assert.equal(retry.status, 201, JSON.stringify(retry.body));
    // spec: courier 4.1: the same request again books nothing new: the first attempt, waking,
    // finds its charge withdrawn and answers the one booking the request made.
    charge.open();
    const late = await first;
    assert.equal(late.status, 200, JSON.stringify(late.body));
    assert.equal(late.body.data.already_booked, true);
    assert.equal(late.body.data.waybill, retry.body.data.waybill);
    assert.equal(await balance(t, client), Number((1000 - EXPRESS).toFixed(2)), "charged once");
    assert.deepEqual((await list(t, client)).data.map((s) => s.waybill), [retry.body.data.waybill]);
  }));

Deno.test("client shipments: a first attempt stalled before its reference claim, whose retry priced again and booked, wakes to that booking, not a duplicate of it", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "1000", { unique_external_reference: true });
    const body = { ...ROW, client_order_reference: "ORD-STALL-3", idempotency_key: "stall-3" };
    // The first attempt checked its prices in time, then stalled before claiming its reference.
    const claim = holdAsk(t.env.runtime, commandKind("claim"));
    const first = post(t, client, "/client/shipments", body);
    await claim.reached;
    t.clock.advanceBy(30 * 60_000 + STOPPED_AFTER_EXPIRY_MS + 10 * 60_000);
    const retry = await post(t, client, "/client/shipments", body);
    assert.equal(retry.status, 201, JSON.stringify(retry.body));
    // spec: courier 4.1: the same request again books nothing new and answers its booking: the
    // reference its retry claimed is this request's own, not a duplicate order.
    claim.open();
    const late = await first;
    assert.equal(late.status, 200, JSON.stringify(late.body));
    assert.equal(late.body.data.already_booked, true);
    assert.equal(late.body.data.waybill, retry.body.data.waybill);
    assert.equal(await balance(t, client), Number((1000 - EXPRESS).toFixed(2)), "charged once");
    assert.equal((await list(t, client)).data.length, 1);
  }));

Deno.test("client shipments: a first attempt whose prices expired while a retry books them does not free the key for a second booking", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "1000");
    const runtime = t.env.runtime;
    const body = { ...ROW, idempotency_key: "stall-4" };
    // The first attempt bound its key, then stalled before making its offer.
    const make = holdAsk(runtime, commandKind("make", priceOfferActor.type));
    const first = post(t, client, "/client/shipments", body);
    await make.reached;
    // Its retry made the offer, checked it in time, and stalled before its charge.
    const charge = holdAsk(runtime, commandKind("charge_booking"));
    const retried = post(t, client, "/client/shipments", body);
    await charge.reached;
    t.clock.advanceBy(30 * 60_000 + 60_000);
    // The first attempt wakes to expired prices: priced again, it must not book a second time
    // while its retry may still charge the first prices.
    make.open();
    const woke = await first;
    charge.open();
    const retry = await retried;
    // spec: courier 4.1: one booking and one charge per idempotency key.
    const booked = [woke, retry].filter((a) => a.status === 200 || a.status === 201);
    assert.ok(booked.length > 0, JSON.stringify([woke.body, retry.body]));
    for (const a of booked) assert.equal(a.body.data.waybill, booked[0]!.body.data.waybill);
    assert.equal((await list(t, client)).data.length, 1, "one shipment");
    assert.equal(await balance(t, client), Number((1000 - EXPRESS).toFixed(2)), "charged once");
  }));

Deno.test("client shipments: a first attempt that charges just before its retry withdraws it is the booking the retry answers", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "1000");
    const runtime = t.env.runtime;
    const body = { ...ROW, idempotency_key: "stall-2" };
    const charge = holdAsk(runtime, commandKind("charge_booking"));
    const first = post(t, client, "/client/shipments", body);
    await charge.reached;
    t.clock.advanceBy(30 * 60_000 + STOPPED_AFTER_EXPIRY_MS + 10 * 60_000);
    // The retry found no charge and goes to withdraw it; the first attempt charges in between.
    const withdraw = holdAsk(runtime, commandKind("withdraw_booking"));
    const retried = post(t, client, "/client/shipments", body);
    const raced = await Promise.race([
      withdraw.reached.then(() => "withdrawing"),
      retried.then(() => "answered"),
    ]);
    charge.open();
    const booked = await first;
    withdraw.open();
    const retry = await retried;
    assert.equal(raced, "withdrawing", JSON.stringify(retry.body));
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    assert.equal(retry.body.data.already_booked, true);
    assert.equal(retry.body.data.waybill, booked.body.data.waybill);
    assert.equal(await balance(t, client), Number((1000 - EXPRESS).toFixed(2)), "charged once");
    assert.equal((await list(t, client)).data.length, 1);
  }));

Deno.test("client shipments: a retry whose prices had their charge withdrawn while they still held is priced again at once: the reference's booking is its answer, not request_in_progress", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "1000", { unique_external_reference: true });
    const runtime = t.env.runtime;
    const body = { ...ROW, client_order_reference: "ORD-FENCED", idempotency_key: "fenced-1" };
    // The first attempt claims the reference, then stalls before its charge.
    const first = holdAsk(runtime, commandKind("charge_booking"));
    const stalled = post(t, client, "/client/shipments", body);
    await first.reached;
    t.clock.advanceBy(STOPPED_AFTER_CLAIM_MS + 1_000);
    // A retry resumes the same prices (they hold 30 minutes), passes the claim it holds, and
    // stalls before its charge too.
    const second = holdAsk(runtime, commandKind("charge_booking"));
    const retried = post(t, client, "/client/shipments", body);
    await second.reached;
    // Another request of the reference takes the claim over (held past STOPPED_AFTER_CLAIM_MS):
    // the prices' charge is withdrawn, and it books.
    const other = await post(t, client, "/client/shipments", { ...body, idempotency_key: "x" });
    assert.equal(other.status, 201, JSON.stringify(other.body));
    // spec: courier 4.1, 4.2: the retry's charge is answered the withdrawal, so those prices can
    // never be booked, whatever the clock says: priced again at once, the request answers what a
    // fresh booking answers (the reference is the other's), not request_in_progress until the
    // prices expire.
    second.open();
    const retry = await retried;
    assert.equal(retry.status, 409, JSON.stringify(retry.body));
    assert.equal(retry.body.code, "duplicate_order");
    assert.equal(retry.body.waybill, other.body.data.waybill);
    first.open();
    const late = await stalled;
    assert.equal(late.status, 409, JSON.stringify(late.body));
    assert.equal(late.body.code, "duplicate_order");
    const again = await post(t, client, "/client/shipments", body);
    assert.equal(again.body.code, "duplicate_order", JSON.stringify(again.body));
    assert.equal(again.body.waybill, other.body.data.waybill);
    assert.equal(await balance(t, client), Number((1000 - EXPRESS).toFixed(2)), "charged once");
    assert.deepEqual((await list(t, client)).data.map((s) => s.waybill), [other.body.data.waybill]);
  }));

Deno.test("client shipments: prices withdrawn by an attempt that stopped before freeing its key are priced again at once by the next attempt, without a claim", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "1000");
    const runtime = t.env.runtime;
    const body = { ...ROW, idempotency_key: "fenced-2" };
    // The first attempt binds the key and stalls before making its offer; a retry makes it,
    // checks it in time and stalls before its charge.
    const make = holdAsk(runtime, commandKind("make", priceOfferActor.type));
    const first = post(t, client, "/client/shipments", body);
    await make.reached;
    const charge = holdAsk(runtime, commandKind("charge_booking"));
    const retried = post(t, client, "/client/shipments", body);
    await charge.reached;
    // Just past the hold: within STOPPED_AFTER_EXPIRY_MS, a booking may still look on its way.
    t.clock.advanceBy(30 * 60_000 + 1_000);
    // The first attempt wakes to expired prices and withdraws their charge, then stops (its
    // process ends) before freeing the key.
    const release = holdAsk(
      runtime,
      (type, command) =>
        type === bookingRequestActor.type && (command as { kind?: string }).kind === "release",
    );
    make.open();
    await release.reached;
    // spec: courier 4.1, 4.6: the retry's charge is answered the withdrawal: those prices can
    // never be booked, so the request is priced again at once and booked, not left in progress.
    charge.open();
    const retry = await retried;
    assert.equal(retry.status, 201, JSON.stringify(retry.body));
    release.open();
    const woke = await first;
    assert.equal(woke.status, 200, JSON.stringify(woke.body));
    assert.equal(woke.body.data.waybill, retry.body.data.waybill);
    assert.equal(await balance(t, client), Number((1000 - EXPRESS).toFixed(2)), "charged once");
    assert.equal((await list(t, client)).data.length, 1);
  }));

Deno.test("client shipments: a key whose request stopped before its offer was made is given to another request once it has stalled", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, "1000");
    const tenant = courier.business.id;
    const runtime = t.env.runtime;
    const first = { ...ROW, idempotency_key: "lost-1" };
    // The request stopped right after binding its key: no offer, no charge, no shipment.
    const bound = await runtime.ask(
      bookingRequestActor,
      tenant,
      bookingRequestId(client.id, "key:lost-1"),
      {
        kind: "begin",
        reference: "prc_lost1",
        fingerprint: await fingerprintOf(ShipmentRequest.parse(first)),
      },
    );
    assert.ok(bound.ok);
    const other = { ...first, contents: "Bandages" };
    // Still within a request's time: it may be making its offer now.
    const early = await post(t, client, "/client/shipments", other);
    assert.equal(early.status, 409, JSON.stringify(early.body));
    assert.equal(early.body.code, "request_in_progress");
    t.clock.advanceBy(5 * 60_000);
    const taken = await post(t, client, "/client/shipments", other);
    assert.equal(taken.status, 201, JSON.stringify(taken.body));
    assert.notEqual(taken.body.data.waybill, await waybillOf(tenant, "prc_lost1"));
    // The first request, should it wake, can no longer price or book under its reference.
    const late = await post(t, client, "/client/shipments", first);
    assert.equal(late.status, 409, JSON.stringify(late.body));
    assert.equal(late.body.code, "idempotency_key_reused");
    const offer = await runtime.read(priceOfferActor, tenant, "prc_lost1", { kind: "get" });
    assert.equal(offer.ok, false);
    assert.equal(await balance(t, client), Number((1000 - EXPRESS).toFixed(2)));
  }));

Deno.test("client shipments: a request whose key another request holds answers 409 request_in_progress with Retry-After", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, "1000");
    const first = { ...ROW, idempotency_key: "held-1" };
    // Another request holds the key and may be making its offer now.
    const bound = await t.env.runtime.ask(
      bookingRequestActor,
      courier.business.id,
      bookingRequestId(client.id, "key:held-1"),
      {
        kind: "begin",
        reference: "prc_held1",
        fingerprint: await fingerprintOf(ShipmentRequest.parse(first)),
      },
    );
    assert.ok(bound.ok);
    // spec: business 7 (where the code is defined): request_in_progress says when to retry.
    const r = await post(t, client, "/client/shipments", { ...first, contents: "Bandages" });
    assert.equal(r.status, 409, JSON.stringify(r.body));
    assert.equal(r.body.code, "request_in_progress");
    assert.equal(r.headers.get("Retry-After"), "5");
    assert.equal(await balance(t, client), 1000);
  }));

Deno.test("client shipments: a request stalled before its offer, whose key was given to another request, wakes to that request's answer, not a 404", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "1000");
    const first = { ...ROW, idempotency_key: "lost-2" };
    // The first request bound its key, then stalled before making its offer (a GC pause).
    const make = holdAsk(t.env.runtime, commandKind("make", priceOfferActor.type));
    const stalled = post(t, client, "/client/shipments", first);
    await make.reached;
    t.clock.advanceBy(5 * 60_000);
    const taken = await post(t, client, "/client/shipments", { ...first, contents: "Bandages" });
    assert.equal(taken.status, 201, JSON.stringify(taken.body));
    // Waking, it finds its reference voided: the key is another request's now, booked.
    make.open();
    const late = await stalled;
    assert.equal(late.status, 409, JSON.stringify(late.body));
    assert.equal(late.body.code, "idempotency_key_reused");
    assert.match(late.body.message, new RegExp(taken.body.data.waybill));
    assert.equal(await balance(t, client), Number((1000 - EXPRESS).toFixed(2)));
    assert.equal((await list(t, client)).data.length, 1);
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
