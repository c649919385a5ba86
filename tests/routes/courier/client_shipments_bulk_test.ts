/**
 * The client's bulk and CSV booking (courier 4.6, 8): rows answered each, their replay rules, the
 * CSV template and its line errors.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { stringify } from "csv-stringify/sync";
import { withTestEnv } from "../../helpers/test_env.ts";
import { clientKey, topUp } from "../../helpers/courier.ts";
import { CSV_REQUIRED_COLUMNS, readCsv } from "../../../routes/courier/answers/shipment_csv.ts";
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
    assert.equal(notCsv.status, 415);
    assert.equal(notCsv.body.code, "unsupported_media_type");
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

Deno.test("client shipments: a CSV over 200 shipment lines (courier 8, as bulk) is refused before booking", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "100");
    const one = csvOf([line()]).split("\n")[1]!;
    const csv = csvOf([line()]) + `${one}\n`.repeat(200);
    const r = await upload(t, client, csv);
    assert.equal(r.status, 422, JSON.stringify(r.body).slice(0, 300));
    assert.match(r.body.message, /at most 200 lines of shipments per upload: more from line 202/);
    assert.equal(await balance(t, client), 100);
  }));

Deno.test("client shipments CSV: the body's media type is read in any case (Text/CSV)", () =>
  withTestEnv(async (t) => {
    const [, client] = await ready(t, "1000");
    const r = await upload(t, client, csvOf([line()]), { type: "Text/CSV; charset=UTF-8" });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.data.booked, 1);
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
