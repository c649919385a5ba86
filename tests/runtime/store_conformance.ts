/**
 * The actor store port's conformance suite (src/runtime/store.ts; STYLE 7, one suite for every
 * store): the cases, registered by storeConformance() for one store. Deno KV runs them in
 * store_conformance_kv_test.ts, Postgres in store_conformance_pg_test.ts.
 */
import assert from "node:assert/strict";
import { INDEX_PREFIX_LOOKUP_MAX } from "../../src/limits.ts";
import {
  type Case,
  committed,
  CONFLICT,
  eventsFrom,
  eventsOf,
  type StoreFactory,
  withStore,
  writeOf,
} from "./store_conformance_kit.ts";
import { conformanceLeases } from "./store_conformance_leases.ts";
import { conformanceMore } from "./store_conformance_more.ts";

/** Registers every case of the suite for one store. */
export function storeConformance(f: StoreFactory): void {
  for (const c of [...CASES, ...conformanceMore, ...conformanceLeases]) {
    const { name, fn } = c(f);
    Deno.test({ name: `store conformance (${f.name}): ${name}`, ignore: f.ignore ?? false, fn });
  }
}

const CASES: Case[] = [
  (f) => ({
    name:
      "a write names the version it read: a stale or missing one is a conflict that writes nothing",
    fn: () =>
      withStore(f, async (store) => {
        const key = { type: "acct", id: "a1" };
        assert.equal(await store.load(key), null);
        const v1 = await committed(store, writeOf("acct", "a1", null, { events: eventsOf(1, 1) }));
        const loaded = await store.load(key);
        assert.deepEqual(loaded, { version: v1, record: writeOf("acct", "a1", null).record });
        // `expected: null` means "must not exist".
        assert.deepEqual(await store.commit([writeOf("acct", "a1", null, { seq: 9 })]), CONFLICT);
        const v2 = await committed(
          store,
          writeOf("acct", "a1", v1, { seq: 2, state: { b: 2 }, events: eventsOf(2, 2) }),
        );
        assert.notEqual(v2, v1);
        // The version read before the last commit: nothing of this write is kept.
        const stale = writeOf("acct", "a1", v1, {
          seq: 3,
          state: { b: 3 },
          events: eventsOf(3, 3),
          indexSet: [{ index: "email", key: "a@x" }],
          timerSet: [{ name: "t", at: 5 }],
          replies: [{ key: "k", reply: 1, permanent: true }],
          unpublishedFrom: 3,
        });
        assert.deepEqual(await store.commit([stale]), CONFLICT);
        assert.deepEqual(await store.load(key), {
          version: v2,
          record: writeOf("acct", "a1", null, { seq: 2, state: { b: 2 } }).record,
        });
        assert.deepEqual(await eventsFrom(store, key), [{ n: 1 }, { n: 2 }]);
        assert.deepEqual(await eventsFrom(store, key, 2), [{ n: 2 }]);
        assert.equal(await store.lookup("email", "a@x"), null);
        assert.deepEqual(await store.dueTimers(10, 10), []);
        assert.equal((await store.replies(key, ["k"])).size, 0);
        assert.deepEqual(await store.unpublished(10), []);
      }),
  }),
  (f) => ({
    name: "a group commits every write or none: one stale actor fails the others",
    fn: () =>
      withStore(f, async (store) => {
        const stale = await committed(store, writeOf("acct", "a", null));
        const v = await committed(store, writeOf("acct", "a", stale, { seq: 2 }));
        const group = [
          writeOf("acct", "b", null, { events: eventsOf(1, 1) }),
          writeOf("acct", "a", stale, { seq: 3 }),
        ];
        assert.deepEqual(await store.commit(group), CONFLICT);
        assert.equal(await store.load({ type: "acct", id: "b" }), null);
        assert.deepEqual(await eventsFrom(store, { type: "acct", id: "b" }), []);
        const ok = await store.commit([writeOf("acct", "b", null), writeOf("acct", "a", v)]);
        assert.ok(ok.ok && ok.versions.length === 2);
        assert.equal((await store.load({ type: "acct", id: "a" }))?.version, ok.versions[1]);
      }),
  }),
  (f) => ({
    name:
      "two instances committing one actor at once over one version: exactly one wins, every round",
    fn: () =>
      withStore(f, async (one, place) => {
        const two = await place.open();
        let version = await committed(one, writeOf("acct", "hot", null));
        for (let round = 2; round < 12; round++) {
          const [a, b] = await Promise.all(
            [one, two].map((s, i) =>
              s.commit([writeOf("acct", "hot", version, { seq: round, state: { by: i } })])
            ),
          );
          const won = [a!, b!].filter((r) => r.ok);
          assert.equal(won.length, 1, `round ${round}: ${JSON.stringify([a, b])}`);
          assert.deepEqual([a!, b!].find((r) => !r.ok), CONFLICT);
          const stored = await two.load({ type: "acct", id: "hot" });
          assert.equal(stored?.record.seq, round);
          version = stored!.version;
          assert.ok(won[0]!.ok && won[0]!.versions[0] === version);
        }
        // Two new actors of one id: one is made, the other is told it exists.
        const made = await Promise.all(
          [one, two].map((s) => s.commit([writeOf("acct", "fresh", null)])),
        );
        assert.equal(made.filter((r) => r.ok).length, 1);
      }),
  }),
  (f) => ({
    name:
      "a unique key: claimed twice in one group, or held, is a conflict; two groups at once, one wins",
    fn: () =>
      withStore(f, async (one, place) => {
        const claim = (id: string, email: string) => {
          const key = { index: "staff_email", key: email };
          return writeOf("staff", id, null, { indexSet: [key], indexClaims: [key] });
        };
        const twice = await one.commit([claim("a", "x@example.com"), claim("b", "x@example.com")]);
        assert.deepEqual(twice, CONFLICT);
        assert.equal(await one.lookup("staff_email", "x@example.com"), null);
        assert.equal(await one.load({ type: "staff", id: "a" }), null);
        // Apart, the first holds it and the second fails its check.
        await committed(one, claim("a", "x@example.com"));
        assert.deepEqual(await one.commit([claim("b", "x@example.com")]), CONFLICT);
        assert.equal((await one.lookup("staff_email", "x@example.com"))?.id, "a");
        // Two instances' groups, each with an actor of its own beside, claim one key at once.
        const two = await place.open();
        for (let round = 0; round < 8; round++) {
          const email = `r${round}@example.com`;
          const [a, b] = await Promise.all([
            one.commit([writeOf("other", `o1_${round}`, null), claim(`p${round}`, email)]),
            two.commit([writeOf("other", `o2_${round}`, null), claim(`q${round}`, email)]),
          ]);
          assert.equal([a!, b!].filter((r) => r.ok).length, 1, `round ${round}`);
          const holder = await two.lookup("staff_email", email);
          const loser = holder?.id === `p${round}` ? `q${round}` : `p${round}`;
          assert.ok(holder?.id === `p${round}` || holder?.id === `q${round}`);
          assert.equal(await one.load({ type: "staff", id: loser }), null, "nothing of the loser");
        }
      }),
  }),
  (f) => ({
    name:
      "replies are kept whole however large, answered only for the keys asked, from any instance",
    fn: () =>
      withStore(f, async (store, place) => {
        // About 140,000 bytes past Latin-1 (UTF-8 three a character), and a plain 200 KB one.
        const wide = { text: "é€".repeat(35_000), n: [1, 2.5, null] };
        const plain = "x".repeat(200_000);
        const key = { type: "nb", id: "n1" };
        await committed(
          store,
          writeOf("nb", "n1", null, {
            replies: [
              { key: "wide", reply: wide, permanent: false },
              { key: "plain", reply: plain, permanent: true },
              { key: "small", reply: { ok: true }, permanent: false },
            ],
          }),
        );
        const other = await place.open();
        const got = await other.replies(key, ["wide", "plain", "small", "missing"]);
        assert.deepEqual([...got.keys()].sort(), ["plain", "small", "wide"]);
        assert.deepEqual(got.get("wide"), wide);
        assert.equal(got.get("plain"), plain);
        assert.deepEqual(got.get("small"), { ok: true });
        assert.equal((await other.replies({ type: "nb", id: "n2" }, ["wide"])).size, 0);
        assert.equal((await other.replies(key, [])).size, 0);
        // Many keys at once (past ten, what KV reads at once).
        const many = Array.from({ length: 25 }, (_, i) => `k${i}`);
        const version = (await store.load(key))!.version;
        await committed(
          store,
          writeOf("nb", "n1", version, {
            seq: 2,
            replies: many.map((k, i) => ({ key: k, reply: i, permanent: false })),
          }),
        );
        const all = await other.replies(key, [...many, "wide"]);
        assert.equal(all.size, 26);
        assert.equal(all.get("k24"), 24);
      }),
  }),
  (f) => ({
    name:
      "a prefix lookup answers the keys beginning with the prefix, in key order, at most the limit",
    fn: () =>
      withStore(f, async (store) => {
        const indexing = (type: string, id: string, index: string, keys: readonly string[]) =>
          writeOf(type, id, null, { indexSet: keys.map((key) => ({ index, key })) });
        const written = await store.commit([
          indexing("run", "r2", "driver_waybill", ["d1|WB1|r2", "d1|WB10|r2", "d2|WB1|r2"]),
          indexing("run", "r1", "driver_waybill", ["d1|WB1|r1", "d1|WB1"]),
          indexing("run", "r3", "other_index", ["d1|WB1|r3"]),
          indexing("run", "r4", "wide", ["é|1", "é|2", "ê|1", "e|1", "z"]),
        ]);
        assert.ok(written.ok);
        const keys = async (prefix: string, limit: number, index = "driver_waybill") =>
          (await store.lookupPrefix(index, prefix, limit)).map((e) => e.key);
        // Byte order: the old-shape key `d1|WB1`, then `d1|WB10|...` (0 before |), then WB1's runs.
        assert.deepEqual(await keys("d1|WB1|", 10), ["d1|WB1|r1", "d1|WB1|r2"]);
        assert.deepEqual(await keys("d1|WB1|", 1), ["d1|WB1|r1"]);
        assert.deepEqual(await keys("d1|WB10|", 10), ["d1|WB10|r2"]);
        assert.deepEqual(await keys("d1|WB2|", 10), []);
        assert.deepEqual(await keys("d1|", 3), ["d1|WB1", "d1|WB10|r2", "d1|WB1|r1"]);
        assert.deepEqual(await keys("", 100), [
          "d1|WB1",
          "d1|WB10|r2",
          "d1|WB1|r1",
          "d1|WB1|r2",
          "d2|WB1|r2",
        ]);
        // Past ASCII, as UTF-8 bytes sort: `e` < `z` < `é` < `ê`.
        assert.deepEqual(await keys("é", 10, "wide"), ["é|1", "é|2"]);
        assert.deepEqual(await keys("", 10, "wide"), ["e|1", "z", "é|1", "é|2", "ê|1"]);
        const [first] = await store.lookupPrefix("driver_waybill", "d2|", 5);
        assert.deepEqual(first?.target, { type: "run", id: "r2", tenant: "biz_1" });
        // Bounded: none, a fraction, or more than the store reads at once is refused.
        for (const limit of [0, -1, 1.5, INDEX_PREFIX_LOOKUP_MAX + 1]) {
          await assert.rejects(
            () => store.lookupPrefix("driver_waybill", "d1|", limit),
            RangeError,
          );
        }
        const most = await store.lookupPrefix("driver_waybill", "", INDEX_PREFIX_LOOKUP_MAX);
        assert.equal(most.length, 5);
      }),
  }),
  (f) => ({
    name:
      "the actors of a type are listed a page at a time after the last one seen, large ones whole",
    fn: () =>
      withStore(f, async (store) => {
        const ids = ["e", "a", "c", "b", "d"];
        assert.ok((await store.commit(ids.map((id) => writeOf("run", id, null)))).ok);
        // Past one KV value (60,000 bytes): KV splits it, and lists it whole.
        const big = "y".repeat(130_000);
        assert.ok((await store.commit([writeOf("runner", "z", null, { state: { big } })])).ok);
        const page = async (type: string, after: string | null, limit: number) =>
          (await store.stored(type, after, limit)).map((s) => s.id);
        assert.deepEqual(await page("run", null, 2), ["a", "b"]);
        assert.deepEqual(await page("run", "b", 2), ["c", "d"]);
        assert.deepEqual(await page("run", "d", 2), ["e"]);
        assert.deepEqual(await page("run", "e", 2), []);
        assert.deepEqual(await page("nothing", null, 2), []);
        const [runner] = await store.stored("runner", null, 5);
        assert.deepEqual(runner?.record.state, { big });
        await assert.rejects(() => store.stored("run", null, 0), RangeError);
      }),
  }),
  (f) => ({
    name: "a pass marked done is done for every instance on the store, and only that pass",
    fn: () =>
      withStore(f, async (one, place) => {
        const two = await place.open();
        assert.equal(await one.passDone("reindex:run:3"), false);
        await one.markPassDone("reindex:run:3");
        await one.markPassDone("reindex:run:3");
        assert.equal(await two.passDone("reindex:run:3"), true);
        assert.equal(await two.passDone("reindex:run:4"), false);
      }),
  }),
  (f) => ({
    name:
      "its identity is made once and the same for every instance sharing it, another store's differs",
    fn: () =>
      withStore(f, async (one, place) => {
        const two = await place.open();
        const elsewhere = await f.place();
        try {
          // Two instances starting at once agree on one.
          const [x, y] = await Promise.all([one.identity(), two.identity()]);
          assert.equal(x, y);
          assert.match(x, /^store_[0-9a-z]{20}$/);
          assert.equal(await one.identity(), x, "kept");
          assert.notEqual(await (await elsewhere.open()).identity(), x);
        } finally {
          await elsewhere.close();
        }
      }),
  }),
];
