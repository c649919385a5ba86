import assert from "node:assert/strict";
import { GroupCommitter } from "../../src/runtime/group_commit.ts";
import { GROUP_COMMIT_MUTATIONS_MAX } from "../../src/limits.ts";
import type { ActorStore, ActorWrite, CommitResult } from "../../src/runtime/store.ts";

/** A store whose commits finish when the test says; it records what happened in order. */
function heldStore(log: string[]) {
  const held: { ids: string; finish: (r: CommitResult) => void }[] = [];
  const store = {
    commit(writes: readonly ActorWrite[]): Promise<CommitResult> {
      const ids = writes.map((w) => w.id).join("+");
      log.push(`commit ${ids}`);
      return new Promise((finish) => held.push({ ids, finish }));
    },
    cost: () => ({ mutations: 1, bytes: 1, checks: 1, keyBytes: 1, keyMax: 1 }),
  } as unknown as ActorStore;
  return { store, held };
}

const write = (id: string) => ({ id, type: "t" }) as unknown as ActorWrite;

Deno.test("group commit: the next group goes to the store before the last one's writers hear", async () => {
  const log: string[] = [];
  const { store, held } = heldStore(log);
  const committer = new GroupCommitter(store);
  const a = committer.submit(write("a")).then((r) => log.push(`a ${r.ok}`));
  // b and c arrive while a's commit is in flight: one group, sent the moment a's is done.
  const b = committer.submit(write("b")).then((r) => log.push(`b ${r.ok}`));
  const c = committer.submit(write("c")).then((r) => log.push(`c ${r.ok}`));
  assert.deepEqual(log, ["commit a"]);
  held[0]!.finish({ ok: true, versions: ["v1"] });
  await a;
  assert.deepEqual(log, ["commit a", "commit b+c", "a true"]);
  held[1]!.finish({ ok: true, versions: ["v2", "v2"] });
  await Promise.all([b, c]);
  assert.deepEqual(log.slice(3), ["b true", "c true"]);
  // What the bench reports: groups, writes, and the store's cost of them (one each here).
  const { commits, writes, mutations, bytes } = committer.stats;
  assert.deepEqual({ commits, writes, mutations, bytes }, {
    commits: 2,
    writes: 3,
    mutations: 3,
    bytes: 3,
  });
});

Deno.test("group commit: a store that throws is a failed commit for every writer, and the next group still goes", async () => {
  const log: string[] = [];
  let calls = 0;
  const store = {
    commit(writes: readonly ActorWrite[]): Promise<CommitResult> {
      calls++;
      log.push(`commit ${writes.map((w) => w.id).join("+")}`);
      if (writes.some((w) => w.id === "bad")) return Promise.reject(new Error("disk gone"));
      return Promise.resolve({ ok: true, versions: writes.map(() => `v${calls}`) });
    },
    cost: () => ({ mutations: 1, bytes: 1, checks: 1, keyBytes: 1, keyMax: 1 }),
  } as unknown as ActorStore;
  const committer = new GroupCommitter(store);
  const [bad, good] = await Promise.all([
    committer.submit(write("bad")),
    committer.submit(write("good")),
  ]);
  assert.equal(bad.ok, false);
  assert.ok(!bad.ok && bad.reason === "error" && bad.error.message === "disk gone");
  assert.equal(good.ok, true);
});

/** A write claiming the given unique keys (ActorWrite.indexClaims) of the index `email`. */
const claiming = (id: string, ...keys: string[]) =>
  ({
    id,
    type: "t",
    indexClaims: keys.map((key) => ({ index: "email", key })),
  }) as unknown as ActorWrite;

Deno.test("group commit: two writes claiming one unique key never share a group; others still join", async () => {
  const log: string[] = [];
  const { store, held } = heldStore(log);
  const committer = new GroupCommitter(store);
  const a = committer.submit(write("a"));
  // While a is in flight: b and c claim x, d claims y. One commit checks every key before it
  // writes any, so b and c together would both pass: c waits for the next group.
  const rest = ["b", "c", "d"].map((id) =>
    committer.submit(claiming(id, id === "d" ? "y" : "x")).then((r) => log.push(`${id} ${r.ok}`))
  );
  held[0]!.finish({ ok: true, versions: ["v1"] });
  await a;
  assert.deepEqual(log, ["commit a", "commit b"]);
  held[1]!.finish({ ok: true, versions: ["v2"] });
  await rest[0];
  assert.deepEqual(log.slice(2), ["commit c+d", "b true"]);
  held[2]!.finish({ ok: true, versions: ["v3", "v3"] });
  await Promise.all(rest);
  assert.deepEqual(log.slice(4), ["c true", "d true"]);
});

Deno.test("group commit: an urgent write goes in the next group ahead of the queue a burst built", async () => {
  const log: string[] = [];
  const { store, held } = heldStore(log);
  // Two writes fill a group: the queue behind `a` is three groups long.
  const half = Math.floor(GROUP_COMMIT_MUTATIONS_MAX / 2);
  store.cost = () => ({ mutations: half, bytes: 1, checks: 1, keyBytes: 1, keyMax: 1 });
  const committer = new GroupCommitter(store);
  const all = [committer.submit(write("a"))];
  for (const id of ["q1", "q2", "q3", "q4"]) all.push(committer.submit(write(id)));
  all.push(committer.submit(write("u1"), { urgent: true }));
  assert.deepEqual(log, ["commit a"]);
  for (let i = 0; i < 4; i++) {
    held[i]!.finish({ ok: true, versions: held[i]!.ids.split("+").map(() => `v${i}`) });
    await new Promise((r) => setTimeout(r, 0));
  }
  // The urgent write waited for the commit in flight only; the queue kept its order.
  assert.deepEqual(log, ["commit a", "commit u1+q1", "commit q2+q3", "commit q4"]);
  held[3]!.finish({ ok: true, versions: ["v3"] });
  assert.ok((await Promise.all(all)).every((r) => r.ok));
});
