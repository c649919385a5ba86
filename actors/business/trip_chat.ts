/**
 * A trip's order chat (Business API 4.1, 8): tenant = the business, id = the trip's reference.
 * It keeps who wrote each message and when; whether the chat is still open is the trip's to say
 * (the chat flow reads it first), and a side that wrote its share refuses more
 * (CHAT_MESSAGES_PER_AUTHOR_MAX).
 */
import { accept, type ActorDefinition, reject, unreachable } from "../../src/runtime/actor.ts";
import {
  CHAT_MESSAGE_CHARS_MAX,
  CHAT_MESSAGES_MAX,
  CHAT_MESSAGES_PER_AUTHOR_MAX,
  type ChatAuthor,
} from "../../src/business/rules/chat.ts";

export interface ChatMessage {
  readonly from: ChatAuthor;
  readonly message: string;
  readonly at: number;
}

export interface TripChat {
  readonly messages: readonly ChatMessage[];
}

export type TripChatCommand =
  | { kind: "post"; from: ChatAuthor; message: string }
  | { kind: "get" };

export type TripChatEvent = {
  kind: "message_posted";
  from: ChatAuthor;
  message: string;
  at: number;
};

/** A post answers its message; a get the whole chat. */
export type TripChatReply = ChatMessage | TripChat;

/** Four bytes a character at most, and room for the fields around each message. */
const MESSAGE_BYTES_MAX = CHAT_MESSAGE_CHARS_MAX * 4 + 200;

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
        // Counted per side: one party filling the chat must not silence the other.
        if (written(state, command.from) >= CHAT_MESSAGES_PER_AUTHOR_MAX) {
          return reject(
            "chat_full",
            `the ${command.from} wrote its most messages: ${CHAT_MESSAGES_PER_AUTHOR_MAX}`,
          );
        }
        return accept(
          [{ kind: "message_posted", from: command.from, message: command.message, at: ctx.now }],
          (s) => s.messages[s.messages.length - 1]!,
        );
      case "get":
      case "timer":
        return accept([], (s) => s);
      default:
        return unreachable(command);
    }
  },
  evolve: (s, e) => ({
    messages: [...s.messages, { from: e.from, message: e.message, at: e.at }],
  }),
  stateBytesMax: CHAT_MESSAGES_MAX * MESSAGE_BYTES_MAX,
  // Nobody downstream reads a chat from the bus: the state says it all.
  publishEvents: false,
};
