import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { book, fundedBusiness, PARCEL } from "./trips_fixtures.ts";

Deno.test("trips list: newest first, by reference, search and page; active leaves out ended trips", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const refs: string[] = [];
    for (let i = 1; i <= 3; i++) {
      t.clock.advanceBy(60_000);
      const r = await book(t, b.api_key, {
        ...PARCEL,
        passenger_name: `Passenger ${i}`,
        external_reference: `LIST-${i}`,
      });
      assert.equal(r.status, 201);
      refs.push(r.body.data.reference);
    }
    await t.call("POST", "/business/trips/2/cancel", { key: b.api_key });
    await t.settle();
    const all = await t.call("GET", "/business/trips", { key: b.api_key });
    assert.equal(all.status, 200, JSON.stringify(all.body));
    assert.deepEqual(all.body.data.map((x: { id: number }) => x.id), [3, 2, 1]);
    const first = await t.call("GET", "/business/trips?per_page=2", { key: b.api_key });
    assert.deepEqual(first.body.data.map((x: { id: number }) => x.id), [3, 2]);
    const next = await t.call(
      "GET",
      `/business/trips?per_page=2&cursor=${first.body.meta.next_cursor}`,
      {
        key: b.api_key,
      },
    );
    assert.deepEqual(next.body.data.map((x: { id: number }) => x.id), [1]);
    assert.equal(next.body.meta.next_cursor, null);
    const byRef = await t.call("GET", "/business/trips?reference=LIST-1", { key: b.api_key });
    assert.deepEqual(byRef.body.data.map((x: { reference: string }) => x.reference), [refs[0]]);
    const search = await t.call("GET", "/business/trips?search=passenger%203", { key: b.api_key });
    assert.deepEqual(search.body.data.map((x: { id: number }) => x.id), [3]);
    // A control character is refused: the search text's field separator matched every trip.
    const separator = await t.call("GET", "/business/trips?search=%1F", { key: b.api_key });
    assert.equal(separator.status, 422);
    assert.equal(separator.body.errors[0].path, "search");
    const month = new Date(t.clock.now()).toISOString().slice(0, 7);
    const inMonth = await t.call("GET", `/business/trips?month=${month}&test=0`, {
      key: b.api_key,
    });
    assert.equal(inMonth.body.data.length, 3);
    const tests = await t.call("GET", "/business/trips?test=1", { key: b.api_key });
    assert.equal(tests.body.data.length, 0);
    const active = await t.call("GET", "/business/trips/active", { key: b.api_key });
    assert.deepEqual(active.body.data.map((x: { id: number }) => x.id), [3, 1]);
    const other = await fundedBusiness(t);
    const theirs = await t.call("GET", "/business/trips?reference=LIST-1", { key: other.api_key });
    assert.deepEqual(theirs.body.data, []);
  }));

Deno.test("trips: a partner key with scope deliveries books and reads; without it, scope_denied", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const keyOf = async (scopes: string[]) => {
      const r = await t.call("POST", `/operator/businesses/${b.id}/partner-keys`, {
        operator: true,
        body: { partner: "Shop connector", scopes },
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return r.body.data.key as string;
    };
    const deliveries = await keyOf(["deliveries"]);
    const booked = await book(t, deliveries, PARCEL);
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    const ref = booked.body.data.reference;
    assert.equal((await t.call("GET", `/business/trips/${ref}`, { key: deliveries })).status, 200);
    assert.equal((await t.call("GET", "/business/trips", { key: deliveries })).status, 200);
    const ready = await t.call("POST", `/business/trip/${ref}/ready`, { key: deliveries });
    assert.equal(ready.status, 200);
    const cancel = await t.call("POST", `/business/trips/${ref}/cancel`, { key: deliveries });
    assert.equal(cancel.status, 200);
    const rewards = await keyOf(["rewards"]);
    const refused = await book(t, rewards, PARCEL);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, "scope_denied");
  }));

Deno.test("trips list: trips booked in the same millisecond are listed newest first, paged without a skip or a repeat", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    for (let i = 1; i <= 8; i++) {
      const r = await book(t, b.api_key, { ...PARCEL, external_reference: `TIE-${i}` });
      assert.equal(r.status, 201, JSON.stringify(r.body));
    }
    await t.settle();
    const all = await t.call("GET", "/business/trips", { key: b.api_key });
    assert.deepEqual(all.body.data.map((x: { id: number }) => x.id), [8, 7, 6, 5, 4, 3, 2, 1]);
    const paged: number[] = [];
    let cursor = "";
    for (let n = 0; n < 8; n++) {
      const r = await t.call("GET", `/business/trips?per_page=3${cursor}`, { key: b.api_key });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      paged.push(...r.body.data.map((x: { id: number }) => x.id));
      if (r.body.meta.next_cursor === null) break;
      cursor = `&cursor=${r.body.meta.next_cursor}`;
    }
    assert.deepEqual(paged, [8, 7, 6, 5, 4, 3, 2, 1]);
    // A cursor given before ties were broken by number names a reference: it goes on from its
    // millisecond whole (a repeat, never a skip), so a client paging across the upgrade goes on.
    const cursorOf = (id: string) => btoa(JSON.stringify([t.clock.now(), id])).replaceAll("=", "");
    const old = await t.call("GET", `/business/trips?cursor=${cursorOf("ARY-XYZ")}`, {
      key: b.api_key,
    });
    assert.equal(old.status, 200, JSON.stringify(old.body));
    assert.deepEqual(old.body.data.map((x: { id: number }) => x.id), [8, 7, 6, 5, 4, 3, 2, 1]);
    // A cursor whose id is neither is bad input, not a 500.
    const bad = await t.call("GET", `/business/trips?cursor=${cursorOf("x' or 1=1")}`, {
      key: b.api_key,
    });
    assert.equal(bad.status, 422, JSON.stringify(bad.body));
    assert.equal(bad.body.code, "validation_failed");
  }));

Deno.test("trips list: month is the market's calendar month (UTC+2) to the millisecond", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const at = async (iso: string, external_reference: string) => {
      t.clock.advanceBy(Date.parse(iso) - t.clock.now());
      const r = await book(t, b.api_key, { ...PARCEL, external_reference });
      assert.equal(r.status, 201, JSON.stringify(r.body));
    };
    // 23:59:59.999 on 30 November in Gaborone, then midnight on 1 December there.
    await at("2026-11-30T21:59:59.999Z", "LAST-OF-NOV");
    await at("2026-11-30T22:00:00.000Z", "FIRST-OF-DEC");
    await t.settle();
    const refsOf = async (month: string) => {
      const r = await t.call("GET", `/business/trips?month=${month}`, { key: b.api_key });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.data.map((x: { external_reference: string }) => x.external_reference);
    };
    assert.deepEqual(await refsOf("2026-11"), ["LAST-OF-NOV"]);
    assert.deepEqual(await refsOf("2026-12"), ["FIRST-OF-DEC"]);
  }));

Deno.test("trips list: search finds a trip by a stop's address, in any case, and by part of a word", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const stops = [{ address: "Riverwalk Mall, Tlokweng Road", lat: -24.63, lng: 25.92 }];
    const r = await book(t, b.api_key, { ...PARCEL, stops, external_reference: "STOP-1" });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal((await book(t, b.api_key, PARCEL)).status, 201);
    await t.settle();
    for (const search of ["riverwalk", "TLOKWENG", "walk mall"]) {
      const found = await t.call("GET", `/business/trips?search=${encodeURIComponent(search)}`, {
        key: b.api_key,
      });
      assert.equal(found.status, 200, JSON.stringify(found.body));
      const refs = found.body.data.map((x: { external_reference: string }) => x.external_reference);
      assert.deepEqual(refs, ["STOP-1"], search);
    }
  }));

Deno.test("trips list: search matches within one field, never across two", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    assert.equal(
      (await book(t, b.api_key, { ...PARCEL, external_reference: "ACROSS-1" })).status,
      201,
    );
    await t.settle();
    const refsOf = async (search: string) => {
      const r = await t.call("GET", `/business/trips?search=${encodeURIComponent(search)}`, {
        key: b.api_key,
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.data.map((x: { external_reference: string }) => x.external_reference);
    };
    // The pickup ends "Gaborone" and the destination starts "Plot 9": no field holds both.
    assert.deepEqual(await refsOf("gaborone plot"), []);
    assert.deepEqual(await refsOf("block 8 across"), []);
    assert.deepEqual(await refsOf("mall, gabo"), ["ACROSS-1"]);
  }));
