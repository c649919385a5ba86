/** What GET /business/sandbox/messages answers (Business API 1.3; 5.6 notices). */
import type { MailMessage } from "../../../actors/platform/mail_message.ts";
import { MESSAGE_CHANNELS } from "../../../src/domain/messages.ts";
import { iso } from "../../../src/domain/iso.ts";
import { z } from "../../../src/http/route.ts";
import { UtcInstant } from "../../../src/http/schemas.ts";

export const SandboxMessageAnswer = z.object({
  id: z.string(),
  channel: z.enum(MESSAGE_CHANNELS),
  to: z.string(),
  subject: z.string(),
  text: z.string(),
  cause: z.string().openapi({ description: "What it tells of, e.g. `api_key_rotated`" }),
  status: z.enum(["queued", "refused"]).openapi({
    description: "refused: stopped at the sender (the sandbox reaches no real inbox or phone)",
  }),
  reason: z.string().nullable().openapi({ description: "Why it was refused" }),
  created_at: UtcInstant,
}).openapi("SandboxMessage");

export function sandboxMessageView(m: MailMessage): z.infer<typeof SandboxMessageAnswer> {
  return {
    id: m.id,
    channel: m.channel,
    to: m.to,
    subject: m.subject,
    text: m.text,
    cause: m.cause,
    status: m.disposition.status,
    reason: m.disposition.status === "refused" ? m.disposition.reason : null,
    created_at: iso(m.created_at),
  };
}
