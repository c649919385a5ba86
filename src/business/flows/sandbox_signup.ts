/**
 * Sandbox sign-up (Business API 4.4, 5.7, 8): anyone signs up on the sandbox base with their
 * name, e-mail and company; the code is never sent and is always 123456. The first verified
 * sign-up of an e-mail makes a sandbox business (its twin); signing up again rotates that
 * business's key and webhook secret, and tops its wallets up (spec: business 8).
 */
import {
  SANDBOX_SIGNUP_TENANT,
  sandboxSignupActor,
  type SignupDetails,
} from "../../../actors/business/sandbox_signup.ts";
import { businessActor } from "../../../actors/platform/business/mod.ts";
import type { Deps } from "../../environment.ts";
import { createBusiness } from "../../platform/flows/businesses.ts";
import { rotateApiKeyOf, rotateWebhookSecretAfterKey } from "../../platform/flows/keys.ts";
import { orRefuse, refuse } from "../../runtime/actor.ts";
import { refuseUnlessSandbox } from "../rules/sandbox.ts";
import { topUpSandboxWallets } from "./sandbox_wallet.ts";

type SignupDeps = Pick<Deps, "name" | "runtime" | "clock" | "dataKey" | "requestId">;

/** A sandbox twin made by sign-up: the plan a starter account has (spec: business 8). */
const SIGNUP_PLAN = "starter";
/** Botswana, the first of the default catalogue's countries (rules/default_catalogue.ts). */
const SIGNUP_CURRENCY = "BWP";
const SIGNUP_COUNTRY = "BW";

/** The answer of POST /sandbox/signup, the same whether the e-mail is known or not. */
export const SIGNUP_MESSAGE = "Sign-up received. Sandbox codes are never sent: verify with " +
  "code 123456 at POST /sandbox/signup/verify within 15 minutes (5 tries).";

/** spec: business 4.4: starts (or starts again) the e-mail's sign-up. */
export async function requestSandboxSignup(
  deps: SignupDeps,
  input: SignupDetails & { readonly email: string },
): Promise<{ readonly message: string }> {
  refuseUnlessSandbox(deps.name, "POST /sandbox/signup");
  const { email, first_names, surname, company } = input;
  orRefuse(
    await deps.runtime.ask(sandboxSignupActor, SANDBOX_SIGNUP_TENANT, email, {
      kind: "request",
      first_names,
      surname,
      company,
    }, { requestId: deps.requestId }),
  );
  return { message: SIGNUP_MESSAGE };
}

export interface SandboxSignupVerified {
  readonly business_id: string;
  /** `sk_sandbox_...`, shown this once. */
  readonly api_key: string;
  /** `whsec_...`, shown this once. */
  readonly webhook_secret: string;
}

/**
 * spec: business 4.4: the code makes the e-mail's sandbox business the first time, and rotates
 * its key and webhook secret every time after. A crash after the code was taken leaves the
 * business id with the sign-up: signing up again makes the business if it is still missing.
 */
export async function verifySandboxSignup(
  deps: SignupDeps,
  input: { readonly email: string; readonly code: string },
): Promise<SandboxSignupVerified> {
  refuseUnlessSandbox(deps.name, "POST /sandbox/signup/verify");
  const r = orRefuse(
    await deps.runtime.ask(sandboxSignupActor, SANDBOX_SIGNUP_TENANT, input.email, {
      kind: "verify",
      code: input.code,
    }, { requestId: deps.requestId }),
  );
  if (r.outcome === "code_refused") {
    refuse(
      "signup_code_invalid",
      r.tries_left > 0
        ? `the code is wrong: ${r.tries_left} tries left`
        : "the code is wrong and no tries are left: POST /sandbox/signup again",
      { tries_left: r.tries_left },
    );
  }
  if (r.outcome !== "verified") throw new Error(`sandbox sign-up: unexpected ${r.outcome}`);
  const existing = await deps.runtime.read(businessActor, r.business_id, r.business_id, {
    kind: "get",
  });
  if (!existing.ok) {
    const made = await createBusiness(deps, {
      name: r.company,
      plan: SIGNUP_PLAN,
      currency: SIGNUP_CURRENCY,
      country: SIGNUP_COUNTRY,
      owner_email: input.email,
      owner_name: `${r.first_names} ${r.surname}`,
    }, r.business_id);
    return { business_id: made.id, api_key: made.api_key, webhook_secret: made.webhook_secret };
  }
  // spec: business 4.4: "signing up again with the same email rotates the key".
  const key = await rotateApiKeyOf(deps, r.business_id, "sandbox_signup");
  const secret = await rotateWebhookSecretAfterKey(deps, r.business_id, "sandbox_signup");
  // spec: business 8: wallets below 10,000 are topped up when credentials are created again.
  await topUpSandboxWallets(deps, r.business_id);
  return {
    business_id: r.business_id,
    api_key: key.api_key,
    webhook_secret: secret.webhook_secret,
  };
}
