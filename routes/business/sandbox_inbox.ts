/**
 * Business API 4.4 and appendix 3, on the sandbox base: POST /business/sandbox/inbox points the
 * webhook URL at the built-in inbox, GET lists what it received (the exact raw bytes sent), and
 * GET /business/sandbox/readiness says which going-live flows the business's own receiver has
 * handled. On live they answer not_found. Answers are ./answers/sandbox_inbox.ts.
 */
import { listInbox, pointWebhookAtInbox } from "../../src/business/flows/sandbox_inbox.ts";
import { sandboxReadiness } from "../../src/business/flows/sandbox_readiness.ts";
import {
  SANDBOX_INBOX_LIST_DEFAULT,
  SANDBOX_INBOX_LIST_MAX,
} from "../../src/business/rules/sandbox.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { define, z } from "../../src/http/route.ts";
import { wholeNumber } from "../../src/http/schemas.ts";
import { business, portalAdmin } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import {
  InboxDeliveryAnswer,
  inboxDeliveryView,
  InboxPointedAnswer,
  ReadinessAnswer,
  readinessView,
} from "./answers/sandbox_inbox.ts";

const tag = "Sandbox";
const security = "business" as const;
const ON_SANDBOX = "on live: this endpoint is on the sandbox base";
const INBOX_PATH = "/business/sandbox/inbox";

export function sandboxInboxRoutes(api: Api): void {
  define(api, {
    method: "post",
    path: INBOX_PATH,
    summary: "Point the webhook URL at the built-in inbox (sandbox)",
    description: "Business webhooks then go to the inbox instead of the network: signed as " +
      "any (X-Service-Signature, -V2), kept with their exact raw body and headers, and answered " +
      "2xx, so they are logged delivered. PATCH /business/profile with a webhook_url points them " +
      "away again. Deliveries to the inbox do not count for GET /business/sandbox/readiness.",
    tag,
    security,
    // spec: business 5.6: the webhook is managed by an integration key or an admin.
    middleware: [business(), portalAdmin],
    response: InboxPointedAnswer,
    refusals: { not_found: ON_SANDBOX },
  }, async (c) => {
    const { env, tenant, by } = businessCall(c);
    const pointed = await pointWebhookAtInbox(env, tenant, by);
    return ok(c, { ...pointed, inbox: INBOX_PATH });
  });

  define(api, {
    method: "get",
    path: INBOX_PATH,
    summary: "What the built-in inbox received, newest first (sandbox)",
    description: "Each delivery's `body` is the exact raw bytes sent: verify the signatures in " +
      "`headers` over it. The newest 1,000 deliveries per business are kept. Follows the " +
      "service's changes within the projection lag (GET /api/metrics).",
    tag,
    security,
    middleware: [business()],
    query: z.object({
      limit: wholeNumber(1, SANDBOX_INBOX_LIST_MAX).default(SANDBOX_INBOX_LIST_DEFAULT),
    }),
    response: z.array(InboxDeliveryAnswer),
    refusals: { not_found: ON_SANDBOX },
  }, async (c, { query }) => {
    const { env, tenant } = businessCall(c);
    return ok(c, (await listInbox(env, tenant, query.limit)).map(inboxDeliveryView));
  });

  define(api, {
    method: "get",
    path: "/business/sandbox/readiness",
    summary: "Which going-live flows your webhook receiver has handled (sandbox)",
    description: "Business API appendix 3, judged from the webhooks your own endpoint answered " +
      "2xx (the built-in inbox is not your receiver, so its deliveries do not count): a " +
      "delivery; a failed delivery and its return; an ID refusal, required once you book " +
      "age-restricted trips; a driver cancellation; your own cancellation.",
    tag,
    security,
    middleware: [business()],
    response: ReadinessAnswer,
    refusals: { not_found: ON_SANDBOX },
  }, async (c) => {
    const { env, tenant } = businessCall(c);
    return ok(c, readinessView(await sandboxReadiness(env, tenant)));
  });
}
