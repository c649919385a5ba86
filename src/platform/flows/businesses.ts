/**
 * Businesses as the operator makes and sets them up (CONTRACT "Operator API"): a new business with
 * its owner, integration key and webhook secret, and the operator's switches and limits.
 */
import {
  asBusiness,
  type Business,
  businessActor,
  type Plan,
  type Settings,
} from "../../../actors/platform/business/mod.ts";
import { issueCredential } from "../../domain/credentials.ts";
import { EMAIL_TAKEN, emailTakenMessage } from "../../domain/emails.ts";
import {
  hashPassword,
  newSecret,
  seal,
  sealOwner,
  temporaryPassword,
} from "../../domain/secrets.ts";
import { apiKeyPrefix, type Deps } from "../../environment.ts";
import { invalidFields, orRefuse, refuse, Refused } from "../../runtime/actor.ts";
import { formatMinor, toMinor } from "../../domain/money.ts";
import { newId } from "../../runtime/ids.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { openSandboxWallets } from "./wallet.ts";

export interface NewBusiness {
  readonly name: string;
  readonly plan: Plan;
  readonly currency: string;
  readonly country: string;
  readonly owner_email: string;
  /** The owner's name; default: the e-mail. */
  readonly owner_name?: string;
  /** A live account's sandbox twin: its owner's e-mail is not its own alone (Business API 4.4). */
  readonly sandbox_twin?: boolean;
}

/** A new business's credentials, shown this once (the key and password are kept hashed). */
export interface BusinessCreated {
  readonly id: string;
  readonly api_key: string;
  readonly webhook_secret: string;
  readonly owner: { readonly email: string; readonly password: string };
}

/**
 * Creates a business, its owner (signing in with a temporary password), its integration key
 * (`sk_live_` or `sk_sandbox_`, Business API 5.2) and its webhook secret; on the sandbox its
 * wallets open with test money (Business API 8).
 */
export async function createBusiness(
  deps: Pick<Deps, "name" | "runtime" | "clock" | "dataKey" | "requestId" | "passwordIterations">,
  input: NewBusiness,
  // A caller that must know the id before the business exists (a sandbox sign-up) names it.
  id: string = newId("biz"),
): Promise<BusinessCreated> {
  if (!input.sandbox_twin && await deps.runtime.lookup("staff_email", input.owner_email)) {
    refuse(EMAIL_TAKEN, emailTakenMessage("portal user", input.owner_email));
  }
  const now = deps.clock.now();
  const apiKey = await issueCredential(apiKeyPrefix(deps.name), now);
  const webhookSecret = newSecret("whsec_");
  const password = temporaryPassword();
  orRefuse(
    await deps.runtime.ask(businessActor, id, id, {
      kind: "create",
      id,
      name: input.name,
      plan: input.plan,
      currency: input.currency,
      country: input.country,
      owner: {
        id: newId("usr"),
        email: input.owner_email,
        name: input.owner_name ?? input.owner_email,
        role: "owner",
        password_hash: await hashPassword(password, deps.passwordIterations),
      },
      api_key: apiKey.record,
      webhook_secret: {
        ...(await seal(deps.dataKey, webhookSecret, sealOwner("business_webhook", id, id))),
        key_id: newId("whk"),
        created_at: now,
      },
      ...(input.sandbox_twin ? { sandbox_twin: true as const } : {}),
    }, { requestId: deps.requestId }),
  );
  if (deps.name === "sandbox") await openSandboxWallets(deps.runtime, id);
  return {
    id,
    api_key: apiKey.secret,
    webhook_secret: webhookSecret,
    owner: { email: input.owner_email, password },
  };
}

/**
 * The operator switches capabilities, stores the business key's scopes and sets limits; the
 * audit trail shows the changes as sent (settings_changed).
 */
export async function changeSettings(
  deps: Pick<Deps, "runtime" | "requestId">,
  businessId: string,
  input: Partial<Omit<Settings, "credit_limit">> & {
    readonly credit_limit?: number | string | null;
  },
): Promise<Business> {
  const { credit_limit, ...rest } = input;
  const changes: Partial<Settings> = credit_limit === undefined ? rest : {
    ...rest,
    credit_limit: credit_limit === null
      ? null
      : await creditLimitText(deps.runtime, businessId, credit_limit),
  };
  return asBusiness(orRefuse(
    await deps.runtime.ask(businessActor, businessId, businessId, {
      kind: "change_settings",
      changes,
      by: "operator",
    }, { requestId: deps.requestId }),
  ));
}

/** A credit limit as exact decimal text in the business's currency, or refused naming it. */
async function creditLimitText(
  runtime: ActorRuntime,
  businessId: string,
  value: number | string,
): Promise<string> {
  const { currency } = await businessOf(runtime, businessId);
  const parsed = toMinor(value, currency);
  if (!parsed.ok) {
    throw new Refused(invalidFields([{ path: "credit_limit", message: parsed.message }]));
  }
  return formatMinor(parsed.minor, currency);
}

/** The business as it stands; refused as not found when there is none. */
export async function businessOf(runtime: ActorRuntime, id: string): Promise<Business> {
  return asBusiness(orRefuse(await runtime.read(businessActor, id, id, { kind: "get" })));
}
