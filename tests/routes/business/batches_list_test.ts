/**
 * GET /business/batches (Business API 4.2): newest first, a keyset page at a time; batches made
 * in one millisecond keep the order they were made in, across pages.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { fundedBusiness } from "./trips_fixtures.ts";
import { LINE, postBatch } from "./batch_fixtures.ts";

Deno.test("batches list: batches made in one millisecond are listed newest first, page after page", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t, "20000.00");
    // The manual clock stands still: every batch is made in the same millisecond.
    const made: string[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await postBatch(t, b.api_key, {
        segment: "parcel",
        stops: LINE.slice(0, 2),
        external_reference: `EOD-${i}`,
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      made.push(r.body.data.id);
    }
    await t.settle();
    const whole = await t.call("GET", "/business/batches", { key: b.api_key });
    assert.equal(whole.status, 200);
    const newestFirst = [...made].reverse();
    assert.deepEqual(whole.body.data.map((x: { id: string }) => x.id), newestFirst);
    // Page by page, the same order: a cursor goes on after its batch.
    const paged: string[] = [];
    let cursor = "";
    for (let i = 0; i < 6; i++) {
      const r = await t.call("GET", `/business/batches?per_page=4${cursor}`, { key: b.api_key });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      paged.push(...r.body.data.map((x: { id: string }) => x.id));
      if (r.body.meta.next_cursor === null) break;
      cursor = `&cursor=${r.body.meta.next_cursor}`;
    }
    assert.deepEqual(paged, newestFirst);
  }));
