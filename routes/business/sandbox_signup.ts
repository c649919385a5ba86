/**
 * Business API 4.4 sandbox sign-up: public, on the sandbox base (live answers 404 not_found). The
 * code is never sent and is always 123456 (5.7), valid 15 minutes for 5 tries (8).
 */
import {
  requestSandboxSignup,
  verifySandboxSignup,
} from "../../src/business/flows/sandbox_signup.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { publicBaseUrl } from "../../src/http/context.ts";
import { anonymous } from "../../src/http/guards.ts";
import { define, z } from "../../src/http/route.ts";
import { Email } from "../../src/http/schemas.ts";
import { SandboxSignupAnswer, SandboxSignupVerifiedAnswer } from "./answers/sandbox_signup.ts";

const tag = "Sandbox";
const Name = z.string().trim().min(1).max(120);
const ON_LIVE = { not_found: "called on live: sign-up is on the sandbox base" };

export function sandboxSignupRoutes(api: Api): void {
  define(api, {
    method: "post",
    path: "/sandbox/signup",
    summary: "Sign up for the sandbox; verify with code 123456 (never sent)",
    description: "Answers 202 with the same message whether the e-mail is known or not. A new " +
      "sign-up of the same e-mail starts again: a fresh 15 minutes and 5 tries.",
    tag,
    security: "public",
    middleware: [anonymous],
    body: z.object({ first_names: Name, surname: Name, email: Email, company: Name }),
    status: 202,
    response: SandboxSignupAnswer,
    refusals: ON_LIVE,
  }, async (c, { body }) => {
    const env = c.get("env");
    return ok(c, await requestSandboxSignup(env, body), 202);
  });

  define(api, {
    method: "post",
    path: "/sandbox/signup/verify",
    summary: "Verify a sandbox sign-up: the first makes the sandbox business, later ones rotate " +
      "its key and webhook secret",
    description: "The previous key is refused at once after a rotation. Answers 201 with the " +
      "credentials, shown this once.",
    tag,
    security: "public",
    middleware: [anonymous],
    body: z.object({ email: Email, code: z.string().trim().min(1).max(32) }),
    status: 201,
    response: SandboxSignupVerifiedAnswer,
    refusals: {
      ...ON_LIVE,
      signup_code_invalid: "the code is wrong; `tries_left` says how many remain (at 0 the " +
        "sign-up is spent)",
      signup_code_expired: "more than 15 minutes since the sign-up: sign up again",
      no_signup_pending: "no sign-up is pending for the e-mail (never started, already " +
        "verified or spent by 5 wrong codes)",
      email_taken: "a portal user of another sandbox business already has this e-mail",
    },
  }, async (c, { body }) => {
    const env = c.get("env");
    const made = await verifySandboxSignup(env, body);
    return ok(c, { ...made, base_url: `${publicBaseUrl(c)}/api` }, 201);
  });
}
