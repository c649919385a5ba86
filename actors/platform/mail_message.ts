/**
 * One e-mail the service sends, kept in its outbox (Business API 5.6: security notices to the
 * account owner). Its id names what caused it, so recording it again (a change heard twice, a
 * second instance, a retry after a crash) keeps the one message: never two e-mails for one cause.
 * Messages carry no secret: at most a key's hint or a secret's key id.
 */
import { accept, type ActorDefinition, reject, unreachable } from "../../src/runtime/actor.ts";

export interface MailMessage {
  readonly id: string;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  /** What it tells of, e.g. `api_key_rotated`. */
  readonly cause: string;
  readonly created_at: number;
}

export type MailMessageState = MailMessage | null;

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
  version: 1,
  initial: null,
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
    return event.message;
  },
  project: (s) => s === null ? null : { ...s, created_at: new Date(s.created_at).toISOString() },
};
