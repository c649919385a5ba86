/**
 * Work done once across the cluster (issue 43 item 3): two instances on one store and bus, `a`
 * holding the even partitions and `b` the odd ones. A reactor handles each change once, on its
 * actor's holder, and a projection writes each once; per-instance handlers hear every change;
 * due timers fire once, on the holder; outbox items are handled once, by the holder; and a
 * partition moved from a to b is swept by b at once, which finishes what a left.
 */
import assert from "node:assert/strict";
import { type ActorChange, type Bus, EVERY_INSTANCE, subjectPattern } from "../../src/bus/bus.ts";
import { UnitReactor } from "../../src/bus/reactor.ts";
import { BusProjection, parseChange } from "../../src/db/bus_projection.ts";
import { writeChanges } from "../../src/db/projection.ts";
import { accept, type ActorDefinition } from "../../src/runtime/actor.ts";
import { partitionOf } from "../../src/runtime/placement.ts";
import type { OutboxItem } from "../../src/runtime/store.ts";
import { idsIn } from "../helpers/once_placement.ts";
import { openTestDatabase } from "../db/helpers.ts";
import {
  failingWhile,
  type Instance,
  markersHeldBack,
  openWorld,
  type World,
} from "./work_once_world.ts";

const T = "biz_once";
const SALES = "test_once_sales";

type JobCommand =
  | { kind: "sell"; amount: number }
  | { kind: "remind_at"; at: number }
  | { kind: "get" };
type JobEvent = { kind: "sold"; amount: number } | { kind: "reminded" };
interface Job {
  readonly total: number;
  readonly reminders: number;
}

/** A job whose sales add an outbox item each and whose reminder is a durable timer. */
const jobActor: ActorDefinition<Job, JobCommand, JobEvent, Job> = {
  type: "test_once_job",
  version: 1,
  initial: { total: 0, reminders: 0 },
  decide(_state, c) {
    const reply = (s: Job) => s;
    if (c.kind === "timer") return accept([{ kind: "reminded" }], reply);
    if (c.kind === "sell") return accept([{ kind: "sold", amount: c.amount }], reply);
    if (c.kind === "remind_at") return accept([], reply, [{ op: "set", name: "remind", at: c.at }]);
    return accept([], reply);
  },
  evolve: (s, e) =>
    e.kind === "sold" ? { ...s, total: s.total + e.amount } : { ...s, reminders: s.reminders + 1 },
  outbox: (e) => e.kind === "sold" ? [{ outbox: SALES, payload: { amount: e.amount } }] : [],
  project: (s) => s,
};

/** Ten jobs of a's partitions (even) and ten of b's (odd). */
const JOBS = [...idsIn(jobActor.type, 0, 10, "job"), ...idsIn(jobActor.type, 1, 10, "job")];

const keyOf = (id: string) => ({ type: jobActor.type, id });

function ask(w: World, id: string, command: JobCommand, via?: Instance) {
  return (via ?? w.holder(keyOf(id))).runtime.ask(jobActor, T, id, command);
}

/** A reactor over the jobs' changes on one instance: what it handled, as `instance id seq`. */
function countingReactor(i: Instance, seen: string[]): UnitReactor<number> {
  return new UnitReactor({ runtime: i.runtime, bus: i.bus }, {
    worker: "test_once_counter",
    actorType: jobActor.type,
    unitsOf: (change) => change.events.map((e) => e.seq),
    work: (seq, change) => Promise.resolve(seen.push(`${i.name} ${change.id} ${seq}`)),
    describe: (seq, change) => `${change.id} ${seq}`,
  });
}

/** An outbox handler on one instance: what it handled, as `instance id seq`. */
function salesHandler(i: Instance, seen: string[]): (item: OutboxItem) => Promise<void> {
  return (item) => Promise.resolve(void seen.push(`${i.name} ${item.id} ${item.seq}`));
}

/** Every `instance id seq` a holder should have handled for these jobs' seqs. */
function byHolder(w: World, ids: readonly string[], seqs: readonly number[]): string[] {
  return ids.flatMap((id) => seqs.map((seq) => `${w.holder(keyOf(id)).name} ${id} ${seq}`))
    .sort();
}

Deno.test("work once: a reactor handles each change once on its holder, a projection writes each once, a per-instance handler hears all", async () => {
  await using db = await openTestDatabase();
  const w = await openWorld([jobActor]);
  const handled: string[] = [];
  const written: string[] = [];
  const heard = { a: 0, b: 0 };
  const reactors = [countingReactor(w.a, handled), countingReactor(w.b, handled)];
  const projection = (i: Instance) =>
    new BusProjection<ActorChange>({
      bus: i.bus,
      db: db.db,
      env: w.busPrefix,
      handledBy: i.placement,
    }, {
      name: "snapshots",
      type: jobActor.type,
      limits: { itemsMax: 100 },
      take: (change) => change,
      write: (changes) => {
        for (const c of changes) written.push(`${i.name} ${c.id} ${c.version}`);
        return writeChanges(db.db, changes);
      },
      parked: (change) => change,
      unparked: parseChange,
    });
  const projections = [projection(w.a), projection(w.b)];
  const every = (i: Instance, bus: Bus) =>
    bus.subscribe(subjectPattern(w.busPrefix, "*", jobActor.type), () => {
      heard[i.name]++;
    }, { handledBy: EVERY_INSTANCE });
  const subs = [every(w.a, w.a.bus), every(w.b, w.b.bus)];
  try {
    await w.start();
    for (const id of JOBS) {
      for (const amount of [5, 7]) assert.ok((await ask(w, id, { kind: "sell", amount })).ok);
    }
    await w.flush();
    for (const p of projections) await p.idle();
    assert.deepEqual(handled.sort(), byHolder(w, JOBS, [1, 2]), "each change once, by its holder");
    assert.deepEqual(heard, { a: 40, b: 40 }, "a per-instance handler hears every change");
    // A projection takes a change once; it may batch one actor's two changes into one write.
    const versions = written.map((r) => r.split(" ")).map(([by, id, v]) => ({ by, id, v }));
    for (const id of JOBS) {
      const mine = versions.filter((r) => r.id === id);
      assert.ok(
        mine.every((r) => r.by === w.holder(keyOf(id)).name),
        `${id} written by its holder`,
      );
      assert.equal(new Set(mine.map((r) => r.v)).size, mine.length, `${id} written once a version`);
    }
    const rows = await db.db.selectFrom("snapshots").select(["id", "version"])
      .where("type", "=", jobActor.type).execute();
    assert.deepEqual(
      rows.map((r) => `${r.id} ${r.version}`).sort(),
      JOBS.map((id) => `${id} 2`).sort(),
    );
  } finally {
    for (const s of subs) s.unsubscribe();
    for (const r of reactors) await r.close();
    for (const p of projections) await p.stop();
    await w.close();
  }
});

Deno.test("work once: due timers fire once, each on its holder", async () => {
  const w = await openWorld([jobActor]);
  try {
    await w.start();
    const at = w.clock.now() + 60_000;
    for (const id of JOBS) assert.ok((await ask(w, id, { kind: "remind_at", at })).ok);
    w.clock.advanceBy(60_000);
    const [a, b] = await Promise.all([w.a.runtime.fireDueTimers(), w.b.runtime.fireDueTimers()]);
    assert.deepEqual({ a, b }, { a: 10, b: 10 }, "each instance fired its own partitions' timers");
    assert.equal(await w.a.runtime.fireDueTimers() + await w.b.runtime.fireDueTimers(), 0);
    for (const id of JOBS) {
      const r = await ask(w, id, { kind: "get" });
      assert.ok(r.ok && r.reply.reminders === 1, `${id} reminded once`);
    }
  } finally {
    await w.close();
  }
});

Deno.test("work once: outbox items are handled once, by their holder, also for a command asked through the other instance (forwarded there)", async () => {
  const w = await openWorld([jobActor]);
  const handled: string[] = [];
  try {
    await w.start();
    // Committed while no instance handles the outbox: stored for the sweeps.
    for (const id of JOBS) assert.ok((await ask(w, id, { kind: "sell", amount: 3 })).ok);
    for (const i of [w.a, w.b]) i.runtime.handleOutbox(SALES, salesHandler(i, handled));
    await Promise.all([w.a.runtime.sweepOutboxes(), w.b.runtime.sweepOutboxes()]);
    assert.deepEqual(handled.sort(), byHolder(w, JOBS, [1]), "each swept once, by its holder");
    // Handled as committed, by the holder; a command asked through the other instance is
    // forwarded to the holder, so it commits and is handled there too.
    handled.length = 0;
    const [mine, other] = [JOBS[0]!, JOBS[10]!];
    assert.ok((await ask(w, mine, { kind: "sell", amount: 4 })).ok);
    assert.ok((await ask(w, other, { kind: "sell", amount: 4 }, w.a)).ok);
    await Promise.all([w.a.runtime.outboxesIdle(), w.b.runtime.outboxesIdle()]);
    assert.deepEqual(handled.sort(), [`a ${mine} 2`, `b ${other} 2`]);
    await Promise.all([w.a.runtime.sweepOutboxes(), w.b.runtime.sweepOutboxes()]);
    assert.deepEqual(handled, [`a ${mine} 2`, `b ${other} 2`], "nothing handled twice");
    assert.deepEqual(await w.a.store.outboxItems(SALES, 100), []);
  } finally {
    await w.close();
  }
});

Deno.test("work once: a partition moved from a to b is swept by b at once: the change a kept off the bus, its outbox item, its due timer", async () => {
  let aDown = false;
  const w = await openWorld([jobActor], (name, bus) =>
    name === "b" ? bus : {
      publish: (subject, payload, options) =>
        aDown
          ? Promise.reject(new Error("connection lost"))
          : bus.publish(subject, payload, options),
      subscribe: (pattern, handler, options) => bus.subscribe(pattern, handler, options),
      flush: () => bus.flush(),
      drain: () => bus.drain(),
      request: (subject, payload, options) => bus.request(subject, payload, options),
      serve: (subject, handler) => bus.serve(subject, handler),
    });
  const changes: string[] = [];
  const sold: string[] = [];
  const reactors = [countingReactor(w.a, changes), countingReactor(w.b, changes)];
  // a's endpoint is down: its item stays stored.
  w.a.runtime.handleOutbox(SALES, () => Promise.reject(new Error("endpoint down")));
  w.b.runtime.handleOutbox(SALES, salesHandler(w.b, sold));
  const job = JOBS[0]!;
  const partition = partitionOf(keyOf(job));
  try {
    await w.start();
    assert.ok((await ask(w, job, { kind: "remind_at", at: w.clock.now() + 1_000 })).ok);
    aDown = true;
    assert.ok((await ask(w, job, { kind: "sell", amount: 9 })).ok, "committed, not published");
    w.clock.advanceBy(1_000); // the reminder is due, and a fires nothing
    await w.a.runtime.outboxesIdle();
    assert.deepEqual([changes, sold], [[], []]);
    assert.equal((await w.b.store.unpublished(10)).length, 1, "a left its marker");

    w.move(partition, "b");
    await w.b.runtime.gainsSwept();
    await w.flush();
    await w.b.runtime.outboxesIdle();
    assert.deepEqual(
      changes,
      [`b ${job} 1`, `b ${job} 2`],
      "the change republished, then the timer's",
    );
    assert.deepEqual(sold, [`b ${job} 1`], "the outbox item handled by b");
    const r = await w.b.runtime.ask(jobActor, T, job, { kind: "get" });
    assert.ok(r.ok && r.reply.reminders === 1 && r.reply.total === 9);
    // a, no longer the holder, clears no marker and hands over no item of the partition.
    await w.a.runtime.sweepMarkers();
    await w.a.runtime.sweepOutboxes();
    await w.b.runtime.sweepMarkers(); // b's own marker of the timer's change
    assert.deepEqual(await w.b.store.unpublished(10), []);
    assert.deepEqual(await w.b.store.outboxItems(SALES, 10), []);
    assert.deepEqual(sold, [`b ${job} 1`]);
  } finally {
    for (const r of reactors) await r.close();
    await w.close();
  }
});

Deno.test("work once: on a partition gained, a commit before the gained sweep lists the old holder's marker keeps it at the first change kept off the bus, and that change is published", async () => {
  let aDown = false;
  let release = () => {};
  const listing = new Promise<void>((r) => release = r);
  let holdListing = false;
  const w = await openWorld(
    [jobActor],
    (name, bus) => name === "a" ? failingWhile(bus, () => aDown) : bus,
    (name, store) =>
      name === "b" ? markersHeldBack(store, () => holdListing ? listing : undefined) : store,
  );
  const changes: string[] = [];
  const reactors = [countingReactor(w.a, changes), countingReactor(w.b, changes)];
  const job = JOBS[0]!;
  try {
    await w.start();
    aDown = true;
    assert.ok((await ask(w, job, { kind: "sell", amount: 9 })).ok, "committed, not published");
    holdListing = true; // b's sweep of the partition gained waits before it lists the markers
    w.move(partitionOf(keyOf(job)), "b");
    assert.ok((await ask(w, job, { kind: "sell", amount: 1 })).ok, "b's commit lands first");
    assert.deepEqual(
      (await w.a.store.unpublished(10)).map((u) => [u.id, u.from]),
      [[job, 1]],
      "the marker still names seq 1",
    );
    await w.b.runtime.sweepMarkers(); // b's own sweep may take the marker before the listing
    release();
    await w.b.runtime.gainsSwept();
    await w.flush();
    assert.deepEqual([...new Set(changes)].sort(), [`b ${job} 1`, `b ${job} 2`]);
    await w.b.runtime.sweepMarkers();
    assert.deepEqual(await w.a.store.unpublished(10), []);
  } finally {
    release();
    for (const r of reactors) await r.close();
    await w.close();
  }
});

Deno.test("work once: an actor whose marker was still set when its partition moved away is let go from memory by its old holder", async () => {
  let aDown = false;
  const w = await openWorld(
    [jobActor],
    (name, bus) => name === "a" ? failingWhile(bus, () => aDown) : bus,
  );
  const job = JOBS[0]!;
  try {
    await w.start();
    aDown = true; // its publication fails: the marker stays set at a
    assert.ok((await ask(w, job, { kind: "sell", amount: 9 })).ok);
    await w.a.runtime.sweepMarkers();
    assert.equal(w.a.runtime.activeActors, 1);
    w.move(partitionOf(keyOf(job)), "b");
    await w.a.runtime.sweepMarkers();
    assert.equal(w.a.runtime.activeActors, 0, "the marker is b's to recover now");
    await w.b.runtime.gainsSwept();
    assert.deepEqual(await w.b.store.unpublished(10), [], "b published the change, cleared it");
  } finally {
    await w.close();
  }
});
