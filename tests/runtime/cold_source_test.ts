/**
 * An actor type's cold source (ActorRuntime.coldSource): an actor the store does not hold is
 * answered from the state the source keeps for its tenant, stored by its first commit; another
 * tenant finds nothing; a miss is not remembered, so a state the source gains later is found;
 * nor is a state held there alone, so a change made there is read by the next command.
 */
import assert from "node:assert/strict";
import { accountActor, type AccountState, openTestRuntime } from "./fixtures.ts";

const account = (balance: number): AccountState => ({
  balance,
  seen: [],
  reminders: 0,
  email: null,
});

type TestRuntime = Awaited<ReturnType<typeof openTestRuntime>>;

/** The accounts' cold source: `rows` by `tenant/id`, each lookup noted in `asked`. */
function rowSource(rt: TestRuntime, rows: Map<string, AccountState>, asked: string[] = []) {
  rt.runtime.coldSource(accountActor.type, (tenant, id) => {
    asked.push(`${tenant}/${id}`);
    return Promise.resolve(rows.get(`${tenant}/${id}`) ?? null);
  });
}

Deno.test("runtime: an actor the store lacks is answered from its cold source and stored by its first commit", async () => {
  const rt = await openTestRuntime();
  const rows = new Map<string, AccountState>([["t1/a1", account(50)]]);
  const asked: string[] = [];
  rowSource(rt, rows, asked);
  try {
    const got = await rt.runtime.read(accountActor, "t1", "a1", { kind: "get" });
    assert.ok(got.ok);
    assert.equal(got.reply.balance, 50);
    assert.equal(
      await rt.store.load({ type: accountActor.type, id: "a1" }),
      null,
      "a read stores nothing",
    );
    // Another tenant's actor of that id does not exist for the caller.
    const foreign = await rt.runtime.ask(accountActor, "t2", "a1", { kind: "debit", amount: 1 });
    assert.equal(foreign.ok, false);

    const credited = await rt.runtime.ask(accountActor, "t1", "a1", { kind: "credit", amount: 10 });
    assert.ok(credited.ok);
    assert.equal(credited.reply.balance, 60);
    const stored = await rt.store.load({ type: accountActor.type, id: "a1" });
    assert.deepEqual([stored?.record.state, stored?.record.seq, stored?.record.tenant], [
      account(60),
      1,
      "t1",
    ]);
    // Stored now: the source is asked no more for it.
    const before = asked.length;
    await rt.runtime.read(accountActor, "t1", "a1", { kind: "get" });
    assert.equal(asked.length, before);
  } finally {
    await rt.close();
  }
});

Deno.test("runtime: a cold source's miss is not remembered; a state it gains later is found", async () => {
  const rt = await openTestRuntime();
  const rows = new Map<string, AccountState>();
  rowSource(rt, rows);
  try {
    const first = await rt.runtime.read(accountActor, "t1", "a2", { kind: "get" });
    assert.ok(first.ok);
    assert.equal(first.reply.balance, 0, "the initial state: nothing anywhere");
    rows.set("t1/a2", account(7));
    const later = await rt.runtime.read(accountActor, "t1", "a2", { kind: "get" });
    assert.ok(later.ok);
    assert.equal(later.reply.balance, 7);
  } finally {
    await rt.close();
  }
});

Deno.test("runtime: a state held by the cold source alone is read again: a change made there is found", async () => {
  const rt = await openTestRuntime();
  const rows = new Map<string, AccountState>([["t1/a3", account(5)]]);
  rowSource(rt, rows);
  try {
    const first = await rt.runtime.ask(accountActor, "t1", "a3", { kind: "get" });
    assert.ok(first.ok);
    assert.equal(first.reply.balance, 5);
    // The source's row changes (a waiting event's hourly retry noted there): read as it is now.
    rows.set("t1/a3", account(9));
    const read = await rt.runtime.read(accountActor, "t1", "a3", { kind: "get" });
    assert.ok(read.ok);
    assert.equal(read.reply.balance, 9);
    // A command decides on the row as it is now, and its commit stores the actor.
    rows.set("t1/a3", account(11));
    const credited = await rt.runtime.ask(accountActor, "t1", "a3", { kind: "credit", amount: 1 });
    assert.ok(credited.ok);
    assert.equal(credited.reply.balance, 12);
    rows.set("t1/a3", account(100));
    const stored = await rt.runtime.read(accountActor, "t1", "a3", { kind: "get" });
    assert.ok(stored.ok);
    assert.equal(stored.reply.balance, 12, "stored now: the store's, not the source's");
  } finally {
    await rt.close();
  }
});
