/**
 * A commit whose outcome the store does not tell (a connection lost on commit, a KV commit that
 * throws): the actor is single-writer, so its cell reads the store again and sees whether the
 * write landed (the stored version moved, to the record it wrote: answered with that outcome,
 * never decided again) or not (the version read: nothing of it was written). On each store: Deno
 * KV, and Postgres when DATABASE_URL is set.
 */
import assert from "node:assert/strict";
import type { ActorStore, ActorWrite } from "../../src/runtime/store.ts";
import { accountActor, openTestRuntime, type TestRuntime, type TestStoreKind } from "./fixtures.ts";

const T = "biz_unknown";

/** When the armed commit fails: after its writes landed, or before any did. */
type Failing = "after" | "before";

/**
 * The real store, whose next commit of at least `writes` writes fails (once) as a lost
 * connection does: thrown, the outcome untold.
 */
function failingCommits(store: ActorStore) {
  const armed: { when: Failing; writes: number } = { when: "after", writes: 0 };
  let fired = false;
  const failing = new Proxy(store, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (name !== "commit") return typeof value === "function" ? value.bind(target) : value;
      return async (writes: readonly ActorWrite[]) => {
        if (fired || armed.writes === 0 || writes.length < armed.writes) {
          return target.commit(writes);
        }
        fired = true;
        if (armed.when === "after") await target.commit(writes);
        throw new Error("connection lost on commit");
      };
    },
  });
  return {
    store: failing,
    arm(when: Failing, writes = 1) {
      armed.when = when;
      armed.writes = writes;
      fired = false;
    },
    get fired() {
      return fired;
    },
  };
}

async function open(kind: TestStoreKind) {
  let wrapped: ReturnType<typeof failingCommits> | undefined;
  const rt = await openTestRuntime(":memory:", {
    store: kind,
    storeOf: (s) => (wrapped = failingCommits(s)).store,
  });
  return { rt, failing: wrapped! };
}

async function stored(rt: TestRuntime, id: string) {
  const events: unknown[] = [];
  for await (const e of rt.runtime.events(accountActor, id)) events.push(e.event);
  const record = await rt.store.load({ type: accountActor.type, id });
  return { balance: (record?.record.state as { balance: number } | undefined)?.balance, events };
}

/** Reads the actors into memory, so their next commands reach the group committer at once. */
async function inMemory(rt: TestRuntime, ids: readonly string[]): Promise<void> {
  for (const id of ids) await rt.runtime.ask(accountActor, T, id, { kind: "get" });
}

const stores: { kind: TestStoreKind; ignore: boolean }[] = [
  { kind: "kv", ignore: false },
  { kind: "postgres", ignore: Deno.env.get("DATABASE_URL") === undefined },
];

for (const { kind, ignore } of stores) {
  Deno.test({
    name:
      `runtime (${kind}): a commit failing after it landed answers its command with the outcome committed, applied once`,
    ignore,
    async fn() {
      const { rt, failing } = await open(kind);
      try {
        assert.ok((await rt.runtime.ask(accountActor, T, "a1", { kind: "credit", amount: 5 })).ok);
        failing.arm("after");
        const r = await rt.runtime.ask(accountActor, T, "a1", { kind: "credit", amount: 7 });
        assert.ok(failing.fired);
        assert.ok(r.ok, "landed: answered as committed");
        assert.equal(r.reply.balance, 12);
        const next = await rt.runtime.ask(accountActor, T, "a1", { kind: "credit", amount: 1 });
        assert.ok(next.ok);
        assert.equal(next.reply.balance, 13);
        assert.deepEqual(await stored(rt, "a1"), {
          balance: 13,
          events: [
            { kind: "credited", amount: 5 },
            { kind: "credited", amount: 7 },
            { kind: "credited", amount: 1 },
          ],
        });
      } finally {
        await rt.close();
      }
    },
  });

  Deno.test({
    name:
      `runtime (${kind}): a group commit failing after it landed is never committed again write by write: each command applied once`,
    ignore,
    async fn() {
      const { rt, failing } = await open(kind);
      try {
        const ids = ["g1", "g2", "g3", "g4"];
        await inMemory(rt, ids);
        failing.arm("after", 2);
        const asks = ids.map((id) =>
          rt.runtime.ask(accountActor, T, id, { kind: "credit", amount: 5 })
        );
        const results = await Promise.allSettled(asks);
        assert.ok(failing.fired, "a group of two writes or more failed");
        for (const r of results) {
          assert.equal(r.status, "fulfilled");
          assert.ok(r.value.ok);
          assert.equal(r.value.reply.balance, 5);
        }
        for (const id of ids) {
          assert.deepEqual(await stored(rt, id), {
            balance: 5,
            events: [{ kind: "credited", amount: 5 }],
          });
        }
      } finally {
        await rt.close();
      }
    },
  });

  Deno.test({
    name:
      `runtime (${kind}): a commit failing before it landed fails its command, nothing written; the next is decided on the state before`,
    ignore,
    async fn() {
      const { rt, failing } = await open(kind);
      try {
        assert.ok((await rt.runtime.ask(accountActor, T, "b1", { kind: "credit", amount: 5 })).ok);
        failing.arm("before");
        await assert.rejects(
          rt.runtime.ask(accountActor, T, "b1", { kind: "credit", amount: 7 }),
          /connection lost on commit/,
        );
        const next = await rt.runtime.ask(accountActor, T, "b1", { kind: "credit", amount: 1 });
        assert.ok(next.ok);
        assert.equal(next.reply.balance, 6);
        assert.deepEqual(await stored(rt, "b1"), {
          balance: 6,
          events: [{ kind: "credited", amount: 5 }, { kind: "credited", amount: 1 }],
        });
      } finally {
        await rt.close();
      }
    },
  });

  Deno.test({
    name:
      `runtime (${kind}): a group commit failing before it landed commits each write alone: each command applied once`,
    ignore,
    async fn() {
      const { rt, failing } = await open(kind);
      try {
        const ids = ["h1", "h2", "h3", "h4"];
        await inMemory(rt, ids);
        failing.arm("before", 2);
        const results = await Promise.all(
          ids.map((id) => rt.runtime.ask(accountActor, T, id, { kind: "credit", amount: 5 })),
        );
        assert.ok(failing.fired);
        assert.ok(results.every((r) => r.ok && r.reply.balance === 5));
        for (const id of ids) {
          assert.deepEqual(await stored(rt, id), {
            balance: 5,
            events: [{ kind: "credited", amount: 5 }],
          });
        }
      } finally {
        await rt.close();
      }
    },
  });
}
