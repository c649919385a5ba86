/**
 * A trip's order chat (Business API 4.1, 8): tenant = the business, id = the trip's reference.
 * It keeps who wrote each message and when; whether the chat is still open is the trip's to say
 * (the chat flow reads it and tells the post), and a side that wrote its share refuses more
 * (CHAT_MESSAGES_PER_AUTHOR_MAX). A post under an author's Idempotency-Key is made once.
 */
import { accept, type ActorDefinition, reject, unreachable } from "../../src/runtime/actor.ts";
import {
  CHAT_KEY_CHARS_MAX,
  CHAT_MESSAGE_CHARS_MAX,
  CHAT_MESSAGES_MAX,
  CHAT_MESSAGES_PER_AUTHOR_MAX,
  type ChatAuthor,
} from "../../src/business/rules/chat.ts";

export interface ChatMessage {
  readonly from: ChatAuthor;
  readonly message: string;
  readonly at: number;
  /** The Idempotency-Key its author posted it under, if any (scoped to the author). */
  readonly key?: string;
}

/** A post's answer: the message, and whether it was posted before under the same key. */
export type PostedMessage = ChatMessage & { readonly replayed: boolean };

export interface TripChat {
  readonly messages: readonly ChatMessage[];
}

export type TripChatCommand =
  | {
    kind: "post";
    from: ChatAuthor;
    message: string;
    key?: string;
    /** Why the chat no longer takes messages (the trip's to say, rules/chat.ts); absent: open. */
    closed?: string;
  }
  | { kind: "get" };

export type TripChatEvent = {
  kind: "message_posted";
  from: ChatAuthor;
  message: string;
  at: number;
  key?: string;
};

/** A post answers its message; a get the whole chat. */
export type TripChatReply = PostedMessage | TripChat;

type Post = Extract<TripChatCommand, { kind: "post" }>;

/** Four bytes a character at most, and room for the key and the fields around each message. */
const MESSAGE_BYTES_MAX = (CHAT_MESSAGE_CHARS_MAX + CHAT_KEY_CHARS_MAX) * 4 + 200;

/**
 * spec: business 8 Idempotency-Key: a post sent again under its author's key answers the first
 * message and posts nothing; the key with another message is a conflict.
 */
function post(state: TripChat, command: Post, now: number) {
  const { from, message, key } = command;
  const first = key === undefined
    ? undefined
    : state.messages.find((m) => m.from === from && m.key === key);
  if (first) {
    if (first.message !== message) {
      return reject("reference_conflict", `the Idempotency-Key ${key} posted another message`);
    }
    return accept<TripChat, TripChatEvent, TripChatReply>([], () => ({ ...first, replayed: true }));
  }
  // spec: business 4.1: closed to new messages; a post sent again under its key is answered above
  // even so (CONTRACT Driver app: a replay answers the first answer).
  if (command.closed !== undefined) {
    return reject("chat_closed", `the chat is closed: ${command.closed}`);
  }
  // Counted per side: one party filling the chat must not silence the other.
  if (written(state, from) >= CHAT_MESSAGES_PER_AUTHOR_MAX) {
    return reject(
      "chat_full",
      `the ${from} wrote its most messages: ${CHAT_MESSAGES_PER_AUTHOR_MAX}`,
    );
  }
  const posted: TripChatEvent = {
    kind: "message_posted",
    from,
    message,
    at: now,
    ...(key === undefined ? {} : { key }),
  };
  return accept<TripChat, TripChatEvent, TripChatReply>(
    [posted],
    (s) => ({ ...s.messages[s.messages.length - 1]!, replayed: false }),
  );
}

function written(state: TripChat, from: ChatAuthor): number {
  return state.messages.filter((m) => m.from === from).length;
}

export const tripChatActor: ActorDefinition<
  TripChat,
  TripChatCommand,
  TripChatEvent,
  TripChatReply
> = {
  type: "business_trip_chat",
  noun: "chat",
  version: 1,
  initial: { messages: [] },
  decide(state, command, ctx) {
    switch (command.kind) {
      case "post":
        return post(state, command, ctx.now);
      case "get":
      case "timer":
        return accept([], (s) => s);
      default:
        return unreachable(command);
    }
  },
  evolve: (s, e) => ({
    messages: [...s.messages, {
      from: e.from,
      message: e.message,
      at: e.at,
      ...(e.key === undefined ? {} : { key: e.key }),
    }],
  }),
  stateBytesMax: CHAT_MESSAGES_MAX * MESSAGE_BYTES_MAX,
  // Nobody downstream reads a chat from the bus: the state says it all.
  publishEvents: false,
};
