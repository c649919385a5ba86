/**
 * The driver app's chat (CONTRACT "Driver app": every action takes `idempotency_key`; a replay
 * answers the first answer): POST /driver/trips/{reference}/chat takes the key in its body as
 * the trip actions do, besides the Idempotency-Key header.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { acceptedTrip } from "./tracking_fixtures.ts";

Deno.test("chat: the driver's post sent again with the same idempotency_key in its body answers the first message (200) and posts nothing more; another message under it is 409", () =>
  withTestEnv(async (t) => {
    const b = await acceptedTrip(t);
    const ref = b.trip.reference;
    const send = (body: Record<string, unknown>) =>
      t.call("POST", `/driver/trips/${ref}/chat`, { bearer: b.driver.token, body });
    const key = `chat-${"k".repeat(110)}`;
    const first = await send({ message: "at the gate", idempotency_key: key });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    t.clock.advanceBy(5_000);
    const again = await send({ message: "at the gate", idempotency_key: key });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.deepEqual(again.body.data, first.body.data);
    const other = await send({ message: "somewhere else", idempotency_key: key });
    assert.equal(other.status, 409, JSON.stringify(other.body));
    assert.equal(other.body.code, "reference_conflict");
    const long = await send({ message: "hi", idempotency_key: "x".repeat(121) });
    assert.equal(long.status, 422);
    assert.equal(long.body.errors[0].path, "idempotency_key");
    const read = await t.call("GET", `/driver/trips/${ref}/chat`, { bearer: b.driver.token });
    assert.deepEqual(read.body.data.messages.map((m: { message: string }) => m.message), [
      "at the gate",
    ]);
  }));
