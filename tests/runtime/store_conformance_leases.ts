/**
 * The store conformance suite's cases of partition leases (store.ts LeaseStore, issue 43 item 2):
 * take, renew, expiry, release, presence, and the commits a lease fences.
 */
import assert from "node:assert/strict";
import { PARTITIONS } from "../../src/limits.ts";
import type { Fence, Lease, LeaseStore } from "../../src/runtime/store.ts";
import {
  type Case,
  committed,
  CONFLICT,
  eventsFrom,
  eventsOf,
  withStore,
  writeOf,
} from "./store_conformance_kit.ts";

const T0 = 1_700_000_000_000;
const LEASE_MS = 10_000;

const fenced = (partition: number) => ({ ok: false, reason: "fenced", partition });

/** One partition's lease taken, or null when it was not (LeaseStore.take of one). */
async function takeOne(
  leases: LeaseStore,
  partition: number,
  holder: string,
  now: number,
  expires: number,
): Promise<Lease | null> {
  const taken = await leases.take([partition], holder, now, expires);
  assert.ok(taken.length <= 1);
  return taken[0] ?? null;
}

export const conformanceLeases: Case[] = [
  (f) => ({
    name:
      "a lease is taken only when free or expired, its epoch rising at each take; renewed and released by its holder only",
    fn: () =>
      withStore(f, async (store, place) => {
        const other = (await place.open()).leases;
        const leases = store.leases;
        const all = await leases.all();
        assert.equal(all.length, PARTITIONS);
        assert.deepEqual(all[5], { partition: 5, holder: null, epoch: 0, expires: 0 });
        const a = await takeOne(leases, 5, "a", T0, T0 + LEASE_MS);
        assert.deepEqual(a, { partition: 5, holder: "a", epoch: 1, expires: T0 + LEASE_MS });
        // Live: nobody takes it, whichever instance asks.
        assert.equal(await takeOne(other, 5, "b", T0 + LEASE_MS - 1, T0 + 2 * LEASE_MS), null);
        assert.equal(await takeOne(leases, 5, "a", T0 + 1, T0 + 2 * LEASE_MS), null);
        // Renewed by its holder at its epoch only.
        assert.deepEqual(await other.renew("b", [{ ...a!, holder: "b" }], T0 + 3 * LEASE_MS), []);
        assert.deepEqual(await other.renew("a", [{ ...a!, epoch: 2 }], T0 + 3 * LEASE_MS), []);
        assert.deepEqual(await other.renew("a", [a!], T0 + 2 * LEASE_MS), [5]);
        assert.equal(await takeOne(other, 5, "b", T0 + 2 * LEASE_MS - 1, T0 + 3 * LEASE_MS), null);
        // Expired: taken over, the epoch one higher; the old holder renews it no more.
        const b = await takeOne(other, 5, "b", T0 + 2 * LEASE_MS, T0 + 3 * LEASE_MS);
        assert.deepEqual(b, { partition: 5, holder: "b", epoch: 2, expires: T0 + 3 * LEASE_MS });
        assert.deepEqual(await leases.renew("a", [a!], T0 + 4 * LEASE_MS), []);
        assert.deepEqual((await leases.all())[5], b);
        // A release by another, or at another epoch, changes nothing; by its holder, frees it.
        await leases.release("a", [a!, { ...b!, holder: "a" }]);
        assert.equal(await takeOne(leases, 5, "a", T0 + 2 * LEASE_MS + 1, T0 + 4 * LEASE_MS), null);
        await other.release("b", [b!]);
        const again = await takeOne(leases, 5, "a", T0 + 2 * LEASE_MS + 1, T0 + 4 * LEASE_MS);
        assert.equal(again?.epoch, 3);
        // Other partitions are untouched.
        assert.deepEqual((await other.all()).filter((l) => l.holder !== null), [again]);
        // Many at once: those free or expired are taken, a live one is left to its holder.
        const now = T0 + 2 * LEASE_MS + 2;
        const many = await other.take([12, 5, 4, 63], "b", now, now + LEASE_MS);
        assert.deepEqual(many.map((l) => [l.partition, l.holder, l.epoch]), [
          [4, "b", 1],
          [12, "b", 1],
          [63, "b", 1],
        ]);
        assert.deepEqual(await leases.take([4, 5], "a", now, now + LEASE_MS), []);
      }),
  }),
  (f) => ({
    name: "two instances taking free partitions at once: each is taken by exactly one",
    fn: () =>
      withStore(f, async (store, place) => {
        const two = await place.open();
        for (let p = 0; p < 6; p++) {
          const got = await Promise.all(
            [store, two].map((s, i) => takeOne(s.leases, p, `i${i}`, T0, T0 + LEASE_MS)),
          );
          assert.equal(got.filter((l) => l !== null).length, 1, JSON.stringify(got));
        }
        // Both reaching for all the others at once: each taken by exactly one of them.
        const rest = [...Array(PARTITIONS).keys()].slice(6);
        const [x, y] = await Promise.all(
          [store, two].map((s, i) => s.leases.take(rest, `i${i}`, T0, T0 + LEASE_MS)),
        );
        const taken = [...x!, ...y!].map((l) => l.partition).sort((a, b) => a - b);
        assert.deepEqual(taken, rest);
      }),
  }),
  (f) => ({
    name: "instances are present until their time, and gone once they leave",
    fn: () =>
      withStore(f, async (store, place) => {
        const other = (await place.open()).leases;
        assert.deepEqual(await store.leases.presence("b", T0, T0 + LEASE_MS), ["b"]);
        assert.deepEqual(await other.presence("a", T0 + 1, T0 + 1 + LEASE_MS), ["a", "b"]);
        assert.deepEqual(await other.presence("a", T0 + LEASE_MS, T0 + 2 * LEASE_MS), ["a"]);
        assert.deepEqual(await store.leases.presence("b", T0 + LEASE_MS, T0 + 2 * LEASE_MS), [
          "a",
          "b",
        ]);
        assert.deepEqual(await other.presence("a", T0 + LEASE_MS, T0 + LEASE_MS), ["b"]);
      }),
  }),
  (f) => ({
    name:
      "a commit fenced by a lease taken over is refused `fenced` and writes nothing; the new holder's lands",
    fn: () =>
      withStore(f, async (one, place) => {
        const two = await place.open();
        const a = (await takeOne(one.leases, 3, "a", T0, T0 + LEASE_MS))!;
        const fenceA: Fence = { partition: 3, holder: "a", epoch: a.epoch };
        const v1 = await committed(one, writeOf("acct", "x", null, { fence: fenceA }));
        // Unfenced writes of other actors never read a lease.
        await committed(one, writeOf("acct", "y", null));
        const b = (await takeOne(two.leases, 3, "b", T0 + LEASE_MS, T0 + 2 * LEASE_MS))!;
        const stale = writeOf("acct", "x", v1, {
          seq: 2,
          fence: fenceA,
          events: eventsOf(2, 2),
          timerSet: [{ name: "t", at: 5 }],
          unpublishedFrom: 2,
        });
        assert.deepEqual(await one.commit([stale]), fenced(3));
        assert.deepEqual(await one.load({ type: "acct", id: "x" }), {
          version: v1,
          record: writeOf("acct", "x", null).record,
        });
        assert.deepEqual(await eventsFrom(one, { type: "acct", id: "x" }), []);
        assert.deepEqual(await one.dueTimers(10, 10), []);
        // A group touching another partition held by `a` still fails whole.
        const held = (await takeOne(one.leases, 4, "a", T0 + LEASE_MS, T0 + 2 * LEASE_MS))!;
        const fresh = writeOf("acct", "z", null, {
          fence: { partition: 4, holder: "a", epoch: held.epoch },
        });
        assert.deepEqual(await one.commit([fresh, stale]), fenced(3));
        assert.equal(await one.load({ type: "acct", id: "z" }), null);
        // The new holder's commit lands; a version conflict under a good fence stays a conflict.
        const fenceB: Fence = { partition: 3, holder: "b", epoch: b.epoch };
        await committed(
          two,
          writeOf("acct", "x", v1, { seq: 2, state: { by: "b" }, fence: fenceB }),
        );
        assert.deepEqual(await two.commit([{ ...stale, fence: fenceB }]), CONFLICT);
        assert.deepEqual((await one.load({ type: "acct", id: "x" }))?.record.state, { by: "b" });
        // A renewal moves no fence: commits under it still land.
        assert.deepEqual(await two.leases.renew("b", [fenceB], T0 + 3 * LEASE_MS), [3]);
        await committed(two, writeOf("acct", "w", null, { fence: fenceB }));
      }),
  }),
  (f) => ({
    name:
      "commits racing a take of their partitions: each lands or is refused `fenced`, and none after it",
    fn: () =>
      withStore(f, async (one, place) => {
        const two = await place.open();
        const held = await one.leases.take([3, 4], "a", T0, T0 + LEASE_MS);
        const [f3, f4] = held.map((l): Fence => ({
          partition: l.partition,
          holder: "a",
          epoch: l.epoch,
        }));
        const commits = Array.from({ length: 12 }, (_, i) =>
          one.commit([
            writeOf("acct", `r${i}`, null, { fence: f3! }),
            writeOf("acct", `s${i}`, null, { fence: f4! }),
          ]));
        const [taken] = await Promise.all([
          two.leases.take([3, 4], "b", T0 + LEASE_MS, T0 + 2 * LEASE_MS),
          ...commits,
        ]);
        assert.deepEqual(taken!.map((l) => l.partition), [3, 4]);
        for (const r of await Promise.all(commits)) {
          assert.ok(
            r.ok || (r.reason === "fenced" && [3, 4].includes(r.partition)),
            JSON.stringify(r),
          );
        }
        const late = await one.commit([writeOf("acct", "late", null, { fence: f4! })]);
        assert.deepEqual(late, fenced(4));
      }),
  }),
];
