/** Business API 4.1: the order chat as the customer and the driver read it. */
import type { ChatMessage, TripChat } from "../../../actors/business/trip_chat.ts";
import { iso } from "../../../src/domain/iso.ts";
import { z } from "../../../src/http/route.ts";

export const ChatMessageAnswer = z.object({
  from: z.enum(["customer", "driver"]),
  message: z.string(),
  at: z.string(),
}).openapi("ChatMessage");

export const ChatAnswer = z.object({
  reference: z.string(),
  open: z.boolean().openapi({
    description: "False once the trip was cancelled or completed over 30 minutes ago",
  }),
  messages: z.array(ChatMessageAnswer).openapi({ description: "Oldest first" }),
}).openapi("TripChat");

export function chatMessageView(m: ChatMessage): z.infer<typeof ChatMessageAnswer> {
  return { from: m.from, message: m.message, at: iso(m.at) };
}

export function chatView(
  reference: string,
  r: { chat: TripChat; open: boolean },
): z.infer<typeof ChatAnswer> {
  return { reference, open: r.open, messages: r.chat.messages.map(chatMessageView) };
}
