/**
 * One e-mail in the outbox (actors/platform/mail_message.ts; Business API 5.6: a changed API key,
 * webhook secret or webhook address is e-mailed to the account owner). Its id names its cause, so
 * recording it again keeps the one message.
 */
import assert from "node:assert/strict";
import { type MailMessage, mailMessageActor } from "../../../actors/platform/mail_message.ts";
import { notFound } from "../../../src/runtime/actor.ts";
import { ActorHarness } from "../../helpers/actor.ts";

const T0 = Date.parse("2026-11-02T08:00:00Z");
const MESSAGE: Omit<MailMessage, "created_at"> = {
  id: "mail_api_key_rotated_42",
  to: "owner@example.com",
  subject: "Your API key was changed",
  text: "The API key ending abcd was replaced.",
  cause: "api_key_rotated",
  channel: "email",
  disposition: { status: "queued" },
};

Deno.test("mail message: record keeps the message with the time it was recorded", () => {
  const h = new ActorHarness(mailMessageActor, { now: T0 });
  const step = h.must({ kind: "record", message: MESSAGE });
  assert.deepEqual(step.events, [{ kind: "recorded", message: { ...MESSAGE, created_at: T0 } }]);
  assert.deepEqual(step.reply, { ...MESSAGE, created_at: T0 });
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("mail message: recording the same cause again keeps the first message, never two", () => {
  const h = new ActorHarness(mailMessageActor, { now: T0 });
  h.must({ kind: "record", message: MESSAGE });
  h.now = T0 + 60_000;
  const again = h.must({ kind: "record", message: { ...MESSAGE, text: "a second wording" } });
  assert.deepEqual(again.events, []);
  assert.deepEqual(again.reply, { ...MESSAGE, created_at: T0 });
  assert.equal(h.log.length, 1);
});

Deno.test("mail message: get answers it, or not_found in the caller's words", () => {
  const h = new ActorHarness(mailMessageActor, { now: T0 });
  h.refused({ kind: "get" }, "not_found", "e-mail not found");
  assert.equal(notFound(mailMessageActor, "x").message, "e-mail not found: x");
  h.must({ kind: "record", message: MESSAGE });
  assert.deepEqual(h.must({ kind: "get" }).reply, { ...MESSAGE, created_at: T0 });
  assert.deepEqual(h.fire("x").events, []);
});

Deno.test("mail message: the projection shows the time as ISO 8601", () => {
  const h = new ActorHarness(mailMessageActor, { now: T0 });
  h.must({ kind: "record", message: MESSAGE });
  assert.deepEqual(mailMessageActor.project!(h.state), {
    ...MESSAGE,
    created_at: "2026-11-02T08:00:00.000Z",
  });
  assert.equal(mailMessageActor.project!(null), null);
});

Deno.test("mail message: a version 1 message (e-mail only) loads as e-mail queued for a sender", () => {
  const { channel: _c, disposition: _d, ...v1 } = { ...MESSAGE, created_at: T0 };
  assert.deepEqual(mailMessageActor.load!(v1, 1), { ...MESSAGE, created_at: T0 });
  assert.equal(mailMessageActor.load!(null, 1), null);
});
