/**
 * The chat closes by itself (Business API 4.1, 8: on cancellation, 30 minutes after completion):
 * the trip tells its chat in the commit that ends it (an outbox), so a post the flow checked
 * against the trip just before it ended is refused by the chat, one command at a time, and no
 * message lands after the close.
 */
import assert from "node:assert/strict";
import { tripActor } from "../../../actors/business/trip/mod.ts";
import { driverParty, postChat } from "../../../src/business/flows/chat.ts";
import { Refused } from "../../../src/runtime/actor.ts";
import type { TestEnv } from "../../helpers/test_env.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { acceptedTrip } from "./tracking_fixtures.ts";

type AcceptedTrip = Awaited<ReturnType<typeof acceptedTrip>>;

/** The driver's party as the flow read it before the trip ended: the race's stale check. */
function partyBefore(t: TestEnv, b: AcceptedTrip) {
  return driverParty({ runtime: t.env.runtime, clock: t.clock }, b.driver.id, b.trip.reference);
}

async function closedPost(t: TestEnv, party: Awaited<ReturnType<typeof partyBefore>>) {
  const deps = { runtime: t.env.runtime, clock: t.clock };
  await assert.rejects(postChat(deps, party, "late"), (e: unknown) => {
    assert.ok(e instanceof Refused, String(e));
    assert.equal(e.rejection.code, "chat_closed");
    return true;
  });
}

async function messagesOf(t: TestEnv, b: AcceptedTrip): Promise<string[]> {
  const r = await t.call("GET", `/driver/trips/${b.trip.reference}/chat`, {
    bearer: b.driver.token,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.messages.map((m: { message: string }) => m.message);
}

Deno.test("chat: a post checked against the trip before its cancellation is refused chat_closed by the chat after it", () =>
  withTestEnv(async (t) => {
    const b = await acceptedTrip(t);
    const party = await partyBefore(t, b);
    await postChat({ runtime: t.env.runtime, clock: t.clock }, party, "before");
    const cancel = await t.call("POST", `/business/trips/${b.trip.reference}/cancel`, {
      key: b.business.api_key,
    });
    assert.equal(cancel.status, 200);
    await t.env.runtime.outboxesIdle();
    await closedPost(t, party);
    assert.deepEqual(await messagesOf(t, b), ["before"]);
  }));

Deno.test("chat: a post checked against the trip before it completed is refused once 30 minutes passed", () =>
  withTestEnv(async (t) => {
    const b = await acceptedTrip(t);
    const party = await partyBefore(t, b);
    const file = { sha256: "0".repeat(64), name: "proof.png", size: 68, content_type: "image/png" };
    for (
      const command of [
        { kind: "arrive" },
        { kind: "collect", force_reason: "no scanner" },
        { kind: "deliver", proof_photo: file, signature: file },
      ] as const
    ) {
      const r = await t.env.runtime.ask(tripActor, b.business.id, b.trip.reference, command);
      assert.ok(r.ok, JSON.stringify(r));
    }
    await t.env.runtime.outboxesIdle();
    t.clock.advanceBy(30 * 60_000 - 1);
    await postChat({ runtime: t.env.runtime, clock: t.clock }, party, "thank you");
    t.clock.advanceBy(1);
    await closedPost(t, party);
    assert.deepEqual(await messagesOf(t, b), ["thank you"]);
  }));
