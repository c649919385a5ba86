/**
 * Business API 4.4: POST /business/sandbox/credentials, with a live key on the live base: the
 * account's sandbox twin, made the first time and rotated afterwards. Answers are
 * ./answers/sandbox_channels.ts.
 */
import { sandboxCredentials } from "../../src/business/flows/sandbox_credentials.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { define } from "../../src/http/route.ts";
import { KEY_ALREADY_ROTATED } from "../../src/http/refusals.ts";
import { business, portalAdmin } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { SandboxCredentialsAnswer } from "./answers/sandbox_channels.ts";

export function sandboxCredentialsRoutes(api: Api): void {
  define(api, {
    method: "post",
    path: "/business/sandbox/credentials",
    summary: "Create or rotate the account's sandbox twin (live key, live base)",
    description: "The first call makes the twin in the sandbox (the same name, plan, currency, " +
      "country and owner e-mail; its id is the live account's), with wallets of 100,000 BWP " +
      "and 100,000 ZAR. The twin has the operator's settings of the live account (custody " +
      "scanning, vehicle upgrade policy, capabilities, scopes, billing), set again on each " +
      "call. Each later call rotates its sk_sandbox_ key (the previous one stops " +
      "working at once), its webhook secret and its storefront channel key, and tops each " +
      "wallet below 10,000 up to 100,000. An integration key, the owner or a portal admin may " +
      "call it. On the sandbox base it answers 404.",
    tag: "Sandbox",
    security: "business",
    // spec: business 5.6: an integration key may rotate itself; a coordinator may not.
    middleware: [business(), portalAdmin],
    status: 201,
    response: SandboxCredentialsAnswer,
    refusals: {
      not_found: "called on the sandbox base: credentials are made on the live base",
      sandbox_unavailable: "the deployment runs no sandbox (SANDBOX_PORT=0)",
      email_taken: "the owner's e-mail already signs in to another sandbox account",
      ...KEY_ALREADY_ROTATED,
    },
  }, async (c) => {
    const { env, tenant } = businessCall(c);
    return ok(c, await sandboxCredentials(env, tenant), 201);
  });
}
