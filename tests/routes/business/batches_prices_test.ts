/**
 * A batch's kept prices (Business API 2.3, 4.2; actors/business/batch_prices.ts) last as long as
 * their batch needs them: prices of a draft never claimed, or of a batch booked, are removed by
 * the batch sweep; a claim still unbooked keeps its prices until its stops are booked at them.
 */
import assert from "node:assert/strict";
import { batchPricesActor } from "../../../actors/business/batch_prices.ts";
import { batchActor } from "../../../actors/business/batch.ts";
import { BATCH_PRICES_CHECK_MS, batchReference } from "../../../src/business/rules/batch.ts";
import { sweepBatchPrices } from "../../../src/business/flows/batch_sweep.ts";
import { commandKind, failAsks } from "../../helpers/faults.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { fundedBusiness } from "./trips_fixtures.ts";
import { LINE, postBatch, quiet, stopClaim } from "./batch_fixtures.ts";

/** The ids of the prices kept from now on, as the batch flow asks them kept. */
function keptIds(t: TestEnv): string[] {
  const ids: string[] = [];
  const ask = t.env.runtime.ask.bind(t.env.runtime);
  t.env.runtime.ask = ((...args: Parameters<typeof ask>) => {
    const [def, , id, command] = args;
    if (def.type === batchPricesActor.type && (command as { kind: string }).kind === "keep") {
      ids.push(id);
    }
    return ask(...args);
  }) as typeof ask;
  return ids;
}

/** Past the prices' check: their timer fires and the sweep looks at their batch. */
async function pastTheCheck(t: TestEnv) {
  t.clock.advanceBy(BATCH_PRICES_CHECK_MS + 1_000);
  await t.env.runtime.fireDueTimers();
  await t.env.runtime.outboxesIdle();
  await quiet(t);
}

async function pricesOf(t: TestEnv, business: string, id: string) {
  const r = await t.env.runtime.read(batchPricesActor, business, id, { kind: "get" });
  return r.ok ? r.reply : r.code;
}

Deno.test("batch prices: a draft's prices whose batch was never claimed are removed by the sweep", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const ids = keptIds(t);
    // The process dies between the prices' keep and the claim: no batch names them.
    const healed = failAsks(t.env.runtime, commandKind("claim", batchActor.type));
    const cut = await postBatch(t, b.api_key, { segment: "parcel", stops: LINE });
    assert.equal(cut.status, 500, JSON.stringify(cut.body));
    healed();
    assert.equal(ids.length, 1);
    assert.equal((await pricesOf(t, b.id, ids[0]!) as unknown[]).length, LINE.length);
    await pastTheCheck(t);
    assert.equal(await pricesOf(t, b.id, ids[0]!), "not_found", "removed");
  }));

Deno.test("batch prices: a claim still unbooked keeps its prices; once its stops are booked at them, the sweep removes them and a replay still answers the batch", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const body = { segment: "parcel", stops: LINE, external_reference: "BATCH-P1" };
    // Every booking of the second stop fails for now: the claim stays unbooked.
    const healed = failAsks(t.env.runtime, stopClaim(2));
    const cut = await postBatch(t, b.api_key, body);
    assert.equal(cut.status, 500, JSON.stringify(cut.body));
    const id = batchReference(b.id, { kind: "reference", value: "BATCH-P1" }, () => "");
    const read = await t.env.runtime.read(batchActor, b.id, id, { kind: "get" });
    assert.ok(read.ok && read.reply.batch.prices !== undefined);
    const prices = read.reply.batch.prices;
    await pastTheCheck(t);
    assert.equal((await pricesOf(t, b.id, prices) as unknown[]).length, LINE.length, "needed");
    healed();
    const retried = await postBatch(t, b.api_key, body);
    assert.equal(retried.status, 200, JSON.stringify(retried.body));
    assert.equal(retried.body.data.status, "booked");
    await pastTheCheck(t);
    assert.equal(await pricesOf(t, b.id, prices), "not_found", "the batch is booked: removed");
    const replay = await postBatch(t, b.api_key, body);
    assert.equal(replay.status, 200, JSON.stringify(replay.body));
    assert.equal(replay.body.data.replayed, true);
    assert.equal(replay.body.data.billing_amount, retried.body.data.billing_amount);
  }));

Deno.test("batch prices: the sweep's item handled again once the prices are gone is done, not refused for ever", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const body = { segment: "parcel", stops: LINE, external_reference: "BATCH-P2" };
    const healed = failAsks(t.env.runtime, stopClaim(2));
    const cut = await postBatch(t, b.api_key, body);
    assert.equal(cut.status, 500, JSON.stringify(cut.body));
    healed();
    const id = batchReference(b.id, { kind: "reference", value: "BATCH-P2" }, () => "");
    const read = await t.env.runtime.read(batchActor, b.id, id, { kind: "get" });
    assert.ok(read.ok && read.reply.batch.prices !== undefined);
    const item = { business_id: b.id, batch_id: id, id: read.reply.batch.prices };
    // Gone already (a handling before this one), while the claim naming them is still unbooked.
    const removed = await t.env.runtime.ask(batchPricesActor, b.id, item.id, { kind: "remove" });
    assert.ok(removed.ok);
    await sweepBatchPrices(t.env, item);
    assert.equal(await pricesOf(t, b.id, item.id), "not_found");
  }));
