/**
 * Business API 4.1, 8, the order chat: the customer with the trip's chat_token (public; errors
 * `{success: false, code, message}`: only tracking answers `error`), and the driver holding the trip
 * from the driver app. 1 to 1,000 characters; 422 chat_closed after cancellation or 30 minutes
 * after completion.
 */
import { customerParty, driverParty, postChat, readChat } from "../../src/business/flows/chat.ts";
import { poolDriver, poolDriverOf } from "../../src/business/driver_auth.ts";
import {
  CHAT_MESSAGE_CHARS_MAX,
  CHAT_MESSAGES_PER_AUTHOR_MAX,
  visibleMessage,
} from "../../src/business/rules/chat.ts";
import { IDEMPOTENCY_KEY_CHARS_MAX } from "../../src/business/rules/booking.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { idempotencyHeader, IdempotencyKey } from "../../src/http/idempotency.ts";
import { anonymous } from "../../src/http/guards.ts";
import { define, z } from "../../src/http/route.ts";
import { PlainText } from "../../src/http/schemas.ts";
import { ChatAnswer, ChatMessageAnswer, chatMessageView, chatView } from "./answers/chat.ts";

const tag = "Order chat";
const Reference = z.object({ reference: z.string().min(1).max(40) });
const Message = PlainText(CHAT_MESSAGE_CHARS_MAX, { lines: true }).min(1).refine(visibleMessage, {
  message: "must hold a visible character: spaces and invisible characters (U+200B and the " +
    "like) alone are an empty message",
});
// No bound or shape of its own: an absent, empty or overlong token is a wrong one, answered as an
// unknown reference (404), so no answer tells a token's shape from a trip's (the body and the URL
// have their own bounds).
const Token = z.string().optional().openapi({ description: "The trip's chat_token" });

/** spec: business 8: Idempotency-Key up to 64 characters, scoped to the trip and the author. */
const POST_REPLAY = {
  replay: "The same Idempotency-Key with the same message: the first message, nothing posted " +
    "again, even once the chat closed",
  idempotencyKey: "Up to 64 characters, the author's own on this trip; the same key with " +
    "another message is refused",
} as const;

const POST_REFUSALS = {
  reference_conflict: "the Idempotency-Key posted another message: nothing changed",
  chat_closed: "the trip was cancelled, or completed over 30 minutes ago",
  chat_full: `the caller's side wrote its most messages (${CHAT_MESSAGES_PER_AUTHOR_MAX}); ` +
    "the other side can still write",
};

export function chatRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/trip-chat/{reference}",
    summary: "Read the order chat (public, with the trip's chat_token)",
    tag,
    security: "public",
    middleware: [anonymous],
    params: Reference,
    query: z.object({ token: Token }),
    response: ChatAnswer,
    refusals: {
      not_found: "no trip has this reference, or the token is absent or not its chat_token",
    },
  }, async (c, { params, query }) => {
    const env = c.get("env");
    const party = await customerParty(env, params.reference, query.token ?? "");
    return ok(c, chatView(params.reference, await readChat(env, party)));
  });

  define(api, {
    method: "post",
    path: "/trip-chat/{reference}",
    summary: "Write to the order chat as the customer (public, with the trip's chat_token)",
    tag,
    security: "public",
    middleware: [anonymous],
    params: Reference,
    body: z.object({ token: Token, message: Message }),
    status: 201,
    ...POST_REPLAY,
    response: ChatMessageAnswer,
    refusals: {
      not_found: "no trip has this reference, or the token is absent or not its chat_token",
      ...POST_REFUSALS,
    },
  }, async (c, { params, body }) => {
    const env = c.get("env");
    const key = idempotencyHeader(c, IDEMPOTENCY_KEY_CHARS_MAX);
    const party = await customerParty(env, params.reference, body.token ?? "");
    const posted = await postChat(env, party, body.message, key);
    return ok(c, chatMessageView(posted), posted.replayed ? 200 : 201);
  });

  driverChatRoutes(api);
}

/** spec: CONTRACT "Driver app": only the trip's driver; anyone else hears it does not exist. */
function driverChatRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/driver/trips/{reference}/chat",
    summary: "Read the order chat of a trip the driver holds",
    tag,
    security: "driver",
    middleware: [poolDriver],
    params: Reference,
    response: ChatAnswer,
  }, async (c, { params }) => {
    const env = c.get("env");
    const party = await driverParty(env, poolDriverOf(c), params.reference);
    return ok(c, chatView(params.reference, await readChat(env, party)));
  });

  define(api, {
    method: "post",
    path: "/driver/trips/{reference}/chat",
    summary: "Write to the order chat of a trip the driver holds",
    tag,
    security: "driver",
    middleware: [poolDriver],
    params: Reference,
    body: z.object({
      message: Message,
      idempotency_key: IdempotencyKey.optional().openapi({
        description: "As the trip actions take it: the same key again answers the first " +
          "message (a replay after lost signal); wins over the Idempotency-Key header",
      }),
    }),
    status: 201,
    ...POST_REPLAY,
    response: ChatMessageAnswer,
    refusals: POST_REFUSALS,
  }, async (c, { params, body }) => {
    const env = c.get("env");
    // spec: CONTRACT "Driver app": every action takes idempotency_key; the header as elsewhere.
    const header = idempotencyHeader(c, IDEMPOTENCY_KEY_CHARS_MAX);
    const key = body.idempotency_key ?? header;
    const party = await driverParty(env, poolDriverOf(c), params.reference);
    const posted = await postChat(env, party, body.message, key);
    return ok(c, chatMessageView(posted), posted.replayed ? 200 : 201);
  });
}
