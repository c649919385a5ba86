import assert from "node:assert/strict";
import { tripChatActor } from "../../../actors/business/trip_chat.ts";
import { CHAT_MESSAGES_PER_AUTHOR_MAX } from "../../../src/business/rules/chat.ts";
import { ActorHarness } from "../../helpers/actor.ts";

Deno.test("trip chat: messages kept in order with author and time", () => {
  const h = new ActorHarness(tripChatActor, { now: 1_000 });
  h.must({ kind: "post", from: "customer", message: "hello" });
  h.now = 2_000;
  h.must({ kind: "post", from: "driver", message: "hi" });
  assert.deepEqual(h.state.messages, [
    { from: "customer", message: "hello", at: 1_000 },
    { from: "driver", message: "hi", at: 2_000 },
  ]);
});

Deno.test("trip chat: each side has its own CHAT_MESSAGES_PER_AUTHOR_MAX; a full side never blocks the other", () => {
  const h = new ActorHarness(tripChatActor, { now: 1_000 });
  for (let i = 0; i < CHAT_MESSAGES_PER_AUTHOR_MAX; i++) {
    h.must({ kind: "post", from: "customer", message: `m${i}` });
  }
  const full = h.refused({ kind: "post", from: "customer", message: "one too many" }, "chat_full");
  assert.match(full.message, /customer/);
  for (let i = 0; i < CHAT_MESSAGES_PER_AUTHOR_MAX; i++) {
    h.must({ kind: "post", from: "driver", message: `d${i}` });
  }
  h.refused({ kind: "post", from: "driver", message: "one too many" }, "chat_full");
  assert.equal(h.state.messages.length, 2 * CHAT_MESSAGES_PER_AUTHOR_MAX);
});

Deno.test("trip chat: a post sent again under its key answers the first message and adds none; another message under it is a conflict; keys are per side", () => {
  const h = new ActorHarness(tripChatActor, { now: 1_000 });
  const first = h.must({ kind: "post", from: "driver", message: "at the gate", key: "k1" });
  h.now = 5_000;
  const again = h.must({ kind: "post", from: "driver", message: "at the gate", key: "k1" });
  assert.deepEqual(again.events, []);
  assert.deepEqual(again.reply, { ...first.reply, replayed: true });
  assert.equal(first.reply && "replayed" in first.reply && first.reply.replayed, false);
  h.refused(
    { kind: "post", from: "driver", message: "something else", key: "k1" },
    "reference_conflict",
  );
  h.must({ kind: "post", from: "customer", message: "at the gate", key: "k1" });
  h.must({ kind: "post", from: "driver", message: "at the gate" });
  h.must({ kind: "post", from: "driver", message: "at the gate" });
  assert.equal(h.state.messages.length, 4);
});

Deno.test("trip chat: once closed, a post sent again under its key answers the first message; any other post is chat_closed", () => {
  const h = new ActorHarness(tripChatActor, { now: 1_000 });
  const first = h.must({ kind: "post", from: "driver", message: "at the gate", key: "k1" });
  const closed = "the trip was cancelled";
  const again = h.must({ kind: "post", from: "driver", message: "at the gate", key: "k1", closed });
  assert.deepEqual(again.events, []);
  assert.deepEqual(again.reply, { ...first.reply, replayed: true });
  h.refused(
    { kind: "post", from: "driver", message: "at the gate", key: "k2", closed },
    "chat_closed",
  );
  h.refused({ kind: "post", from: "customer", message: "hi", closed }, "chat_closed");
  assert.equal(h.state.messages.length, 1);
});
