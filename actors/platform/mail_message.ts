/**
 * One e-mail the service sends, kept in its outbox (Business API 5.6: security notices to the
 * account owner). Its id names what caused it, so recording it again (a change heard twice, a
 * second instance, a retry after a crash) keeps the one message: never two e-mails for one cause.
 * Messages carry no secret: at most a key's hint or a secret's key id.
 */
import { accept, type ActorDefinition, reject, unreachable } from "../../src/runtime/actor.ts";
import type { MessageChannel, MessageDisposition } from "../../src/domain/messages.ts";

export interface MailMessage {
  readonly id: string;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  /** What it tells of, e.g. `api_key_rotated`. */
  readonly cause: string;
  /** Always `email` today; the field a push, SMS, WhatsApp or call sender will share. */
  readonly channel: MessageChannel;
  /** What the sender's gate decided (src/outbound/egress.ts): a sender sends only `queued`. */
  readonly disposition: MessageDisposition;
  readonly created_at: number;
}

export type MailMessageState = MailMessage | null;

/** The index of messages by id, read by prefix (`<business>:`) to list a business's messages. */
export const MAIL_BY_ID = "mail_message_id";

export type MailMessageCommand =
  | { kind: "record"; message: Omit<MailMessage, "created_at"> }
  | { kind: "get" };

export type MailMessageEvent = { kind: "recorded"; message: MailMessage };

export const mailMessageActor: ActorDefinition<
  MailMessageState,
  MailMessageCommand,
  MailMessageEvent,
  MailMessage | undefined
> = {
  type: "mail_message",
  noun: "e-mail",
  version: 2,
  initial: null,
  load,
  decide(state, command, ctx) {
    switch (command.kind) {
      case "record":
        // Already recorded for this cause: the one message stands.
        if (state !== null) return accept([], (s) => s ?? undefined);
        return accept(
          [{ kind: "recorded", message: { ...command.message, created_at: ctx.now } }],
          (s) => s ?? undefined,
        );
      case "get":
        if (state === null) return reject("not_found", "e-mail not found");
        return accept([], (s) => s ?? undefined);
      case "timer":
        return accept([]);
      default:
        return unreachable(command);
    }
  },
  evolve(_state, event) {
    return withChannel(event.message);
  },
  // Ids begin with the business they are about (`<business>:...`): its messages by prefix.
  indexes: (s) => s === null ? [] : [{ index: MAIL_BY_ID, key: s.id }],
  indexesChangedAt: 2,
  project: (s) => s === null ? null : { ...s, created_at: new Date(s.created_at).toISOString() },
};

/** Version 1 (and its events) had e-mail only, queued for a sender. */
function withChannel(m: MailMessage): MailMessage {
  return {
    ...m,
    channel: m.channel ?? "email",
    disposition: m.disposition ?? { status: "queued" },
  };
}

function load(stored: unknown, _version: number): MailMessageState {
  if (stored === null) return null;
  if (typeof stored !== "object" || !("to" in stored) || !("cause" in stored)) {
    throw new TypeError("stored e-mail is not a message");
  }
  return withChannel(stored as MailMessage);
}
