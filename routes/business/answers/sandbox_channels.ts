/**
 * What the sandbox twin's routes answer (Business API 4.4 credentials, 5.9): the twin's
 * credentials with its storefront grant, and what a partner channel's event did.
 */
import { CHANNEL_AUDIENCE } from "../../../src/business/rules/sandbox.ts";
import { z } from "../../../src/http/route.ts";

export const StorefrontGrantAnswer = z.object({
  source: z.string().openapi({
    description: "The channel's name: the `{source}` of its events URL and its tokens' `iss`",
    example: "storefront-biz_3f1c0a9b27d84e6f5a1b",
  }),
  signing_key: z.string().openapi({
    description: "The channel's sandbox signing key, shown this once (a new one each time " +
      "credentials are created): the HMAC key is the UTF-8 bytes of the whole key as shown",
  }),
  algorithm: z.literal("HS256"),
  audience: z.literal(CHANNEL_AUDIENCE),
  issuer: z.string().openapi({ description: "The `iss` a token must carry: the source" }),
  subject: z.string().openapi({ description: "The `sub` a token must carry: the business id" }),
  events_url: z.string().openapi({ description: "Where the channel posts its events" }),
}).openapi("StorefrontGrant", {
  description: "To call the events URL, sign a JWT (HS256, the signing key) with `iss` the " +
    `source, \`sub\` the business id, \`aud\` ${CHANNEL_AUDIENCE} and \`exp\` (required; a few ` +
    "minutes ahead), and send it as `Authorization: Bearer <token>`",
});

export const SandboxCredentialsAnswer = z.object({
  base_url: z.string().openapi({ description: "The sandbox base address (ending /api)" }),
  api_key: z.string().openapi({
    description: "sk_sandbox_..., shown once; the previous one " +
      "stops working at once",
  }),
  webhook_secret: z.string().openapi({ description: "whsec_..., shown once" }),
  business_id: z.string().openapi({
    description: "The twin's id in the sandbox: the live account's own id",
  }),
  created: z.boolean().openapi({
    description: "true: the twin was made by this call; false: its credentials were rotated",
  }),
  storefront: StorefrontGrantAnswer,
}).openapi("SandboxCredentials");

export const ChannelEventAnswer = z.object({
  event_id: z.string().openapi({ description: "The event's `id`, as sent" }),
  trip: z.object({
    reference: z.string(),
    id: z.number().int(),
    status: z.string(),
    external_reference: z.string().nullable(),
  }),
  replayed: z.boolean().openapi({
    description: "The order's external_reference was booked before: its first trip, unchanged",
  }),
}).openapi("ChannelEventAccepted");
