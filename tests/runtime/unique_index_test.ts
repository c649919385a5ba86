/**
 * Unique indexes under group commit: a key goes to one actor even when the claims of two actors
 * reach the store while another commit is in flight, and so would go in one group together.
 */
import assert from "node:assert/strict";
import { accountActor, handleActor, openTestRuntime } from "./fixtures.ts";

const T = "biz_tenant";

Deno.test("runtime: two actors taking one unique key behind another commit: one holds it, the other is refused index_taken", async () => {
  const rt = await openTestRuntime(":memory:", { groupCommit: true });
  try {
    for (let round = 0; round < 30; round++) {
      const name = `n${round}`;
      // The credit's commit goes first; the two takes queue behind it for one group.
      const [, a, b] = await Promise.all([
        rt.runtime.ask(accountActor, T, `acc${round}`, { kind: "credit", amount: 1 }),
        rt.runtime.ask(handleActor, T, `a${round}`, { kind: "take", name }),
        rt.runtime.ask(handleActor, T, `b${round}`, { kind: "take", name }),
      ]);
      const won = [a!, b!].filter((r) => r.ok);
      assert.equal(won.length, 1, `round ${round}: ${JSON.stringify([a, b])}`);
      const lost = [a!, b!].find((r) => !r.ok)!;
      assert.ok(!lost.ok && !("failure" in lost) && lost.code === "index_taken");
      const holder = (await rt.runtime.lookup("test_handle", name))?.id;
      const loser = holder === `a${round}` ? `b${round}` : `a${round}`;
      assert.ok(holder === `a${round}` || holder === `b${round}`);
      // The refused actor holds nothing: its command changed nothing.
      assert.equal(await rt.store.load({ type: handleActor.type, id: loser }), null);
    }
  } finally {
    await rt.close();
  }
});

Deno.test("runtime: urgent takes of one unique key (claims checked by the commit alone): one holds it, the other is refused index_taken", async () => {
  const rt = await openTestRuntime(":memory:", { groupCommit: true });
  try {
    for (let round = 0; round < 30; round++) {
      const name = `u${round}`;
      const urgent = { urgent: true };
      const [, a, b] = await Promise.all([
        rt.runtime.ask(accountActor, T, `acc${round}`, { kind: "credit", amount: 1 }),
        rt.runtime.ask(handleActor, T, `a${round}`, { kind: "take", name }, urgent),
        rt.runtime.ask(handleActor, T, `b${round}`, { kind: "take", name }, urgent),
      ]);
      const won = [a!, b!].filter((r) => r.ok);
      assert.equal(won.length, 1, `round ${round}: ${JSON.stringify([a, b])}`);
      const lost = [a!, b!].find((r) => !r.ok)!;
      assert.ok(!lost.ok && !("failure" in lost) && lost.code === "index_taken");
      const holder = (await rt.runtime.lookup("test_handle", name))?.id;
      const loser = holder === `a${round}` ? `b${round}` : `a${round}`;
      assert.equal(await rt.store.load({ type: handleActor.type, id: loser }), null);
    }
  } finally {
    await rt.close();
  }
});
