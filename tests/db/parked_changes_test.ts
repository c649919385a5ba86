import assert from "node:assert/strict";
import { subjectOf } from "../../src/bus/bus.ts";
import { Projector } from "../../src/db/projection.ts";
import { order, parkedRows, publish, refuse, withProjection } from "./parked_fixtures.ts";

Deno.test("Projector: a change that cannot be written is parked, not dropped, and goes in once the cause is gone", () =>
  withProjection((o) => new Projector(o), async (t, bus, projector, errors) => {
    const check = refuse(t, "snapshots", "id <> 'poison'");
    await check.add();
    const poison = order("poison", 1, { status: "created" });
    await publish(bus, poison);
    await publish(bus, order("fine", 1, { status: "created" }));
    await projector.idle();
    const subject = subjectOf("live", "ten", "order", "poison");
    assert.deepEqual(errors, [subject]);
    const [parked] = await parkedRows(t);
    assert.equal(parked?.projection, "snapshots");
    assert.equal(parked?.subject, subject);
    assert.equal(parked?.attempts, 1);
    assert.match(parked?.error ?? "", /poison/);

    // Republished after a restart: the same change, one row, one more attempt.
    await publish(bus, poison);
    await projector.idle();
    assert.deepEqual((await parkedRows(t)).map((r) => r.attempts), [2]);

    // Tried again while the cause is still there: kept.
    assert.equal(await projector.retryParked(), 0);
    assert.deepEqual((await parkedRows(t)).map((r) => r.attempts), [3]);

    await check.drop();
    assert.equal(await projector.retryParked(), 1);
    assert.deepEqual(await parkedRows(t), []);
    const row = await t.db.selectFrom("snapshots").select(["version", "data"])
      .where("type", "=", "order").where("id", "=", "poison").executeTakeFirst();
    assert.deepEqual(row, { version: 1, data: { status: "created" } });
    assert.equal(await projector.retryParked(), 0);
  }));

Deno.test("Projector: a change jsonb refuses (a NUL in a string) is kept whole as JSON text", () =>
  withProjection((o) => new Projector(o), async (t, bus, projector) => {
    await publish(bus, order("nul", 1, { note: "a\u0000b", odd: "\ud800" }));
    await projector.idle();
    const [kept] = await t.db.selectFrom("parked_changes").select(["payload", "attempts"])
      .execute();
    assert.equal(kept?.attempts, 1);
    assert.deepEqual(JSON.parse(kept!.payload).snapshot, { note: "a\u0000b", odd: "\ud800" });
    // Still refused: it stays, for the operator to see.
    assert.equal(await projector.retryParked(), 0);
    assert.equal((await parkedRows(t)).length, 1);
  }));

Deno.test("Projector: parked changes that never go in do not keep the ones after them from being written again", () =>
  withProjection((o) => new Projector(o), async (t, bus, projector) => {
    // More changes refused for good than one round writes again (PARKED_RETRY_MAX, 100).
    const stuck = refuse(t, "snapshots", "id not like 'poison%' and id <> 'late'");
    await stuck.add();
    for (let i = 0; i < 120; i++) await publish(bus, order(`poison-${i}`, 1, { n: i }));
    await publish(bus, order("late", 1, { status: "created" }));
    await projector.idle();
    assert.equal((await parkedRows(t)).length, 121);

    // The cause of the last one goes; the others are still refused.
    await stuck.drop();
    await refuse(t, "snapshots", "id not like 'poison%'").add();
    let written = 0;
    for (let round = 0; round < 3; round++) written += await projector.retryParked();
    assert.equal(written, 1, "written at one of the next rounds");
    const row = await t.db.selectFrom("snapshots").select("version")
      .where("type", "=", "order").where("id", "=", "late").executeTakeFirst();
    assert.equal(row?.version, 1);
    assert.equal((await parkedRows(t)).length, 120);
  }));
