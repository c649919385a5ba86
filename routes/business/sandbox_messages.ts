/**
 * GET /business/sandbox/messages (Business API 1.3): the messages the sandbox refused at the
 * sender for the caller's business, newest first. On live, 404 not_found (sandbox base).
 */
import {
  SANDBOX_MESSAGES_MAX,
  sandboxMessages,
} from "../../src/business/flows/sandbox_messages.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { define, z } from "../../src/http/route.ts";
import { wholeNumber } from "../../src/http/schemas.ts";
import { business, portalAdmin } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { SandboxMessageAnswer, sandboxMessageView } from "./answers/sandbox_messages.ts";

export function sandboxMessageRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/business/sandbox/messages",
    summary: "Messages the sandbox refused at the sender (e-mail today; push, SMS, WhatsApp " +
      "and calls share the channel field)",
    description: "Nothing in the sandbox reaches a real inbox or phone: each message is kept " +
      "with `status: refused` and the reason. Newest first, up to `limit` " +
      `(1 to ${SANDBOX_MESSAGES_MAX}, default 50).`,
    tag: "Sandbox",
    security: "business",
    middleware: [business(), portalAdmin],
    query: z.object({ limit: wholeNumber(1, SANDBOX_MESSAGES_MAX).default(50) }),
    response: z.array(SandboxMessageAnswer),
    refusals: { not_found: "called on live: the messages are on the sandbox base" },
  }, async (c, { query }) => {
    const { env, tenant } = businessCall(c);
    const list = await sandboxMessages(env, tenant, query.limit);
    return ok(c, list.map(sandboxMessageView));
  });
}
