/**
 * The store conformance suite's cases of what follows a commit (store_conformance.ts): events,
 * timers in due order, outbox items in key order, unpublished markers, and what a write costs.
 */
import assert from "node:assert/strict";
import { PARTITIONS } from "../../src/limits.ts";
import { commitOutcome } from "../../src/runtime/commit_outcome.ts";
import { partitionOf } from "../../src/runtime/placement.ts";
import type { OutboxItem } from "../../src/runtime/store.ts";
import {
  type Case,
  committed,
  eventsFrom,
  eventsOf,
  withStore,
  writeOf,
} from "./store_conformance_kit.ts";

function itemOf(type: string, id: string, seq: number, n: number, payload: unknown): OutboxItem {
  return {
    outbox: "billing",
    type,
    id,
    tenant: "biz_1",
    seq,
    n,
    at: 1_700_000_000_000 + seq,
    payload,
    bytes: JSON.stringify(payload).length,
  };
}

export const conformanceMore: Case[] = [
  (f) => ({
    name: "events are read back in seq order from any seq, many and large ones whole",
    fn: () =>
      withStore(f, async (store) => {
        const key = { type: "log", id: "l1" };
        // 1,200 small events in one commit, then one of 70 KB past Latin-1 (past a KV value).
        const v = await committed(
          store,
          writeOf("log", "l1", null, { seq: 1_200, events: eventsOf(1, 1_200) }),
        );
        const wide = "€".repeat(70_000);
        await committed(
          store,
          writeOf("log", "l1", v, { seq: 1_202, events: eventsOf(1_201, 1_202, wide) }),
        );
        const all = await eventsFrom(store, key);
        assert.equal(all.length, 1_202);
        assert.deepEqual(all.slice(0, 2), [{ n: 1 }, { n: 2 }]);
        assert.deepEqual(all[1_201], { n: 1_202, text: wide });
        const tail = [];
        for await (const e of store.events(key, 1_199)) tail.push(e);
        assert.deepEqual(tail.map((e) => e.seq), [1_199, 1_200, 1_201, 1_202]);
        assert.equal(tail[0]!.at, 1_000 + 1_198);
        assert.equal(tail[3]!.bytes, eventsOf(1_202, 1_202, wide)[0]!.bytes);
        assert.deepEqual(await eventsFrom(store, { type: "log", id: "none" }), []);
      }),
  }),
  (f) => ({
    name: "due timers come oldest first, up to the time and the limit; deleted or dropped ones go",
    fn: () =>
      withStore(f, async (store) => {
        const a = await committed(
          store,
          writeOf("acct", "a", null, {
            timerSet: [{ name: "late", at: 300 }, { name: "early", at: 100 }],
          }),
        );
        await committed(
          store,
          writeOf("acct", "b", null, {
            timerSet: [{ name: "x", at: 100 }, { name: "y", at: 200 }, { name: "z", at: 900 }],
          }),
        );
        const names = async (until: number, limit: number) =>
          (await store.dueTimers(until, limit)).map((t) => `${t.at} ${t.id} ${t.name}`);
        assert.deepEqual(await names(300, 10), ["100 a early", "100 b x", "200 b y", "300 a late"]);
        assert.deepEqual(await names(300, 2), ["100 a early", "100 b x"]);
        assert.deepEqual(await names(99, 10), []);
        const [first] = await store.dueTimers(100, 1);
        assert.deepEqual(first, { at: 100, type: "acct", id: "a", name: "early" });
        // Moved by its actor's next write; another dropped by the scheduler.
        await committed(
          store,
          writeOf("acct", "a", a, {
            seq: 2,
            timerDelete: [{ name: "early", at: 100 }],
            timerSet: [{ name: "early", at: 250 }],
          }),
        );
        await store.dropTimer({ at: 100, type: "acct", id: "b", name: "x" });
        assert.deepEqual(await names(1_000, 10), [
          "200 b y",
          "250 a early",
          "300 a late",
          "900 b z",
        ]);
      }),
  }),
  (f) => ({
    name: "outbox items come by actor then seq, written again are the same item, removed go",
    fn: () =>
      withStore(f, async (store) => {
        const c2 = await committed(
          store,
          writeOf("client", "c2", null, {
            outbox: [
              itemOf("client", "c2", 10, 1, { e: "c2-10-1" }),
              itemOf("client", "c2", 2, 1, 2),
            ],
          }),
        );
        await committed(
          store,
          writeOf("client", "c1", null, {
            outbox: [
              itemOf("client", "c1", 5, 2, { e: "c1-5-2" }),
              itemOf("client", "c1", 5, 1, { e: "c1-5-1" }),
              { ...itemOf("client", "c1", 1, 1, "other"), outbox: "webhooks" },
            ],
          }),
        );
        const order = async (limit: number) =>
          (await store.outboxItems("billing", limit)).map((i) => `${i.id} ${i.seq} ${i.n}`);
        // Numbers sort as numbers (2 before 10), not as text.
        assert.deepEqual(await order(10), ["c1 5 1", "c1 5 2", "c2 2 1", "c2 10 1"]);
        assert.deepEqual(await order(2), ["c1 5 1", "c1 5 2"]);
        const [whole] = await store.outboxItems("billing", 1);
        assert.deepEqual(whole, itemOf("client", "c1", 5, 1, { e: "c1-5-1" }));
        assert.equal((await store.outboxItems("webhooks", 10)).length, 1);
        // The same item written again (a batch decided again) is still one item.
        await committed(
          store,
          writeOf("client", "c2", c2, { seq: 2, outbox: [itemOf("client", "c2", 2, 1, 2)] }),
        );
        assert.equal((await store.outboxItems("billing", 10)).length, 4);
        await store.removeOutboxItems([
          itemOf("client", "c1", 5, 1, null),
          itemOf("client", "c2", 10, 1, null),
          itemOf("client", "c9", 1, 1, null),
        ]);
        await store.removeOutboxItems([]);
        assert.deepEqual(await order(10), ["c1 5 2", "c2 2 1"]);
      }),
  }),
  (f) => ({
    name: "unpublished markers: listed, cleared only for actors still at the version named",
    fn: () =>
      withStore(f, async (store) => {
        const a1 = await committed(store, writeOf("acct", "a", null, { unpublishedFrom: 1 }));
        const b1 = await committed(store, writeOf("acct", "b", null, { unpublishedFrom: 1 }));
        const c1 = await committed(store, writeOf("acct", "c", null, { unpublishedFrom: 1 }));
        // b moves on (its newer events on their way): its marker names where they begin.
        const b2 = await committed(
          store,
          writeOf("acct", "b", b1, { seq: 2, unpublishedFrom: 1, events: eventsOf(1, 2) }),
        );
        assert.deepEqual(await store.unpublished(10), [
          { type: "acct", id: "a", from: 1 },
          { type: "acct", id: "b", from: 1 },
          { type: "acct", id: "c", from: 1 },
        ]);
        assert.equal((await store.unpublished(2)).length, 2);
        const done = await store.markPublished([
          { key: { type: "acct", id: "a" }, version: a1 },
          { key: { type: "acct", id: "b" }, version: b1 },
        ]);
        assert.deepEqual(done, [true, false]);
        assert.deepEqual((await store.unpublished(10)).map((u) => u.id), ["b", "c"]);
        assert.deepEqual(
          await store.markPublished([{ key: { type: "acct", id: "b" }, version: b2 }]),
          [
            true,
          ],
        );
        assert.deepEqual(await store.markPublished([]), []);
        assert.deepEqual(
          await store.markPublished([{ key: { type: "acct", id: "c" }, version: c1 }]),
          [
            true,
          ],
        );
        assert.deepEqual(await store.unpublished(10), []);
      }),
  }),
  (f) => ({
    name: "a load reads the actor's recovery marker with its record: the first seq it names",
    fn: () =>
      withStore(f, async (store) => {
        const key = { type: "acct", id: "m" };
        const v1 = await committed(store, writeOf("acct", "m", null, { unpublishedFrom: 1 }));
        assert.deepEqual(await store.load(key), {
          version: v1,
          record: writeOf("acct", "m", null).record,
          unpublishedFrom: 1,
        });
        // A split record (on a store that splits one) reads its marker all the same.
        const big = { state: "s".repeat(100_000), seq: 2, events: eventsOf(2, 2) };
        const v2 = await committed(store, writeOf("acct", "m", v1, { ...big, unpublishedFrom: 1 }));
        assert.equal((await store.load(key))?.unpublishedFrom, 1);
        assert.deepEqual(await store.markPublished([{ key, version: v2 }]), [true]);
        const cleared = await store.load(key);
        assert.equal(cleared?.version, v2);
        assert.ok(!("unpublishedFrom" in cleared!), "none once cleared");
      }),
  }),
  (f) => ({
    name:
      "a marker cleared while a newer commit of its actor lands is never lost: that commit's stays",
    fn: () =>
      withStore(f, async (one, place) => {
        const two = await place.open();
        let version = await committed(one, writeOf("acct", "m", null, { unpublishedFrom: 1 }));
        for (let seq = 2; seq < 12; seq++) {
          const [cleared, next] = await Promise.all([
            one.markPublished([{ key: { type: "acct", id: "m" }, version }]),
            two.commit([writeOf("acct", "m", version, { seq, unpublishedFrom: seq })]),
          ]);
          assert.ok(next.ok, `round ${seq}`);
          version = next.versions[0]!;
          const markers = await one.unpublished(10);
          assert.deepEqual(markers, [{ type: "acct", id: "m", from: seq }], `${cleared}`);
        }
      }),
  }),
  (f) => ({
    name: "sweeps read the held partitions' timers, markers and outbox items only (issue 43)",
    fn: () =>
      withStore(f, async (store) => {
        const ids = ["h0", "h1", "h2", "h3", "h4", "h5"];
        for (const [i, id] of ids.entries()) {
          await committed(
            store,
            writeOf("acct", id, null, {
              timerSet: [{ name: "t", at: 100 + i }],
              unpublishedFrom: 1,
              outbox: [itemOf("acct", id, 1, 1, i)],
            }),
          );
        }
        const held = [...new Set(ids.slice(0, 3).map((id) => partitionOf({ type: "acct", id })))];
        const mine = ids.filter((id) => held.includes(partitionOf({ type: "acct", id })));
        assert.ok(mine.length >= 3 && mine.length < ids.length, `${held}`);
        const timers = async (limit: number, h?: readonly number[]) =>
          (await store.dueTimers(1_000, limit, h)).map((t) => t.id);
        assert.deepEqual(await timers(10, held), mine);
        assert.deepEqual(await timers(2, held), mine.slice(0, 2), "oldest first, up to the limit");
        assert.deepEqual(await timers(10), ids, "every partition's when none is named");
        assert.deepEqual(await timers(10, []), []);
        assert.deepEqual((await store.unpublished(10, held)).map((u) => u.id), mine);
        assert.deepEqual((await store.unpublished(10, [])).length, 0);
        assert.deepEqual((await store.outboxItems("billing", 10, held)).map((i) => i.id), mine);
        assert.deepEqual((await store.outboxItems("billing", 1, held)).map((i) => i.id), [mine[0]]);
        assert.equal((await store.outboxItems("billing", 10)).length, ids.length);
      }),
  }),
  (f) => ({
    name: "a write's cost grows with what it writes and checks: claims, events, bytes and keys",
    fn: () =>
      withStore(f, (store) => {
        const plain = store.cost(writeOf("acct", "a", null));
        const key = { index: "email", key: `${"k".repeat(1_000)}@x` };
        const claiming = store.cost(
          writeOf("acct", "a", null, { indexSet: [key], indexClaims: [key] }),
        );
        assert.equal(claiming.checks, plain.checks + 1);
        assert.ok(claiming.mutations > plain.mutations);
        assert.ok(claiming.keyBytes >= plain.keyBytes + 1_000);
        assert.ok(claiming.keyMax >= 1_000);
        const heavy = store.cost(
          writeOf("acct", "a", null, { events: eventsOf(1, 3, "z".repeat(100_000)) }),
        );
        assert.ok(heavy.bytes >= plain.bytes + 300_000, `${heavy.bytes}`);
        assert.ok(heavy.mutations > plain.mutations);
        const stateful = store.cost(writeOf("acct", "a", null, { state: "s".repeat(50_000) }));
        assert.ok(stateful.bytes >= plain.bytes + 50_000);
        return Promise.resolve();
      }),
  }),
  (f) => ({
    name:
      "a write read back tells whether its commit landed: at a new version with its very record, or at the version it read",
    fn: () =>
      withStore(f, async (store) => {
        const first = writeOf("acct", "a", null, { state: { b: 1 }, events: eventsOf(1, 1) });
        assert.deepEqual(await commitOutcome(store, first), { landed: false });
        const v1 = await committed(store, first);
        assert.deepEqual(await commitOutcome(store, first), { landed: true, version: v1 });
        const big = "\u00e9".repeat(40_000); // a record split over several values on Deno KV
        const second = writeOf("acct", "a", v1, { seq: 2, state: { big }, events: eventsOf(2, 2) });
        assert.deepEqual(await commitOutcome(store, second), { landed: false });
        const v2 = await committed(store, second);
        assert.deepEqual(await commitOutcome(store, second), { landed: true, version: v2 });
        // Moved on past it by another record: not this write's to claim.
        const other = writeOf("acct", "a", v1, { seq: 2, state: { b: 3 } });
        assert.equal(await commitOutcome(store, other), null);
      }),
  }),
  (f) => ({
    name:
      "an outbox item's failed attempts are kept with it: listed by when it is due, never brought back once removed",
    fn: () =>
      withStore(f, async (store) => {
        const a = itemOf("client", "c1", 1, 0, { e: "a" });
        const b = itemOf("client", "c1", 2, 0, { e: "b" });
        await committed(store, writeOf("client", "c1", null, { outbox: [a, b] }));
        const due = async (until?: number) =>
          (await store.outboxItems("billing", 10, undefined, until)).map((i) => i.payload);
        assert.deepEqual(await due(0), [{ e: "a" }, { e: "b" }], "new items are due at once");
        await store.retryOutboxItem(a, 3, 5_000);
        const [kept] = await store.outboxItems("billing", 1);
        assert.deepEqual(kept, { ...a, attempts: 3, nextAt: 5_000 });
        assert.deepEqual(await due(4_999), [{ e: "b" }]);
        assert.deepEqual(await due(5_000), [{ e: "a" }, { e: "b" }]);
        assert.deepEqual(await due(), [{ e: "a" }, { e: "b" }], "every item without a time");
        // Removed as listed (an item carries where it waits: ActorStore.removeOutboxItems).
        await store.removeOutboxItems([kept!]);
        await store.retryOutboxItem(kept!, 4, 9_000);
        await store.retryOutboxItem(a, 4, 9_000);
        assert.deepEqual(await due(), [{ e: "b" }], "a removed item stays removed");
      }),
  }),
  (f) => ({
    name:
      "outbox items backed off are listed only once due, in key order with the rest, and again after another failure",
    fn: () =>
      withStore(f, async (store) => {
        const waiting = Array.from({ length: 30 }, (_, i) => itemOf("client", "c1", i + 1, 0, i));
        const fresh = itemOf("client", "c2", 1, 0, "fresh");
        await committed(store, writeOf("client", "c1", null, { outbox: waiting }));
        await committed(store, writeOf("client", "c2", null, { outbox: [fresh] }));
        for (const [i, w] of waiting.entries()) await store.retryOutboxItem(w, 1, 10_000 + i);
        const due = async (until: number, limit = 100) =>
          (await store.outboxItems("billing", limit, undefined, until)).map((i) => i.payload);
        assert.deepEqual(await due(5_000), ["fresh"], "none backed off is listed before it is due");
        assert.deepEqual(await due(5_000, 1), ["fresh"]);
        assert.deepEqual(await due(10_001), [0, 1, "fresh"], "those due come back, in key order");
        assert.equal((await due(20_000, 3)).length, 3, "at most the limit");
        const [first] = await store.outboxItems("billing", 1, undefined, 10_000);
        assert.deepEqual(first, { ...waiting[0]!, attempts: 1, nextAt: 10_000 });
        // Failed again: due later, once; handled: gone wherever it waited.
        await store.retryOutboxItem(first!, 2, 30_000);
        assert.deepEqual(await due(29_999, 2), [1, 2]);
        const again = (await store.outboxItems("billing", 100, undefined, 30_000)).slice(0, 1);
        assert.deepEqual(again, [{ ...waiting[0]!, attempts: 2, nextAt: 30_000 }]);
        await store.removeOutboxItems([...again, fresh]);
        await store.retryOutboxItem(again[0]!, 3, 40_000);
        assert.deepEqual((await due(50_000)).length, 29, "removed items stay removed");
        const mine = partitionOf({ type: "client", id: "c1" });
        const held = async (p: number) =>
          (await store.outboxItems("billing", 100, [p], 50_000)).length;
        assert.equal(await held((mine + 1) % PARTITIONS), 0, "another partition's are not listed");
        assert.equal(await held(mine), 29);
      }),
  }),
];
