/**
 * Courier 4.5 run expenses: an expense the run refuses keeps no receipt file (bad input changes
 * nothing), however its refusal comes: a closed run, an idempotency_key used for another expense.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { sha256Hex } from "../../../src/domain/secrets.ts";
import { newRun, post, ready } from "./runs_fixtures.ts";

Deno.test("runs: an expense the run refuses keeps no receipt file", () =>
  withTestEnv(async (t) => {
    const [courier] = await ready(t);
    const expense = (run: string, key: string, receipt: Uint8Array<ArrayBuffer>) => {
      const f = new FormData();
      f.set("amount", "150.00");
      f.set("currency", "BWP");
      f.set("idempotency_key", key);
      f.set("receipt", new File([receipt], "fuel.pdf", { type: "application/pdf" }));
      return t.call("POST", `/business/network-runs/${run}/expenses`, {
        key: courier.business.api_key,
        body: f,
      });
    };
    const kept = async (receipt: Uint8Array<ArrayBuffer>) =>
      (await t.app.request(`/api/business/courier/billing/evidence/${sha256Hex(receipt)}`, {
        headers: { "X-Business-API-Key": courier.business.api_key },
      })).status;
    const receipt = (text: string) => new TextEncoder().encode(`%PDF-1.4 ${text}`);

    const open = await newRun(t, courier);
    const first = receipt("fuel 1");
    assert.equal((await expense(open, "fuel-1", first)).status, 201);
    assert.equal(await kept(first), 200);
    // The same key for another expense (another receipt) is refused, keeping nothing.
    const other = receipt("fuel 2");
    const reused = await expense(open, "fuel-1", other);
    assert.equal(reused.status, 409, JSON.stringify(reused.body));
    assert.equal(await kept(other), 404, "a refused expense keeps no receipt");

    const closed = await newRun(t, courier);
    await post(t, courier, `/business/network-runs/${closed}/close`, {});
    const late = receipt("fuel after close");
    const refused = await expense(closed, "fuel-9", late);
    assert.ok(refused.status >= 400 && refused.status < 500, JSON.stringify(refused.body));
    assert.equal(await kept(late), 404, "a refused expense keeps no receipt");
    const run = await t.call("GET", `/business/network-runs/${closed}`, {
      key: courier.business.api_key,
    });
    assert.deepEqual(run.body.data.expenses, []);
  }));
