/**
 * The order chat (Business API 4.1, 8): the customer holding the trip's chat_token and the trip's
 * driver read and write one chat per trip. Another trip, a wrong token or a driver not holding
 * the trip is answered as a trip that does not exist.
 */
import { type Trip, TRIP_REFERENCE_INDEX, tripActor } from "../../../actors/business/trip/mod.ts";
import {
  closedReason,
  type PostedMessage,
  type TripChat,
  tripChatActor,
} from "../../../actors/business/trip_chat.ts";
import { constantTimeEqual } from "../../domain/secrets.ts";
import type { Deps } from "../../environment.ts";
import { foundOrNull, orRefuse, refuse } from "../../runtime/actor.ts";
import { type ChatAuthor, chatClosedReason, type ChatCloseItem } from "../rules/chat.ts";

type ChatDeps = Pick<Deps, "runtime" | "clock" | "requestId">;

/** Who is chatting, once checked: the trip and the side they write for. */
export interface ChatParty {
  readonly trip: Trip;
  readonly from: ChatAuthor;
}

async function tripByReference(deps: ChatDeps, reference: string): Promise<Trip | null> {
  const target = await deps.runtime.lookup(TRIP_REFERENCE_INDEX, reference);
  if (!target) return null;
  // A refused read (a full mailbox) is thrown (503), never answered 404 for a trip that exists.
  const r = foundOrNull(
    await deps.runtime.read(tripActor, target.tenant, target.id, { kind: "get" }),
  );
  return r?.phase === "booked" ? r.trip : null;
}

/**
 * The customer: the trip's chat_token, compared in constant time. An empty token (none sent) is a
 * wrong one: answered as a trip that does not exist.
 */
export async function customerParty(
  deps: ChatDeps,
  reference: string,
  token: string,
): Promise<ChatParty> {
  const trip = await tripByReference(deps, reference);
  if (!trip || token === "" || !constantTimeEqual(token, trip.chat_token)) {
    refuse("not_found", `no trip has this chat link: ${reference}`);
  }
  return { trip, from: "customer" };
}

/** The driver holding the trip; any other driver hears the trip does not exist. */
export async function driverParty(
  deps: ChatDeps,
  driverId: string,
  reference: string,
): Promise<ChatParty> {
  const trip = await tripByReference(deps, reference);
  if (!trip || trip.driver?.id !== driverId) refuse("not_found", `trip not found: ${reference}`);
  return { trip, from: "driver" };
}

/** The chat so far, oldest first, and whether it still takes messages. */
export async function readChat(
  deps: ChatDeps,
  party: ChatParty,
): Promise<{ chat: TripChat; open: boolean }> {
  const t = party.trip;
  const r = orRefuse(
    await deps.runtime.read(tripChatActor, t.business_id, t.reference, {
      kind: "get",
    }),
  );
  const chat = r as TripChat;
  const now = deps.clock.now();
  return { chat, open: chatClosedReason(t, now) === null && closedReason(chat, now) === null };
}

/**
 * spec: business 4.1: 422 after cancellation or 30 minutes after completion. Under an
 * Idempotency-Key (the trip's and the author's) a post sent again answers the first message, even
 * once the chat closed: the chat tells a replay from a new message.
 */
export async function postChat(
  deps: ChatDeps,
  party: ChatParty,
  message: string,
  key: string | null = null,
): Promise<PostedMessage> {
  const t = party.trip;
  const closed = chatClosedReason(t, deps.clock.now());
  if (closed && key === null) refuse("chat_closed", `the chat is closed: ${closed}`);
  const r = orRefuse(
    await deps.runtime.ask(tripChatActor, t.business_id, t.reference, {
      kind: "post",
      from: party.from,
      message,
      ...(key === null ? {} : { key }),
      ...(closed ? { closed } : {}),
    }, { requestId: deps.requestId }),
  );
  return r as PostedMessage;
}

/**
 * spec: business 4.1, 8: tells a trip's chat that the trip ended (its outbox, CHAT_CLOSE_OUTBOX),
 * so the chat refuses later posts itself. Told again after a crash, it changes nothing.
 */
export async function closeChat(deps: Pick<Deps, "runtime">, item: ChatCloseItem): Promise<void> {
  // Any refusal (a full mailbox) is thrown, so the item is handed over again.
  orRefuse(
    await deps.runtime.ask(tripChatActor, item.business_id, item.reference, {
      kind: "close",
      cancelled: item.cancelled,
      completed_at: item.completed_at,
    }),
  );
}
