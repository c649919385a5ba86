/**
 * Fencing (src/runtime/fencing.ts, issue 43 item 2): two runtimes on one store under leased
 * placements. A stale owner (its clock behind, so it still counts on a lease another instance
 * took over) has its commit refused by the store: its write does not land, the new owner's does;
 * and an instance answers nothing for a partition it does not hold. Each runtime has a bus of its
 * own, so a forward finds no holder and fails at once (forwardWaitMs 0), naming the partition. On
 * Deno KV, and on Postgres when DATABASE_URL is set.
 */
import assert from "node:assert/strict";
import { PARTITIONS } from "../../src/limits.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { LeasedPlacement } from "../../src/runtime/leases.ts";
import { partitionOf } from "../../src/runtime/placement.ts";
import { PartitionUnavailable } from "../../src/runtime/forwarding.ts";
import { accountActor, dropTestStore, openTestRuntime, type TestStoreKind } from "./fixtures.ts";

const LEASE_MS = 10_000;

for (const kind of ["kv", "postgres"] as const satisfies readonly TestStoreKind[]) {
  Deno.test({
    name:
      `fencing (${kind}): a stale owner's commit is refused and its write does not land, the new owner's does; memory of a moved partition is forgotten`,
    ignore: kind === "postgres" && !Deno.env.has("DATABASE_URL"),
    async fn() {
      const dir = await Deno.makeTempDir();
      const path = `${dir}/store.kv`;
      // Two clocks: `b`'s runs ahead, so `b` finds `a`'s leases expired while `a` still counts
      // on them (what a paused process or a skewed clock makes).
      const [clockA, clockB] = [new ManualClock(), new ManualClock()];
      // An instance: its runtime on the shared store, under its own leased placement.
      const instance = async (name: string, clock: ManualClock) => {
        let placement: LeasedPlacement | undefined;
        const r = await openTestRuntime(path, {
          store: kind,
          clock,
          placed: { forwardWaitMs: 0 },
          placement: (store) =>
            placement = new LeasedPlacement({
              store: store.leases,
              clock,
              instance: name,
              leaseMs: LEASE_MS,
            }),
        });
        return [r, placement!] as const;
      };
      const [ra, a] = await instance("a", clockA);
      const [rb, b] = await instance("b", clockB);
      try {
        await a.start();
        await b.start();
        const id = "acct_fenced";
        const partition = partitionOf({ type: accountActor.type, id });
        assert.equal(a.held(partition), 1);
        const credited = await ra.runtime.ask(accountActor, "biz_1", id, {
          kind: "credit",
          amount: 5,
        });
        assert.ok(credited.ok && credited.reply.balance === 5);
        // Another actor `a` holds in memory, and is not asked again before its lease moves.
        const other = "acct_remembered";
        await ra.runtime.ask(accountActor, "biz_1", other, { kind: "credit", amount: 1 });
        // `b` holds nothing and finds no holder: it decides nothing and names the partition.
        const refused = await rb.runtime.ask(accountActor, "biz_1", id, {
          kind: "credit",
          amount: 1,
        })
          .catch((e) => e);
        assert.ok(
          refused instanceof PartitionUnavailable && refused.partition === partition,
          String(refused),
        );
        await assert.rejects(
          rb.runtime.read(accountActor, "biz_1", id, { kind: "get" }),
          PartitionUnavailable,
        );
        // `b`'s clock passes `a`'s lease: `b` takes every partition over.
        clockB.advanceBy(LEASE_MS);
        await b.renew();
        assert.equal(b.held(partition), 2);
        assert.equal(a.held(partition), 1); // `a` does not know yet
        // `a` decides on its memory, but the store refuses the commit: nothing of it lands.
        await assert.rejects(
          ra.runtime.ask(accountActor, "biz_1", id, { kind: "credit", amount: 100 }),
          (e) => e instanceof PartitionUnavailable && e.partition === partition,
        );
        const byB = await rb.runtime.ask(accountActor, "biz_1", id, { kind: "credit", amount: 2 });
        assert.ok(byB.ok && byB.reply.balance === 7, JSON.stringify(byB));
        const events = [];
        for await (const e of rb.runtime.events(accountActor, id)) events.push(e.event);
        assert.deepEqual(events, [{ kind: "credited", amount: 5 }, {
          kind: "credited",
          amount: 2,
        }]);
        // At its next renewal `a` finds its leases gone: it holds and answers nothing.
        await a.renew();
        assert.deepEqual(a.heldPartitions(), []);
        assert.equal(a.ownerOf(partition), "b");
        await assert.rejects(
          ra.runtime.read(accountActor, "biz_1", id, { kind: "get" }),
          PartitionUnavailable,
        );
        // `b` changes the other actor, then stops; `a` takes everything back and reads the actor
        // afresh: its memory from before the move is forgotten, never answered from.
        await rb.runtime.ask(accountActor, "biz_1", other, { kind: "credit", amount: 10 });
        await b.close();
        await a.renew();
        assert.equal(a.heldPartitions().length, PARTITIONS);
        const read = await ra.runtime.read(accountActor, "biz_1", other, { kind: "get" });
        assert.ok(read.ok && read.reply.balance === 11, JSON.stringify(read));
      } finally {
        await a.close();
        await b.close();
        await ra.close();
        await rb.close();
        await dropTestStore(path, kind);
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}
