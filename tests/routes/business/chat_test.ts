/**
 * The order chat (Business API 4.1, 8): the customer with the chat_token and the trip's driver;
 * 1 to 1,000 characters; closed on cancellation or 30 minutes after completion; a wrong token,
 * another trip or another driver is 404 as a trip that does not exist.
 */
import assert from "node:assert/strict";
import { tripActor } from "../../../actors/business/trip/mod.ts";
import { CHAT_MESSAGES_PER_AUTHOR_MAX } from "../../../src/business/rules/chat.ts";
import { createPoolDriver } from "../../helpers/pool_drivers.ts";
import type { TestEnv } from "../../helpers/test_env.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { acceptedTrip, type BookedTrip, bookedTrip } from "./tracking_fixtures.ts";

type AcceptedTrip = Awaited<ReturnType<typeof acceptedTrip>>;

function customerPost(t: TestEnv, b: BookedTrip, message: string, token = b.trip.chat_token) {
  return t.call("POST", `/trip-chat/${b.trip.reference}`, { body: { token, message } });
}

function driverPost(t: TestEnv, b: AcceptedTrip, message: string) {
  return t.call("POST", `/driver/trips/${b.trip.reference}/chat`, {
    bearer: b.driver.token,
    body: { message },
  });
}

function customerRead(t: TestEnv, b: BookedTrip, token = b.trip.chat_token) {
  return t.call("GET", `/trip-chat/${b.trip.reference}?token=${encodeURIComponent(token)}`);
}

Deno.test("chat: the customer and the trip's driver write and read one chat, each message with who and when", () =>
  withTestEnv(async (t) => {
    const b = await acceptedTrip(t);
    const first = await customerPost(t, b, "Please ring at the gate");
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const at1 = new Date(t.clock.now()).toISOString();
    assert.deepEqual(first.body.data, {
      from: "customer",
      message: "Please ring at the gate",
      at: at1,
    });
    t.clock.advanceBy(30_000);
    const reply = await t.call("POST", `/driver/trips/${b.trip.reference}/chat`, {
      bearer: b.driver.token,
      body: { message: "On my way\nfive minutes" },
    });
    assert.equal(reply.status, 201, JSON.stringify(reply.body));
    const at2 = new Date(t.clock.now()).toISOString();
    const expected = {
      reference: b.trip.reference,
      open: true,
      messages: [
        { from: "customer", message: "Please ring at the gate", at: at1 },
        { from: "driver", message: "On my way\nfive minutes", at: at2 },
      ],
    };
    const read = await customerRead(t, b);
    assert.equal(read.status, 200, JSON.stringify(read.body));
    assert.deepEqual(read.body.data, expected);
    const driverRead = await t.call("GET", `/driver/trips/${b.trip.reference}/chat`, {
      bearer: b.driver.token,
    });
    assert.deepEqual(driverRead.body.data, expected);
  }));

Deno.test("chat: a message is 1 to 1,000 characters; a bad one changes nothing", () =>
  withTestEnv(async (t) => {
    const b = await bookedTrip(t);
    for (const message of ["", "   ", "x".repeat(1_001)]) {
      const r = await customerPost(t, b, message);
      assert.equal(r.status, 422, message);
      assert.equal(r.body.code, "validation_failed");
      assert.equal(r.body.errors[0].path, "message");
    }
    assert.equal((await customerPost(t, b, "x".repeat(1_000))).status, 201);
    assert.equal((await customerRead(t, b)).body.data.messages.length, 1);
  }));

Deno.test("chat: a wrong token, an unknown reference, another driver or no driver yet is 404 as a missing trip", () =>
  withTestEnv(async (t) => {
    const b = await acceptedTrip(t);
    const other = await bookedTrip(t);
    for (
      const r of [
        await customerRead(t, b, other.trip.chat_token),
        await customerPost(t, b, "hello", "chat_wrong"),
        await t.call("GET", `/trip-chat/BK-UNKNOWN0000?token=${b.trip.chat_token}`),
      ]
    ) {
      assert.equal(r.status, 404);
      assert.deepEqual(Object.keys(r.body).sort(), ["code", "message", "success"]);
      assert.equal(r.body.code, "not_found");
    }
    const stranger = await createPoolDriver(t);
    const missing = await t.call("GET", "/driver/trips/BK-UNKNOWN0000/chat", {
      bearer: stranger.token,
    });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, "trip not found: BK-UNKNOWN0000");
    for (
      const [who, trip] of [[stranger, b], [b.driver, other]] as const
    ) {
      for (const method of ["GET", "POST"]) {
        const r = await t.call(method, `/driver/trips/${trip.trip.reference}/chat`, {
          bearer: who.token,
          ...(method === "POST" ? { body: { message: "hi" } } : {}),
        });
        assert.equal(r.status, 404, `${method} ${trip.trip.reference}`);
        assert.deepEqual(r.body, {
          success: false,
          code: "not_found",
          message: `trip not found: ${trip.trip.reference}`,
        });
      }
    }
    assert.equal((await customerRead(t, b)).body.data.messages.length, 0);
  }));

Deno.test("chat: an absent, empty or overlong token answers exactly as an unknown reference (404), to read or to write", () =>
  withTestEnv(async (t) => {
    const b = await acceptedTrip(t);
    const ref = b.trip.reference;
    const unknown = await t.call("GET", `/trip-chat/BK-UNKNOWN0000?token=${b.trip.chat_token}`);
    const expected = (reference: string) => ({
      success: false,
      code: "not_found",
      message: `no trip has this chat link: ${reference}`,
    });
    assert.deepEqual(unknown.body, expected("BK-UNKNOWN0000"));
    const long = "c".repeat(500);
    for (
      const r of [
        await t.call("GET", `/trip-chat/${ref}`),
        await t.call("GET", `/trip-chat/${ref}?token=`),
        await t.call("GET", `/trip-chat/${ref}?token=${long}`),
        await t.call("POST", `/trip-chat/${ref}`, { body: { message: "hello" } }),
        await t.call("POST", `/trip-chat/${ref}`, { body: { token: "", message: "hello" } }),
        await t.call("POST", `/trip-chat/${ref}`, { body: { token: long, message: "hello" } }),
      ]
    ) {
      assert.equal(r.status, 404, JSON.stringify(r.body));
      assert.deepEqual(r.body, expected(ref));
    }
    assert.equal((await customerRead(t, b)).body.data.messages.length, 0);
  }));

Deno.test("chat: 422 chat_closed after cancellation; still readable, open false", () =>
  withTestEnv(async (t) => {
    const b = await acceptedTrip(t);
    assert.equal((await customerPost(t, b, "before")).status, 201);
    const cancel = await t.call("POST", `/business/trips/${b.trip.reference}/cancel`, {
      key: b.business.api_key,
    });
    assert.equal(cancel.status, 200);
    const late = await customerPost(t, b, "after");
    assert.equal(late.status, 422);
    assert.equal(late.body.code, "chat_closed");
    const driver = await t.call("POST", `/driver/trips/${b.trip.reference}/chat`, {
      bearer: b.driver.token,
      body: { message: "after" },
    });
    assert.equal(driver.status, 422);
    assert.equal(driver.body.code, "chat_closed");
    const read = (await customerRead(t, b)).body.data;
    assert.equal(read.open, false);
    assert.deepEqual(read.messages.map((m: { message: string }) => m.message), ["before"]);
  }));

Deno.test("chat: open up to 30 minutes after completion, closed from then on", () =>
  withTestEnv(async (t) => {
    const b = await acceptedTrip(t);
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
    t.clock.advanceBy(30 * 60_000 - 1);
    assert.equal((await customerPost(t, b, "thank you")).status, 201);
    t.clock.advanceBy(1);
    const closed = await customerPost(t, b, "one more");
    assert.equal(closed.status, 422);
    assert.equal(closed.body.code, "chat_closed");
    assert.equal((await customerRead(t, b)).body.data.open, false);
  }));

Deno.test("chat: the customer filling its share never silences the driver; 422 chat_full names the side that is full", () =>
  withTestEnv(async (t) => {
    const b = await acceptedTrip(t);
    for (let i = 0; i < CHAT_MESSAGES_PER_AUTHOR_MAX; i++) {
      const r = await customerPost(t, b, `where are you ${i}`);
      assert.equal(r.status, 201, JSON.stringify(r.body));
    }
    const full = await customerPost(t, b, "one more");
    assert.equal(full.status, 422);
    assert.equal(full.body.code, "chat_full");
    assert.match(full.body.message, /customer/);
    const driver = await driverPost(t, b, "at the gate");
    assert.equal(driver.status, 201, JSON.stringify(driver.body));
    const read = (await customerRead(t, b)).body.data;
    assert.equal(read.messages.length, CHAT_MESSAGES_PER_AUTHOR_MAX + 1);
    assert.equal(read.messages.at(-1).message, "at the gate");
  }));

Deno.test("chat: a POST sent again with its Idempotency-Key answers the first message (200) and posts nothing more; another message under it is 409", () =>
  withTestEnv(async (t) => {
    const b = await acceptedTrip(t);
    const ref = b.trip.reference;
    const driverSend = (message: string, key: string) =>
      t.call("POST", `/driver/trips/${ref}/chat`, {
        bearer: b.driver.token,
        headers: { "Idempotency-Key": key },
        body: { message },
      });
    const customerSend = (message: string, key: string) =>
      t.call("POST", `/trip-chat/${ref}`, {
        headers: { "Idempotency-Key": key },
        body: { token: b.trip.chat_token, message },
      });
    const first = await driverSend("at the gate", "k-1");
    assert.equal(first.status, 201, JSON.stringify(first.body));
    t.clock.advanceBy(5_000);
    const again = await driverSend("at the gate", "k-1");
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.deepEqual(again.body.data, first.body.data);
    const other = await driverSend("something else", "k-1");
    assert.equal(other.status, 409);
    assert.equal(other.body.code, "reference_conflict");
    // The key is the driver's: the customer's own key of the same value is its own message.
    const c1 = await customerSend("at the gate", "k-1");
    assert.equal(c1.status, 201, JSON.stringify(c1.body));
    const c2 = await customerSend("at the gate", "k-1");
    assert.equal(c2.status, 200);
    assert.deepEqual(c2.body.data, c1.body.data);
    const long = await customerSend("hi", "x".repeat(65));
    assert.equal(long.status, 422);
    assert.equal(long.body.code, "validation_failed");
    assert.equal((await customerSend("hi", "x".repeat(64))).status, 201);
    // Without the header every POST is a message, as before.
    assert.equal((await driverPost(t, b, "at the gate")).status, 201);
    const read = (await customerRead(t, b)).body.data;
    assert.deepEqual(read.messages.map((m: { message: string }) => m.message), [
      "at the gate",
      "at the gate",
      "hi",
      "at the gate",
    ]);
  }));

Deno.test("chat: the same Idempotency-Key sent twice at once posts one message (one 201, one 200 with the same message)", () =>
  withTestEnv(async (t) => {
    const b = await acceptedTrip(t);
    const send = () =>
      t.call("POST", `/driver/trips/${b.trip.reference}/chat`, {
        bearer: b.driver.token,
        headers: { "Idempotency-Key": "lost-signal-1" },
        body: { message: "at the gate" },
      });
    const both = await Promise.all([send(), send()]);
    assert.deepEqual(both.map((r) => r.status).sort(), [200, 201]);
    assert.deepEqual(both[0]!.body.data, both[1]!.body.data);
    assert.equal((await customerRead(t, b)).body.data.messages.length, 1);
  }));

Deno.test("chat: a post sent again under its Idempotency-Key once the chat closed answers the first message (200); a new one is 422 chat_closed", () =>
  withTestEnv(async (t) => {
    const b = await acceptedTrip(t);
    const ref = b.trip.reference;
    const send = (message: string, key: string) =>
      t.call("POST", `/driver/trips/${ref}/chat`, {
        bearer: b.driver.token,
        headers: { "Idempotency-Key": key },
        body: { message },
      });
    const first = await send("left at the gate", "lost-signal-1");
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const cancel = await t.call("POST", `/business/trips/${ref}/cancel`, {
      key: b.business.api_key,
    });
    assert.equal(cancel.status, 200);
    // The driver's app never heard the first answer and sends it again after the chat closed.
    const again = await send("left at the gate", "lost-signal-1");
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.deepEqual(again.body.data, first.body.data);
    const late = await send("left at the gate", "lost-signal-2");
    assert.equal(late.status, 422, JSON.stringify(late.body));
    assert.equal(late.body.code, "chat_closed");
    const other = await send("other", "lost-signal-1");
    assert.equal(other.status, 409, JSON.stringify(other.body));
    assert.equal(other.body.code, "reference_conflict");
    const read = (await customerRead(t, b)).body.data;
    assert.deepEqual(read.messages.map((m: { message: string }) => m.message), [
      "left at the gate",
    ]);
  }));
