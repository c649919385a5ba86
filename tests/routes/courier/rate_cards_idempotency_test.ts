/**
 * Courier 4.2 (rate-card rows): publishing under an Idempotency-Key publishes once. A retry after
 * a lost answer gets the first answer (200, replayed); the key with another body is refused 409
 * reference_conflict; a crash between listing the card and publishing it leaves one card.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { commandKind, flakyRuntime } from "../../helpers/faults.ts";
import { courierCatalogueActor } from "../../../actors/courier/courier_catalogue.ts";
import { rateCardActor } from "../../../actors/courier/rate_card.ts";
import { publishRateCard } from "../../../src/courier/flows/rate_cards.ts";
import { courier, list, publish } from "./rate_cards_fixtures.ts";

const CARD = { name: "Keyed", currency: "BWP", base_charge: 40, per_kg: 10 };
const PATH = "/business/courier/rate-cards";

Deno.test("rate cards API: POST /rate-cards under one Idempotency-Key publishes one card: the same body again answers the first (200, replayed), another body 409 reference_conflict", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    const send = (body: unknown, key: string, api = b.api_key) =>
      t.call("POST", PATH, { key: api, headers: { "Idempotency-Key": key }, body });
    const first = await send(CARD, "card-1");
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.body.data.replayed, false);
    // A retry after a lost answer, a minute later: the first card as it was published.
    t.clock.advanceBy(60_000);
    const again = await send(
      { per_kg: 10, base_charge: 40, currency: "BWP", name: "Keyed" },
      "card-1",
    );
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.deepEqual(again.body.data, { ...first.body.data, replayed: true });
    const other = await send({ ...CARD, per_kg: 11 }, "card-1");
    assert.equal(other.status, 409, JSON.stringify(other.body));
    assert.equal(other.body.code, "reference_conflict");
    assert.match(other.body.message, /Idempotency-Key.*card-1/);
    assert.deepEqual((await list(t, b)).map((c: { id: string }) => c.id), [first.body.data.id]);
    // Another key is another card; another courier's same key is its own.
    const second = await send(CARD, "card-2");
    assert.equal(second.status, 201, JSON.stringify(second.body));
    assert.notEqual(second.body.data.id, first.body.data.id);
    const b2 = await courier(t);
    const theirs = await send(CARD, "card-1", b2.api_key);
    assert.equal(theirs.status, 201, JSON.stringify(theirs.body));
    assert.notEqual(theirs.body.data.id, first.body.data.id);
    assert.equal((await list(t, b)).length, 2);
    // The same request sent three times at once (a retry racing its first send): one card.
    const racing = await Promise.all([1, 2, 3].map(() => send(CARD, "card-3")));
    assert.deepEqual(racing.map((r) => r.status).sort(), [200, 200, 201]);
    assert.equal(new Set(racing.map((r) => r.body.data.id)).size, 1);
    assert.equal((await list(t, b)).length, 3);
    // A bad key is refused naming the header, and publishes nothing.
    const bad = await send(CARD, "k".repeat(121));
    assert.equal(bad.status, 422, JSON.stringify(bad.body));
    assert.equal(bad.body.errors[0].path, "Idempotency-Key");
    assert.equal((await list(t, b)).length, 3);
  }));

Deno.test("rate cards API: POST /rate-cards/{card}/versions under one Idempotency-Key publishes one version: the same body again answers it (200, replayed), even after a later version; another body 409", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    const v1 = await publish(t, b, CARD);
    const path = `${PATH}/${v1.id}/versions`;
    const send = (body: unknown, key?: string) =>
      t.call("POST", path, {
        key: b.api_key,
        headers: key === undefined ? {} : { "Idempotency-Key": key },
        body,
      });
    const first = await send({ per_kg: 15 }, "v-1");
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.body.data.version, 2);
    assert.equal(first.body.data.replayed, false);
    // spec: courier 4.2: a retry is no new version, and is not refused as changing nothing.
    const again = await send({ per_kg: 15 }, "v-1");
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.deepEqual(again.body.data, { ...first.body.data, replayed: true });
    const later = await send({ per_kg: 16 });
    assert.equal(later.status, 201, JSON.stringify(later.body));
    const late = await send({ per_kg: 15 }, "v-1");
    assert.equal(late.status, 200, JSON.stringify(late.body));
    assert.deepEqual(late.body.data, { ...first.body.data, replayed: true });
    const other = await send({ per_kg: 17 }, "v-1");
    assert.equal(other.status, 409, JSON.stringify(other.body));
    assert.equal(other.body.code, "reference_conflict");
    const [card] = await list(t, b);
    assert.deepEqual(card.versions.map((v: { per_kg: number }) => v.per_kg), [10, 15, 16]);
  }));

Deno.test("rate cards: a publication stopped between listing the card and publishing it, sent again under its key, publishes one card and lists one id", () =>
  withTestEnv(async (t) => {
    const b = await courier(t);
    const office = { courierId: b.id, by: "test" };
    const stops = flakyRuntime(t.env.runtime, {
      fails: commandKind("publish_first", rateCardActor.type),
    });
    await assert.rejects(
      publishRateCard({ ...t.env, runtime: stops.runtime }, office, CARD, "k-1"),
    );
    assert.equal(stops.failed(), 1);
    const card = await publishRateCard(t.env, office, CARD, "k-1");
    const again = await publishRateCard(t.env, office, CARD, "k-1");
    assert.equal(again.card.id, card.card.id);
    const catalogue = await t.env.runtime.read(courierCatalogueActor, b.id, b.id, {
      kind: "get",
    });
    assert.ok(catalogue.ok);
    assert.deepEqual(catalogue.reply.rate_card_ids, [card.card.id]);
    assert.equal((await list(t, b)).length, 1);
  }));
