/**
 * Passes over old data (src/runtime/old_data.ts) run once per version on a store: the second start
 * of an instance, or another instance on the same store, skips a pass done; a new version runs
 * again; a pass that fails is left for the next start.
 */
import assert from "node:assert/strict";
import { type OldDataPass, runOldDataPasses } from "../../src/runtime/old_data.ts";
import { openTestRuntime } from "./fixtures.ts";

/** A pass that counts its runs and answers `changed`, or throws while `failing`. */
function counting(version: number, changed = 1) {
  const pass = {
    version,
    runs: 0,
    failing: false,
    run() {
      pass.runs++;
      return pass.failing ? Promise.reject(new Error("store away")) : Promise.resolve(changed);
    },
  };
  return pass;
}

function recorder() {
  const told: string[] = [];
  return {
    told,
    changed: (name: string, n: number) => void told.push(`${name} changed ${n}`),
    failed: (name: string, e: unknown) => void told.push(`${name} failed: ${(e as Error).message}`),
  };
}

Deno.test("old data passes: the second start on a store skips a pass done; a new version of it runs once more", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kv.sqlite`;
  try {
    const seals = counting(1, 3);
    const claims = counting(1, 0);
    const passes = (): [string, OldDataPass][] => [["seals", seals], ["claims", claims]];
    const first = await openTestRuntime(path);
    const told = recorder();
    try {
      await runOldDataPasses(first.runtime, passes(), told);
    } finally {
      await first.close();
    }
    assert.deepEqual([seals.runs, claims.runs], [1, 1]);
    assert.deepEqual(told.told, ["seals changed 3"], "a pass that changed nothing is no news");

    const second = await openTestRuntime(path);
    try {
      await runOldDataPasses(second.runtime, passes(), told);
      assert.deepEqual([seals.runs, claims.runs], [1, 1], "the second start skips both");
      const revised = counting(2, 1);
      await runOldDataPasses(second.runtime, [["seals", revised], ["claims", claims]], told);
      assert.deepEqual([revised.runs, claims.runs], [1, 1], "version 2 runs, once");
      await runOldDataPasses(second.runtime, [["seals", revised]], told);
      assert.equal(revised.runs, 1);
    } finally {
      await second.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("old data passes: a pass that fails is told, left unmarked and run at the next start", async () => {
  const r = await openTestRuntime();
  try {
    const pass = counting(1, 2);
    pass.failing = true;
    const told = recorder();
    await runOldDataPasses(r.runtime, [["returning", pass]], told);
    assert.deepEqual(told.told, ["returning failed: store away"]);
    pass.failing = false;
    await runOldDataPasses(r.runtime, [["returning", pass]], told);
    await runOldDataPasses(r.runtime, [["returning", pass]], told);
    assert.equal(pass.runs, 2);
    assert.deepEqual(told.told, ["returning failed: store away", "returning changed 2"]);
  } finally {
    await r.close();
  }
});
