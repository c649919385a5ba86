/**
 * A chat message (Business API 4.1, 8: 1 to 1,000 characters) says something: one made only of
 * characters nobody sees (zero-width spaces, joiners, a byte order mark, blank fillers) is an
 * empty message, refused as "" is, and changes nothing.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { acceptedTrip } from "./tracking_fixtures.ts";

const INVISIBLE = [
  "\u200B",
  "\u200B\u200B\u200B",
  " \u200B \u200C\u200D\u2060 ",
  "\uFEFF\u200B",
  "\u3164\u3164",
  "\u2800",
  "\u00AD\u034F",
];

Deno.test("chat: a message of invisible characters only (U+200B and the like) is refused 422 validation_failed; nothing is posted", () =>
  withTestEnv(async (t) => {
    const b = await acceptedTrip(t);
    for (const message of INVISIBLE) {
      const customer = await t.call("POST", `/trip-chat/${b.trip.reference}`, {
        body: { token: b.trip.chat_token, message },
      });
      assert.equal(customer.status, 422, JSON.stringify(message));
      assert.equal(customer.body.code, "validation_failed");
      assert.equal(customer.body.errors[0].path, "message");
      const driver = await t.call("POST", `/driver/trips/${b.trip.reference}/chat`, {
        bearer: b.driver.token,
        body: { message },
      });
      assert.equal(driver.status, 422, JSON.stringify(message));
      assert.equal(driver.body.errors[0].path, "message");
    }
    // Visible text with a joiner inside (an emoji sequence) is a message as sent.
    const family = "\u{1F468}\u200D\u{1F469}\u200D\u{1F467} at the gate";
    const ok = await t.call("POST", `/trip-chat/${b.trip.reference}`, {
      body: { token: b.trip.chat_token, message: family },
    });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    const read = await t.call("GET", `/driver/trips/${b.trip.reference}/chat`, {
      bearer: b.driver.token,
    });
    assert.deepEqual(read.body.data.messages.map((m: { message: string }) => m.message), [family]);
  }));
