/**
 * Runs stored before network_run's events stated outcomes (their log holds `applied {change}`)
 * load and answer exactly as before: the fixture's KV file was written by that code, and
 * `answers.json` keeps what that code answered after a restart (tests/fixtures/runs_v1).
 */
import assert from "node:assert/strict";
import { importDataKey } from "../../../src/domain/secrets.ts";
import { openTestEnv } from "../../helpers/test_env.ts";
import { askAll, FIXTURE_DATA_KEY } from "../../fixtures/runs_v1/generate.ts";
import type { Kept } from "../../fixtures/runs_v1/scenario.ts";

const FIXTURE = new URL("../../fixtures/runs_v1/", import.meta.url);

Deno.test("runs stored by the code before outcome events read, replay and decide as that code answered", async () => {
  const kept = JSON.parse(
    await Deno.readTextFile(new URL("answers.json", FIXTURE)),
  ) as Kept;
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kv.sqlite`;
  // A copy: the test's own actions must not change the fixture.
  await Deno.copyFile(new URL("store.kv", FIXTURE), path);
  const t = await openTestEnv({ kvPath: path, dataKey: await importDataKey(FIXTURE_DATA_KEY) });
  try {
    t.clock.advanceBy(kept.made.now - t.clock.now());
    const answers = await askAll(t, kept.made);
    for (const [i, want] of kept.answers.entries()) {
      assert.deepEqual(answers[i], want, `${want.name}`);
    }
    assert.equal(answers.length, kept.answers.length);
  } finally {
    await t.close();
    await Deno.remove(dir, { recursive: true });
  }
});
