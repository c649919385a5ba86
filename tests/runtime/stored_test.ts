/**
 * The store's pages of one type's stored actors (ActorStore.stored, runtime.stored): what a pass
 * over old data reads, every actor once, in id order, a split record whole, as stored.
 */
import assert from "node:assert/strict";
import { accountActor, notebookActor, openTestRuntime } from "./fixtures.ts";

Deno.test("runtime: stored lists every actor of a type once, in id order, page after page, split records whole", async () => {
  const r = await openTestRuntime();
  try {
    const ids = ["acc_c", "acc_a", "acc_e", "acc_b", "acc_d"];
    for (const [i, id] of ids.entries()) {
      const ok = await r.runtime.ask(accountActor, `tenant_${i}`, id, {
        kind: "credit",
        amount: i,
      });
      assert.ok(ok.ok);
    }
    // Another type is not listed; a notebook past one value is split over several.
    const big = "x".repeat(50_000);
    await r.runtime.ask(notebookActor, "tenant_n", "nb_1", {
      kind: "write_all",
      texts: [big, big],
    });
    const seen = [];
    for await (const s of r.runtime.stored(accountActor, 2)) seen.push(s);
    assert.deepEqual(seen.map((s) => s.id), [...ids].sort());
    for (const s of seen) {
      const i = ids.indexOf(s.id);
      assert.equal(s.record.tenant, `tenant_${i}`);
      assert.equal((s.record.state as { balance: number }).balance, i);
    }
    const notes = [];
    for await (const s of r.runtime.stored(notebookActor)) notes.push(s);
    assert.equal(notes.length, 1);
    assert.deepEqual(notes[0]!.record.state, [big, big]);
  } finally {
    await r.close();
  }
});
