/**
 * A trip's order chat (Business API 4.1, 8): tenant = the business, id = the trip's reference.
 * It keeps who wrote each message and when, and how its trip ended (told by the trip's outbox,
 * rules/chat.ts CHAT_CLOSE_OUTBOX): closed, it refuses new messages itself, one command at a time,
 * whatever the post's sender read of the trip before; a side that wrote its share refuses more
 * (CHAT_MESSAGES_PER_AUTHOR_MAX). A post under an author's Idempotency-Key is made once.
 */
import { accept, type ActorDefinition, reject, unreachable } from "../../src/runtime/actor.ts";
import {
  CHAT_KEY_CHARS_MAX,
  CHAT_MESSAGE_CHARS_MAX,
  CHAT_MESSAGES_MAX,
  CHAT_MESSAGES_PER_AUTHOR_MAX,
  type ChatAuthor,
  chatClosedReason,
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
  /** spec: business 4.1: the trip was cancelled (absent: not known to be). */
  readonly cancelled?: boolean;
  /** spec: business 4.1, 8: when the trip completed (absent: not known to have). */
  readonly completed_at?: number;
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
  | { kind: "close"; cancelled: boolean; completed_at: number | null }
  | { kind: "get" };

export type TripChatEvent =
  | {
    kind: "message_posted";
    from: ChatAuthor;
    message: string;
    at: number;
    key?: string;
  }
  | { kind: "chat_closed"; cancelled: boolean; completed_at: number | null };

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
  const closed = command.closed ?? closedReason(state, now);
  if (closed !== null) return reject("chat_closed", `the chat is closed: ${closed}`);
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

/** Why the chat, as its trip told it, takes no more messages at `now`; null while open. */
export function closedReason(state: TripChat, now: number): string | null {
  return chatClosedReason({
    status: state.cancelled ? "cancelled" : "open",
    completed_at: state.completed_at ?? null,
  }, now);
}

/** Told of its trip's end (again, after a crash: nothing new then). */
function close(state: TripChat, command: Extract<TripChatCommand, { kind: "close" }>) {
  const cancelled = command.cancelled && !state.cancelled;
  const completed = command.completed_at !== null && state.completed_at === undefined;
  if (!cancelled && !completed) return accept<TripChat, TripChatEvent, TripChatReply>([], (s) => s);
  const event: TripChatEvent = {
    kind: "chat_closed",
    cancelled: command.cancelled || state.cancelled === true,
    completed_at: state.completed_at ?? command.completed_at,
  };
  return accept<TripChat, TripChatEvent, TripChatReply>([event], (s) => s);
}

function written(state: TripChat, from: ChatAuthor): number {
  return state.messages.filter((m) => m.from === from).length;
}

function evolve(s: TripChat, e: TripChatEvent): TripChat {
  if (e.kind === "chat_closed") {
    return {
      ...s,
      ...(e.cancelled ? { cancelled: true } : {}),
      ...(e.completed_at === null ? {} : { completed_at: e.completed_at }),
    };
  }
  return {
    ...s,
    messages: [...s.messages, {
      from: e.from,
      message: e.message,
      at: e.at,
      ...(e.key === undefined ? {} : { key: e.key }),
    }],
  };
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
      case "close":
        return close(state, command);
      case "get":
      case "timer":
        return accept([], (s) => s);
      default:
        return unreachable(command);
    }
  },
  evolve,
  stateBytesMax: CHAT_MESSAGES_MAX * MESSAGE_BYTES_MAX,
  // Nobody downstream reads a chat from the bus: the state says it all.
  publishEvents: false,
};
