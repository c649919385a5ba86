/**
 * The messages the sandbox made for a business and refused at the sender (Business API 1.3:
 * "push, SMS, WhatsApp and calls are refused at the sender"): what would have gone out, on which
 * channel, and why it did not. Today these are the owner's security e-mails (5.6).
 */
import {
  MAIL_NEWEST_FIRST,
  type MailMessage,
  mailMessageActor,
} from "../../../actors/platform/mail_message.ts";
import type { Deps } from "../../environment.ts";
import { refuseUnlessSandbox } from "../rules/sandbox.ts";

/** Messages listed at most per call. */
export const SANDBOX_MESSAGES_MAX = 100;

/** The business's messages, newest first, at most `limit`. */
export async function sandboxMessages(
  deps: Pick<Deps, "name" | "runtime">,
  businessId: string,
  limit: number,
): Promise<MailMessage[]> {
  refuseUnlessSandbox(deps.name, "GET /business/sandbox/messages");
  // The index sorts newest first (mailKey): the page is its first `limit` entries.
  const found = await deps.runtime.lookupPrefix(MAIL_NEWEST_FIRST, `${businessId}:`, limit);
  const read = await Promise.all(found.map(async ({ target }) => {
    const r = await deps.runtime.read(mailMessageActor, target.tenant, target.id, { kind: "get" });
    return r.ok ? r.reply ?? null : null;
  }));
  return read.filter((m): m is MailMessage => m !== null);
}
