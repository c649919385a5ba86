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

/**
 * The index of a business's messages newest first, read by prefix (`<business>:`): its keys sort
 * as text in the order of a list, newest first, so a page reads only its own entries (mailKey).
 */
export const MAIL_NEWEST_FIRST = "mail_message_newest";

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
  version: 3,
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
  indexes: (s) => s === null ? [] : [{ index: MAIL_NEWEST_FIRST, key: mailKey(s) }],
  // Version 2 keyed entries by id, whose log position sorts as text (10 before 9): rewritten.
  indexesChangedAt: 3,
  project: (s) => s === null ? null : { ...s, created_at: new Date(s.created_at).toISOString() },
};

/**
 * `<business>:<time>:<position>:<id>`, time and position each counted down from the largest safe
 * integer in 16 digits, so a later message, or one of a later log position in the same
 * millisecond, sorts first. Ids begin with the business (`<business>:...`) and end in the
 * position in the log that caused them (`:security:<seq>`).
 */
function mailKey(m: MailMessage): string {
  const business = m.id.slice(0, m.id.indexOf(":"));
  const position = Number(/(\d+)$/.exec(m.id)?.[1] ?? 0);
  return `${business}:${countdown(m.created_at)}:${countdown(position)}:${m.id}`;
}

/** `n` (a whole number, 0 to the largest safe integer) as text sorting in descending order. */
function countdown(n: number): string {
  return String(Number.MAX_SAFE_INTEGER - Math.min(n, Number.MAX_SAFE_INTEGER)).padStart(16, "0");
}

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
