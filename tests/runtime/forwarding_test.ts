/**
 * Forwarding (issue 43 item 2): runtimes on one store and one bus, each holding some partitions
 * (tests/helpers/forward_placement.ts). An ask or read through an instance that does not hold
 * the actor is made by the one that does. The in-process bus always; NATS too when NATS_URL is
 * set (one connection per instance, as separate processes would have).
 */
import assert from "node:assert/strict";
import { type Bus, partitionSubject } from "../../src/bus/bus.ts";
import { MemoryBus } from "../../src/bus/memory_bus.ts";
import { NatsBus } from "../../src/bus/nats_bus.ts";
import { asApiError } from "../../src/http/errors.ts";
import {
  type Forwarded,
  Forwarding,
  type ForwardObserved,
  PartitionUnavailable,
} from "../../src/runtime/forwarding.ts";
import { partitionOf } from "../../src/runtime/placement.ts";
import { ActorFailure, ActorRuntime } from "../../src/runtime/runtime.ts";
import { ForwardCluster, idOwnedBy } from "../helpers/forward_placement.ts";
import { accountActor, openTestRuntime, type TestRuntime } from "./fixtures.ts";

const T = "tenant_fwd";
const natsUrl = Deno.env.get("NATS_URL");

interface Instances {
  readonly cluster: ForwardCluster;
  readonly rt: Record<string, ActorRuntime>;
  readonly seen: Record<string, ForwardObserved[]>;
  /** Told of each forward an instance sends or serves, as it happens. */
  readonly on: Record<string, (o: ForwardObserved) => void>;
  close(): Promise<void>;
}

/** Instances `names` (the first opens the store) on one store, each on its own bus connection. */
async function instances(
  nats: boolean,
  names: readonly string[] = ["a", "b"],
  forwardWaitMs = 2_000,
): Promise<Instances> {
  const cluster = new ForwardCluster();
  const shared = new MemoryBus();
  const busOf = (): Promise<Bus> => nats ? NatsBus.connect(natsUrl!) : Promise.resolve(shared);
  // One prefix per test: tests sharing one NATS server never answer each other's forwards.
  const env = `fwd${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const seen: Record<string, ForwardObserved[]> = {};
  const on: Record<string, (o: ForwardObserved) => void> = {};
  const placed = (name: string) => ({
    placement: cluster.placement(name),
    forwardWaitMs,
    onForward: (o: ForwardObserved) => {
      (seen[name] ??= []).push(o);
      on[name]?.(o);
    },
  });
  const first: TestRuntime = await openTestRuntime(":memory:", {
    env,
    bus: await busOf(),
    placed: placed(names[0]!),
  });
  const rt: Record<string, ActorRuntime> = { [names[0]!]: first.runtime };
  const buses: Bus[] = [];
  for (const name of names.slice(1)) {
    const bus = await busOf();
    buses.push(bus);
    rt[name] = new ActorRuntime({
      env,
      store: first.store,
      bus,
      clock: first.clock,
      definitions: [accountActor],
      onError: () => {},
      ...placed(name),
    });
    await rt[name]!.start();
  }
  return {
    cluster,
    rt,
    seen,
    on,
    async close() {
      for (const name of names.slice(1)) await rt[name]!.close();
      if (nats) { for (const bus of buses) await bus.drain(); }
      await first.close();
      if (nats) await first.bus.drain();
    },
  };
}

const buses = [{ name: "memory", nats: false }, { name: "nats", nats: true }];

for (const { name, nats } of buses) {
  const ignore = nats && !natsUrl;

  Deno.test({
    name:
      `forwarding (${name}): an ask through the non-holder is decided by the holder, and a read through either sees an acknowledged write at once`,
    ignore,
    fn: async () => {
      const x = await instances(nats);
      const { a, b } = x.rt as { a: ActorRuntime; b: ActorRuntime };
      try {
        const id = idOwnedBy(x.cluster, accountActor.type, "a");
        const credited = await b.ask(accountActor, T, id, { kind: "credit", amount: 5 });
        assert.deepEqual(credited, {
          ok: true,
          reply: { balance: 5, seen: [], reminders: 0, email: null },
          replayed: false,
        });
        // The holder holds the actor in memory; the forwarder never activated it.
        assert.equal(a.activeActors, 1);
        assert.equal(b.activeActors, 0);
        assert.deepEqual(x.seen.b?.map((o) => `${o.role} ${o.outcome}`), ["sent ok"]);
        assert.deepEqual(x.seen.a?.map((o) => `${o.role} ${o.outcome}`), ["served ok"]);
        // Written through one, read through the other at once, both ways.
        assert.ok((await a.ask(accountActor, T, id, { kind: "credit", amount: 2 })).ok);
        const viaB = await b.read(accountActor, T, id, { kind: "get" });
        assert.equal(viaB.ok && viaB.reply.balance, 7);
        assert.ok((await b.ask(accountActor, T, id, { kind: "debit", amount: 3 })).ok);
        const viaA = await a.read(accountActor, T, id, { kind: "get" });
        assert.equal(viaA.ok && viaA.reply.balance, 4);
        // Another tenant is told what a missing actor tells, through either instance.
        const other = await b.read(accountActor, "tenant_other", id, { kind: "get" });
        assert.deepEqual(other, await a.read(accountActor, "tenant_other", id, { kind: "get" }));
      } finally {
        await x.close();
      }
    },
  });

  Deno.test({
    name:
      `forwarding (${name}): a rejection and a failure cross unchanged, and an idempotent replay through the other instance answers the first reply`,
    ignore,
    fn: async () => {
      const x = await instances(nats);
      const { a, b } = x.rt as { a: ActorRuntime; b: ActorRuntime };
      try {
        const id = idOwnedBy(x.cluster, accountActor.type, "b");
        const debit = { kind: "debit", amount: 100 } as const;
        const refused = await a.ask(accountActor, T, id, debit);
        assert.deepEqual(refused, await b.ask(accountActor, T, id, debit));
        assert.deepEqual(refused, {
          ok: false,
          code: "insufficient_balance",
          message: "available 0",
        });
        const failed = (rt: ActorRuntime) =>
          rt.ask(accountActor, T, id, { kind: "explode" }).then(
            () => assert.fail("a command that throws fails its ask"),
            (e: Error) => ({ type: e.constructor.name, name: e.name, message: e.message }),
          );
        const viaA = await failed(a);
        assert.deepEqual(viaA, await failed(b));
        assert.deepEqual(viaA, {
          type: "ActorFailure",
          name: "ActorFailure",
          message: "invariant broken on purpose",
        });
        const credit = { kind: "credit", amount: 5 } as const;
        const first = await a.ask(accountActor, T, id, credit, { idempotencyKey: "k1" });
        const again = await b.ask(accountActor, T, id, credit, { idempotencyKey: "k1" });
        assert.ok(first.ok && again.ok);
        assert.deepEqual(again.reply, first.reply);
        assert.equal(again.replayed, true);
        const now = await a.read(accountActor, T, id, { kind: "get" });
        assert.equal(now.ok && now.reply.balance, 5, "applied once");
      } finally {
        await x.close();
      }
    },
  });

  Deno.test({
    name:
      `forwarding (${name}): a partition moved mid-way is retried at its new holder, and one moved back is read afresh`,
    ignore,
    fn: async () => {
      const x = await instances(nats, ["a", "b", "c"]);
      const { a, b, c } = x.rt as { a: ActorRuntime; b: ActorRuntime; c: ActorRuntime };
      try {
        const id = idOwnedBy(x.cluster, accountActor.type, "a");
        const p = partitionOf({ type: accountActor.type, id });
        assert.ok((await a.ask(accountActor, T, id, { kind: "credit", amount: 5 })).ok);
        // `a` loses the partition without having heard yet: a forward meets it and is told
        // `not_owner`; as it answers, the partition goes to `c`.
        x.cluster.move(p, undefined, { quietly: true });
        x.on.a = (o) => {
          if (o.outcome === "not_owner") x.cluster.move(p, "c");
        };
        const credited = await b.ask(accountActor, T, id, { kind: "credit", amount: 1 });
        assert.deepEqual(x.seen.a?.map((o) => `${o.role} ${o.outcome}`), ["served not_owner"]);
        assert.equal(credited.ok && credited.reply.balance, 6, "decided by c on the stored state");
        assert.deepEqual(x.seen.c?.map((o) => `${o.role} ${o.outcome}`), ["served ok"]);
        assert.equal(x.seen.b?.length, 1);
        // Back to `a`, which let go of what it held: it reads c's write, never its stale copy.
        x.cluster.move(p, "a");
        const back = await a.read(accountActor, T, id, { kind: "get" });
        assert.equal(back.ok && back.reply.balance, 6, JSON.stringify(back));
        assert.equal(c.activeActors, 0, "c let go of the actor it no longer holds");
      } finally {
        await x.close();
      }
    },
  });
}

Deno.test("forwarding: with no holder the forward fails within its bound, 503 partition_unavailable with Retry-After", async () => {
  const x = await instances(false, ["a", "b"], 40);
  const b = x.rt.b!;
  try {
    const id = idOwnedBy(x.cluster, accountActor.type, "a");
    const p = partitionOf({ type: accountActor.type, id });
    x.cluster.move(p, undefined);
    const started = performance.now();
    const error = await b.ask(accountActor, T, id, { kind: "credit", amount: 1 }).then(
      () => assert.fail("nobody holds the partition"),
      (e: unknown) => e,
    );
    const took = performance.now() - started;
    assert.ok(error instanceof PartitionUnavailable);
    assert.equal(error.partition, p);
    assert.equal(error.actor, `test_account ${id}`);
    assert.match(error.message, new RegExp(`^no instance answers for partition ${p} \\(`));
    assert.ok(!error.message.includes(id), "the caller is told no actor's id");
    assert.ok(took >= 40 && took < 1_000, `bounded: ${took} ms`);
    const answer = asApiError(error);
    assert.equal(answer?.status, 503);
    assert.equal(answer?.code, "partition_unavailable");
    assert.deepEqual(answer?.headers, { "Retry-After": "1" });
    assert.deepEqual(x.seen.b?.map((o) => o.outcome), ["failed"]);
    // Nothing was done: the partition's next holder finds no credit.
    x.cluster.move(p, "a");
    const now = await x.rt.a!.read(accountActor, T, id, { kind: "get" });
    assert.equal(now.ok && now.reply.balance, 0);
  } finally {
    await x.close();
  }
});

Deno.test("forwarding: a command JSON would change is refused before it is sent", async () => {
  const x = await instances(false);
  try {
    const id = idOwnedBy(x.cluster, accountActor.type, "a");
    const command = { kind: "credit", amount: 1, at: new Date(0) } as never;
    await assert.rejects(
      () => x.rt.b!.ask(accountActor, T, id, command),
      new TypeError("command.at (a Date) cannot cross between instances as JSON"),
    );
    assert.equal(x.seen.b, undefined, "nothing sent");
  } finally {
    await x.close();
  }
  // A closed instance forwards nothing either, as it asks nothing.
  await assert.rejects(
    () =>
      x.rt.b!.ask(accountActor, T, idOwnedBy(x.cluster, accountActor.type, "a"), { kind: "get" }),
    new ActorFailure("runtime is closed"),
  );
});

Deno.test("forwarding: one instance alone serves and forwards nothing", async () => {
  const served: string[] = [];
  const bus = new MemoryBus();
  const serve = bus.serve.bind(bus);
  bus.serve = (subject, handler) => {
    served.push(subject);
    return serve(subject, handler);
  };
  const rt = await openTestRuntime(":memory:", { bus });
  try {
    assert.ok((await rt.runtime.ask(accountActor, T, "solo", { kind: "credit", amount: 1 })).ok);
    assert.deepEqual(served, []);
  } finally {
    await rt.close();
  }
});

Deno.test("forwarding: a holder that does not answer in time fails the forward at once, its outcome unknown", async () => {
  const cluster = new ForwardCluster(() => "z");
  const bus = new MemoryBus();
  const seen: ForwardObserved[] = [];
  const forwarding = new Forwarding({
    bus,
    busPrefix: "fwd_stuck",
    placement: cluster.placement("a"),
    local: () => Promise.reject(new Error("nothing is held here")),
    released: () => {},
    timeoutMs: 20,
    onForward: (o) => seen.push(o),
  });
  const id = idOwnedBy(cluster, accountActor.type, "z");
  const p = partitionOf({ type: accountActor.type, id });
  const asked: unknown[] = [];
  // `z` takes the request and never answers (stuck behind a long commit, or gone mid-way).
  const stuck = bus.serve(partitionSubject("fwd_stuck", p), (payload) => {
    asked.push(payload);
    return new Promise(() => {});
  });
  try {
    const call: Forwarded = {
      kind: "ask",
      type: accountActor.type,
      tenant: T,
      id,
      command: { kind: "get" },
      options: { idempotencyKey: "k" },
    };
    const error = await forwarding.forward(call).then(
      () => assert.fail("no answer came"),
      (e: unknown) => e,
    );
    assert.ok(error instanceof PartitionUnavailable);
    assert.match(error.message, /did not answer within 20 ms; the outcome is unknown/);
    assert.equal(asked.length, 1, "not sent again: the holder may have made it");
    assert.deepEqual(asked[0], call);
    assert.deepEqual(seen.map((o) => o.outcome), ["failed"]);
  } finally {
    stuck.unsubscribe();
    forwarding.close();
  }
});
