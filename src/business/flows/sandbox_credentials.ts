/**
 * POST /business/sandbox/credentials (Business API 4.4, 8): a live account's sandbox twin. Live
 * asks the sandbox through its one port (Deps.sandboxTwins); the sandbox makes the twin the first
 * time (same name, plan, currency, country and owner e-mail; its id is the live id, so the twin is
 * found with no index and a retry after a crash between the steps finds it), and afterwards
 * rotates its key, webhook secret and channel key; its wallets are topped up each time.
 */
import { asBusiness, businessActor, type Settings } from "../../../actors/platform/business/mod.ts";
import { canonicalJson } from "../../domain/secrets.ts";
import type { Deps, SandboxTwins, TwinAccount, TwinCredentials } from "../../environment.ts";
import { foundOrNull, orRefuse, refuse, Refused } from "../../runtime/actor.ts";
import { businessOf, createBusiness } from "../../platform/flows/businesses.ts";
import { rotateApiKeyOf, rotateWebhookSecretAfterKey } from "../../platform/flows/keys.ts";
import { CHANNEL_ALGORITHM, CHANNEL_AUDIENCE, refuseUnlessLive } from "../rules/sandbox.ts";
import { grantStorefrontChannel } from "./sandbox_channels.ts";
import { topUpSandboxWallets } from "./sandbox_wallet.ts";

/** How the twin's changes are named in its audit trail. */
const BY_LIVE = "live_credentials";

type TwinKeys = { created: boolean; api_key: string; webhook_secret: string };
type TwinDeps = Pick<Deps, "name" | "runtime" | "clock" | "dataKey" | "requestId">;

/** On live: the caller's account's twin, made or rotated in the sandbox. */
export async function sandboxCredentials(
  deps: Pick<Deps, "name" | "runtime" | "sandboxTwins">,
  businessId: string,
): Promise<TwinCredentials> {
  refuseUnlessLive(deps.name, "POST /business/sandbox/credentials");
  if (!deps.sandboxTwins) {
    refuse("sandbox_unavailable", "the sandbox is not running on this deployment");
  }
  const live = await businessOf(deps.runtime, businessId);
  const owner = live.staff.find((s) => s.role === "owner");
  // Broken invariant, not a refusal: the owner can be neither removed nor demoted.
  if (!owner) throw new Error(`business without an owner: ${businessId}`);
  return await deps.sandboxTwins.provision({
    id: live.id,
    name: live.profile.name,
    plan: live.plan,
    currency: live.currency,
    country: live.country,
    owner_email: owner.email,
    settings: { ...live.settings },
  });
}

/** The port live reaches the sandbox by: `deps` are the sandbox's, `baseUrl` its `/api` base. */
export function sandboxTwinsOf(
  deps: TwinDeps,
  baseUrl: string,
): SandboxTwins {
  return { provision: (account) => provisionTwin(deps, baseUrl, account) };
}

async function provisionTwin(
  deps: TwinDeps,
  baseUrl: string,
  account: TwinAccount,
): Promise<TwinCredentials> {
  const id = account.id;
  const keys = (await twinExists(deps, id)) ? await rotated(deps, id) : await made(deps, account);
  await mirrorSettings(deps, id, account.settings);
  await topUpSandboxWallets(deps, id);
  const channel = await grantStorefrontChannel(deps, id);
  return {
    base_url: baseUrl,
    api_key: keys.api_key,
    webhook_secret: keys.webhook_secret,
    business_id: id,
    created: keys.created,
    storefront: {
      ...channel,
      algorithm: CHANNEL_ALGORITHM,
      audience: CHANNEL_AUDIENCE,
      issuer: channel.source,
      subject: id,
      events_url: `${baseUrl}/channel/${channel.source}/events`,
    },
  };
}

async function twinExists(deps: Pick<Deps, "runtime">, id: string): Promise<boolean> {
  return foundOrNull(await deps.runtime.read(businessActor, id, id, { kind: "get" })) !== null;
}

async function rotated(deps: TwinDeps, id: string): Promise<TwinKeys> {
  // A twin made before twins were marked still claims its owner's e-mail: marked, it lets it go
  // (spec: business 4.4, 5.2: the sandbox signs no one in; a sign-up of it is not refused).
  orRefuse(
    await deps.runtime.ask(businessActor, id, id, { kind: "mark_sandbox_twin", by: BY_LIVE }, {
      requestId: deps.requestId,
    }),
  );
  const api_key = (await rotateApiKeyOf(deps, id, BY_LIVE)).api_key;
  const secret = await rotateWebhookSecretAfterKey(deps, id, BY_LIVE);
  return { created: false, api_key, webhook_secret: secret.webhook_secret };
}

/**
 * The twin made; or, when a call at the same time made it first (its id then taken), rotated, as
 * a call after it would (spec: business 4.4 "creates or rotates"). The twin holds no claim to
 * its owner's e-mail, so a sandbox account that signed it up first never refuses it.
 */
async function made(deps: TwinDeps, account: TwinAccount): Promise<TwinKeys> {
  const twin = { ...account, sandbox_twin: true };
  try {
    return { created: true, ...(await createBusiness(deps, twin, account.id)) };
  } catch (e) {
    if (!(e instanceof Refused) || !(await twinExists(deps, account.id))) throw e;
    return await rotated(deps, account.id);
  }
}

/**
 * spec: business 1.3, 9.4: the twin runs as the live account does (going live changes only the
 * base address and the key), so the operator's settings of the live account are the twin's: set
 * when it is made and again on each call, as they may have changed on live since.
 */
async function mirrorSettings(
  deps: Pick<Deps, "runtime" | "requestId">,
  id: string,
  settings: TwinAccount["settings"],
): Promise<void> {
  const twin = asBusiness(
    orRefuse(await deps.runtime.read(businessActor, id, id, { kind: "get" })),
  );
  const changes = settings as Partial<Settings>;
  if (canonicalJson({ ...twin.settings, ...changes }) === canonicalJson(twin.settings)) return;
  orRefuse(
    await deps.runtime.ask(businessActor, id, id, {
      kind: "change_settings",
      changes,
      by: BY_LIVE,
    }, { requestId: deps.requestId }),
  );
}
