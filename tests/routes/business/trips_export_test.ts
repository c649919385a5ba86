import assert from "node:assert/strict";
import { parse } from "csv-parse/sync";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { book, fundedBusiness, PARCEL, RIDE } from "./trips_fixtures.ts";

const DAY_MS = 86_400_000;

/** GET /business/trips/export: the status, the headers and the CSV read back as records. */
async function exportOf(t: TestEnv, key: string, query = "") {
  const res = await t.app.request(`/api/business/trips/export${query}`, {
    headers: { "X-Business-API-Key": key },
  });
  const text = await res.text();
  const isCsv = res.headers.get("Content-Type")?.startsWith("text/csv") ?? false;
  return {
    status: res.status,
    type: res.headers.get("Content-Type"),
    rows: isCsv ? parse(text) as string[][] : [],
    body: isCsv ? null : JSON.parse(text),
  };
}

/** `ms` as an ISO 8601 instant at UTC+2, escaped for a query string. */
function atPlus2(ms: number): string {
  const local = new Date(ms + 2 * 3_600_000).toISOString().slice(0, 23);
  return encodeURIComponent(`${local}+02:00`);
}

/** The column `name` of every data row. */
function column(rows: string[][], name: string): string[] {
  const at = rows[0]!.indexOf(name);
  assert.ok(at >= 0, `no column ${name}`);
  return rows.slice(1).map((r) => r[at]!);
}

Deno.test("trips export: CSV oldest first, filtered by from, to, type and status; quotes kept", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const days: string[] = [];
    const bodies = [
      { ...PARCEL, passenger_name: 'Neo "Kgosi", Jr', external_reference: "EXP-1" },
      { ...RIDE, external_reference: "EXP-2" },
      { ...PARCEL, passenger_name: "=SUM(A1)", external_reference: "EXP-3" },
    ];
    for (const body of bodies) {
      t.clock.advanceBy(DAY_MS);
      days.push(new Date(t.clock.now()).toISOString().slice(0, 10));
      const r = await book(t, b.api_key, body);
      assert.equal(r.status, 201, JSON.stringify(r.body));
    }
    await t.call("POST", "/business/trips/3/cancel", { key: b.api_key });
    await t.settle();

    const all = await exportOf(t, b.api_key);
    assert.equal(all.status, 200);
    assert.equal(all.type, "text/csv; charset=utf-8");
    assert.deepEqual(all.rows[0]!.slice(0, 6), [
      "reference",
      "id",
      "external_reference",
      "type",
      "segment",
      "status",
    ]);
    assert.deepEqual(column(all.rows, "id"), ["1", "2", "3"]);
    assert.deepEqual(column(all.rows, "type"), ["parcel", "ride", "parcel"]);
    assert.deepEqual(column(all.rows, "external_reference"), ["EXP-1", "EXP-2", "EXP-3"]);
    // A comma and a quote survive the round trip; a formula is written as text.
    assert.equal(column(all.rows, "passenger_name")[0], 'Neo "Kgosi", Jr');
    assert.equal(column(all.rows, "passenger_name")[2], "'=SUM(A1)");
    assert.equal(column(all.rows, "billing_currency")[0], "BWP");
    assert.match(column(all.rows, "billing_amount")[0]!, /^\d+\.\d{2}$/);

    const ids = async (query: string) => {
      const r = await exportOf(t, b.api_key, query);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return column(r.rows, "id");
    };
    assert.deepEqual(await ids(`?from=${days[1]}`), ["2", "3"]);
    assert.deepEqual(await ids(`?to=${days[1]}`), ["1", "2"]);
    assert.deepEqual(await ids(`?from=${days[1]}&to=${days[1]}`), ["2"]);
    // An instant is read with its offset: trip 2's creation written at UTC+2 includes it.
    const second = Date.parse(column(all.rows, "created_at")[1]!);
    assert.deepEqual(await ids(`?from=${atPlus2(second)}`), ["2", "3"]);
    assert.deepEqual(await ids(`?from=${atPlus2(second + 1)}`), ["3"]);
    assert.deepEqual(await ids(`?to=${atPlus2(second - 1)}`), ["1"]);
    assert.deepEqual(await ids("?type=ride"), ["2"]);
    assert.deepEqual(await ids("?type=parcel&status=cancelled"), ["3"]);
    const none = await exportOf(t, b.api_key, "?status=completed");
    assert.deepEqual(none.rows, [all.rows[0]]);
  }));

Deno.test("trips export: each bad filter named in one 422", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const bad = await exportOf(t, b.api_key, "?from=2026-02-30&to=yesterday&type=cargo&status=x");
    assert.equal(bad.status, 422);
    assert.equal(bad.body.code, "validation_failed");
    const paths = bad.body.errors.map((e: { path: string }) => e.path).sort();
    assert.deepEqual(paths, ["from", "status", "to", "type"]);
    assert.match(JSON.stringify(bad.body.errors), /no such day: 2026-02-30/);
    const reversed = await exportOf(t, b.api_key, "?from=2026-03-02&to=2026-03-01");
    assert.equal(reversed.status, 422);
    assert.deepEqual(reversed.body.errors, [{ path: "to", message: "must not be before from" }]);
  }));

Deno.test("trips export: another business's trips never appear; a partner key is scope_denied", () =>
  withTestEnv(async (t) => {
    const mine = await fundedBusiness(t);
    const theirs = await fundedBusiness(t);
    assert.equal(
      (await book(t, theirs.api_key, { ...PARCEL, passenger_name: "Theirs" })).status,
      201,
    );
    assert.equal((await book(t, mine.api_key, { ...PARCEL, passenger_name: "Mine" })).status, 201);
    await t.settle();
    const r = await exportOf(t, mine.api_key);
    assert.equal(r.status, 200);
    assert.deepEqual(column(r.rows, "passenger_name"), ["Mine"]);
    const partner = await t.call("POST", `/operator/businesses/${mine.id}/partner-keys`, {
      operator: true,
      body: { partner: "Shop connector", scopes: ["deliveries"] },
    });
    assert.equal(partner.status, 201, JSON.stringify(partner.body));
    const denied = await exportOf(t, partner.body.data.key);
    assert.equal(denied.status, 403);
    assert.equal(denied.body.code, "scope_denied");
  }));

Deno.test("trips export: a day or a time without offset in from and to is the market's (UTC+2) to the millisecond", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    // 23:59:59.999 on 30 November in Gaborone, then midnight on 1 December there.
    for (const iso of ["2026-11-30T21:59:59.999Z", "2026-11-30T22:00:00.000Z"]) {
      t.clock.advanceBy(Date.parse(iso) - t.clock.now());
      assert.equal((await book(t, b.api_key, PARCEL)).status, 201);
    }
    await t.settle();
    const ids = async (query: string) => {
      const r = await exportOf(t, b.api_key, query);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return column(r.rows, "id");
    };
    assert.deepEqual(await ids("?to=2026-11-30"), ["1"]);
    assert.deepEqual(await ids("?from=2026-12-01"), ["2"]);
    assert.deepEqual(await ids("?from=2026-11-30&to=2026-11-30"), ["1"]);
    // spec: business 2.1: a time without an offset is read as UTC+2, not in the server's zone.
    assert.deepEqual(await ids("?to=2026-11-30T23:59:59.999"), ["1"]);
    assert.deepEqual(await ids("?from=2026-12-01T00:00"), ["2"]);
  }));
