/**
 * The billing CSV export (courier 4.3, 6.1) end to end: a shipment's row with the client's code
 * and references, the preview that changes nothing beside the POST that marks, bounds refused
 * 422, a failing query before the header, timestamps, and text a spreadsheet would evaluate.
 */
import assert from "node:assert/strict";
import { parse } from "csv-parse/sync";
import { BILLING_CSV_COLUMNS } from "../../../src/courier/rules/billing_csv.ts";
import { billingCsvStream } from "../../../src/courier/queries/billing_export.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import {
  billingCsv,
  billingCsvRows,
  bookWaybill,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";

Deno.test("billing export: a shipment's row carries the client's code and the booking's references", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const waybill = await bookWaybill(t, client, {
      external_customer_code: "CUST-7",
      external_billing_reference: "BILL-3",
    });
    const day = new Date(t.clock.now()).toISOString().slice(0, 10);
    const csv = await billingCsv(t, courier, "GET", `client_id=${client.id}&from=${day}&to=${day}`);
    const row = billingCsvRows(csv).find((r) => r["kind"] === "shipment")!;
    assert.equal(row["waybill"], waybill);
    assert.equal(row["external customer code"], "CUST-7");
    assert.equal(row["external billing reference"], "BILL-3");
    assert.match(row["client"]!, /^C[0-9a-f]{8}$/, "the client's code, not its id");
    assert.equal(row["tax"], "10.92");
  }));

Deno.test("billing export: the preview changes nothing; the POST marks and its file shows them exported", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    const other = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    await topUp(t, courier, other, "500");
    const waybill = await bookWaybill(t, client, { client_order_reference: "ORD-9" });
    const day = new Date(t.clock.now()).toISOString().slice(0, 10);
    const query = `client_id=${client.id}&from=${day}&to=${day}`;

    const preview1 = await billingCsv(t, courier, "GET", query);
    const preview2 = await billingCsv(t, courier, "GET", query);
    assert.equal(preview2, preview1);
    assert.equal(preview1.split("\n")[0], BILLING_CSV_COLUMNS.join(","));
    const rows = billingCsvRows(preview1);
    assert.deepEqual(rows.map((r) => r["kind"]), ["top_up", "shipment"]);
    assert.ok(rows.every((r) => r["export state"] === "pending"));
    const shipmentRow = rows[1]!;
    assert.equal(shipmentRow["waybill"], waybill);
    assert.equal(shipmentRow["amount"], "88.92");
    assert.equal(shipmentRow["tax"], "10.92");
    assert.equal(shipmentRow["shipment status"], "booked");
    assert.equal(shipmentRow["date"], day);
    assert.equal(rows[0]!["amount"], "-500.00");

    const posted = await billingCsv(t, courier, "POST", query);
    // spec: courier 3.1: the POST's file shows its entries as it left them, exported; otherwise
    // the preview's rows.
    assert.deepEqual(billingCsvRows(posted).map((r) => r["export state"]), [
      "exported",
      "exported",
    ]);
    assert.equal(posted, preview1.replaceAll(",pending,", ",exported,"));
    const after = await billingCsv(t, courier, "GET", query);
    assert.equal(after, posted, "the preview after shows what the POST's file showed");
    // The other client's entries were not in the range: still pending.
    const others = billingCsvRows(await billingCsv(t, courier, "GET", `client_id=${other.id}`));
    assert.deepEqual(others.map((r) => r["export state"]), ["pending"]);
    // A POST with its range in its address, as the preview takes it, exports that range only.
    const addressed = await t.app.request(
      `/api/business/courier/billing/export?client_id=${other.id}&from=2020-01-01&to=2020-01-02`,
      { method: "POST", headers: { "X-Business-API-Key": courier.business.api_key } },
    );
    assert.equal(addressed.status, 200);
    assert.equal(addressed.headers.get("X-Entries-Marked"), "0");
    assert.deepEqual(billingCsvRows(await addressed.text()), []);
    const stillPending = billingCsvRows(
      await billingCsv(t, courier, "GET", `client_id=${other.id}`),
    );
    assert.deepEqual(stillPending.map((r) => r["export state"]), ["pending"]);

    // A bad range is refused and marks nothing; another courier's client is not found.
    const bad = await t.call("POST", "/business/courier/billing/export", {
      key: courier.business.api_key,
      body: { client_id: other.id, from: "2026-12-31", to: "2026-01-01" },
    });
    assert.equal(bad.status, 422);
    const stranger = await newCourier(t);
    const hidden = await t.call("POST", "/business/courier/billing/export", {
      key: stranger.business.api_key,
      body: { client_id: client.id },
    });
    assert.equal(hidden.status, 404);
    assert.deepEqual(
      billingCsvRows(await billingCsv(t, courier, "GET", `client_id=${other.id}`)).map((r) =>
        r["export state"]
      ),
      ["pending"],
    );
  }));

Deno.test("billing export: a day that does not exist, or a year Postgres cannot hold, is refused 422 naming the bound", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const headers = { "X-Business-API-Key": courier.business.api_key };
    const cases: [Record<string, string>, string][] = [
      [{ from: "2026-11-01", to: "2026-11-31" }, "to"],
      [{ from: "2026-02-30", to: "2026-03-31" }, "from"],
      [{ from: "2026-02-29", to: "2026-03-31" }, "from"], // 2026 is no leap year
      [{ from: "2026-11-01", to: "2026-11-31T10:00:00Z" }, "to"],
      [{ from: "0000-01-01", to: "2026-11-30" }, "from"],
      [{ from: "2026-11-01", to: "9999-12-31T23:00:00-05:00" }, "to"],
    ];
    for (const [range, path] of cases) {
      const query = new URLSearchParams({ client_id: client.id, ...range });
      const get = await t.app.request(`/api/business/courier/billing/export?${query}`, {
        headers,
      });
      assert.equal(get.status, 422, `GET ${query}`);
      const body = await get.json();
      assert.equal(body.code, "validation_failed");
      assert.deepEqual(body.errors.map((e: { path: string }) => e.path), [path], `GET ${query}`);
      const post = await t.call("POST", "/business/courier/billing/export", {
        key: courier.business.api_key,
        body: { client_id: client.id, ...range },
      });
      assert.equal(post.status, 422, `POST ${query}: ${JSON.stringify(post.body)}`);
      assert.equal(post.body.code, "validation_failed");
      assert.deepEqual(post.body.errors.map((e: { path: string }) => e.path), [path]);
    }
    // Nothing was marked; a leap day that exists is a day.
    const rows = billingCsvRows(await billingCsv(t, courier, "GET", `client_id=${client.id}`));
    assert.deepEqual(rows.map((r) => r["export state"]), ["pending"]);
    await billingCsv(t, courier, "GET", `client_id=${client.id}&from=2028-02-29&to=2028-03-01`);
  }));

Deno.test("billing export: a query that fails does so before the file is answered, not after its header", () =>
  withTestEnv(async (t) => {
    // A time Postgres cannot hold, past the route's checks: the failure must come while the
    // route can still answer an error.
    await assert.rejects(() =>
      billingCsvStream(t.env.db, {
        tenant: "biz_x",
        client_id: null,
        from: new Date("0000-01-01T00:00:00.000Z"),
        to: null,
        as_of: new Date(t.clock.now()),
      })
    );
  }));

Deno.test("billing export: delivered at is an ISO 8601 timestamp, as the date column and the event", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const waybill = await bookWaybill(t, client);
    for (const body of [{ event: "collected", holder: "Thabo" }, { event: "delivered" }]) {
      const r = await t.call("POST", `/business/courier/shipments/${waybill}/scans`, {
        key: courier.business.api_key,
        body,
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
    }
    const deliveredAt = new Date(t.clock.now()).toISOString();
    const rows = billingCsvRows(await billingCsv(t, courier, "GET", `client_id=${client.id}`));
    const row = rows.find((r) => r["kind"] === "shipment")!;
    assert.equal(row["shipment status"], "delivered");
    assert.equal(row["delivered at"], deliveredAt);
  }));

Deno.test("billing export: text a spreadsheet would evaluate is neutralised; amounts stay numbers", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const waybill = await bookWaybill(t, client, {
      external_customer_code: "=CUST,01",
      external_billing_reference: '+PO "77"',
    });
    await t.env.settle(); // the note names an entry the query side holds
    const note = await t.call("POST", `/business/courier/clients/${client.id}/billing/correct`, {
      key: courier.business.api_key,
      body: { entry_reference: waybill, amount: "-12.50", reason: '=HYPERLINK("http://x","y")' },
    });
    assert.equal(note.status, 201, JSON.stringify(note.body));
    const text = await billingCsv(t, courier, "GET", `client_id=${client.id}`);
    const rows = parse(text, { columns: true }) as Record<string, string>[];
    const credit = rows.find((r) => r["kind"] === "credit_note")!;
    assert.equal(credit["reason"], `'=HYPERLINK("http://x","y")`);
    assert.equal(credit["amount"], "-12.50", "an amount is a number, left as it is");
    assert.equal(credit["external customer code"], "'=CUST,01");
    assert.equal(credit["external billing reference"], `'+PO "77"`);
    assert.equal(rows.find((r) => r["kind"] === "top_up")!["amount"], "-500.00");
  }));
