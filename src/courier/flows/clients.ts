/**
 * Courier 2.5, 4.2 (client rows): the courier creates its clients and sets their settlement. A
 * client is priced on its rate card and billed in its billing currency, so the two must agree.
 */
import {
  asClient,
  type ClientSettings,
  type CourierClient,
  courierClientActor,
} from "../../../actors/courier/courier_client.ts";
import { asRateCard, rateCardActor } from "../../../actors/courier/rate_card.ts";
import { issueCredential } from "../../domain/credentials.ts";
import { EMAIL_TAKEN, emailTakenMessage } from "../../domain/emails.ts";
import { toMinor } from "../../domain/money.ts";
import { hashPassword, temporaryPassword } from "../../domain/secrets.ts";
import type { Deps } from "../../environment.ts";
import { orRefuse, refuse, Refused } from "../../runtime/actor.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { newId } from "../../runtime/ids.ts";
import { refuseFields } from "./booking/refusals.ts";

/** Attempts of a change whose client's currency or rate card changed between its read and write. */
const SETTINGS_ATTEMPTS = 3;

/** The courier's office acting, and who in it acts (audit). */
export interface Office {
  readonly courierId: string;
  readonly by: string;
}

/** Settlement settings as the API takes them: the credit limit a decimal in the currency. */
export type SettingsInput =
  & { readonly [K in Exclude<keyof ClientSettings, "credit_limit_minor">]?: ClientSettings[K] }
  & { readonly credit_limit?: number | string };

/** A new client (POST /business/courier/clients), its fields present only when sent. */
export interface NewClientInput extends SettingsInput {
  readonly name: string;
  readonly code: string;
  readonly email: string;
  readonly settlement_mode: ClientSettings["settlement_mode"];
  readonly billing_currency: string;
}

/** A new client's credentials, shown once: its API key and its first user's password. */
export interface ClientCreated {
  readonly id: string;
  readonly api_key: string;
  readonly user: { readonly email: string; readonly password: string };
}

/**
 * Creates a client of the courier with its API key (`keyPrefix`: the environment's client key
 * prefix) and a first user, a client administrator with a temporary password.
 */
export async function createClient(
  deps: Pick<Deps, "runtime" | "clock" | "passwordIterations">,
  office: Office,
  input: NewClientInput,
  keyPrefix: string,
): Promise<ClientCreated> {
  const { runtime } = deps;
  const courier = office.courierId;
  if (await runtime.lookup("client_code", `${courier}:${input.code}`)) {
    refuse("already_exists", `a client already has this code: ${input.code}`);
  }
  if (await runtime.lookup("client_email", input.email)) {
    refuse(EMAIL_TAKEN, emailTakenMessage("client user", input.email));
  }
  const settings = settingsFrom(input, input.billing_currency);
  await checkRateCard(runtime, courier, input.rate_card_id, {
    billing_currency: input.billing_currency,
    rate_card_id: input.rate_card_id ?? null,
  });
  const id = newId("cli");
  const key = await issueCredential(keyPrefix, deps.clock.now());
  const password = temporaryPassword();
  orRefuse(
    await runtime.ask(courierClientActor, courier, id, {
      kind: "create",
      client: {
        id,
        business_id: courier,
        name: input.name,
        code: input.code,
        email: input.email,
        settings: {
          settlement_mode: input.settlement_mode,
          credit_limit_minor: 0,
          payment_days: null,
          billing_currency: input.billing_currency,
          external_system: null,
          unique_external_reference: false,
          rate_card_id: null,
          ...settings,
        },
        api_key: key.record,
        users: [{
          id: newId("cus"),
          email: input.email,
          name: input.name,
          role: "client_admin",
          password_hash: await hashPassword(password, deps.passwordIterations),
          must_change_password: true,
          session_epoch: 0,
        }],
      },
      by: office.by,
    }),
  );
  return { id, api_key: key.secret, user: { email: input.email, password } };
}

/**
 * spec: courier 4.6: rotates the client's API key, shown once; the previous one stops at once.
 * The key rotated is the one whose hash is `replaces` (the key the request found): a rotation
 * that finds another key by then (one sent at the same time won) is refused key_already_rotated.
 */
export async function rotateClientKey(
  deps: Pick<Deps, "runtime" | "clock" | "requestId">,
  caller: { readonly courierId: string; readonly clientId: string; readonly by: string },
  keyPrefix: string,
  replaces: string,
): Promise<{ api_key: string }> {
  const key = await issueCredential(keyPrefix, deps.clock.now());
  orRefuse(
    await deps.runtime.ask(courierClientActor, caller.courierId, caller.clientId, {
      kind: "rotate_api_key",
      key: key.record,
      replaces,
      by: caller.by,
    }, { requestId: deps.requestId }),
  );
  return { api_key: key.secret };
}

/**
 * Changes a client's settlement settings (courier 2.5). The checks hold for the settings they
 * read; the client refuses the change if those moved since, and it is checked again.
 */
export async function changeClientSettings(
  deps: Pick<Deps, "runtime">,
  office: Office,
  clientId: string,
  input: SettingsInput,
): Promise<CourierClient> {
  const { runtime } = deps;
  const courier = office.courierId;
  for (let attempt = 1;; attempt++) {
    const current = asClient(
      orRefuse(await runtime.read(courierClientActor, courier, clientId, { kind: "get" })),
    );
    const before = current.settings;
    // A credit limit given with a new billing currency is an amount in that currency.
    const changes = settingsFrom(input, input.billing_currency ?? before.billing_currency);
    if (input.billing_currency !== undefined || input.rate_card_id !== undefined) {
      await checkRateCard(runtime, courier, input.rate_card_id, { ...before, ...changes });
    }
    const r = await runtime.ask(courierClientActor, courier, clientId, {
      kind: "change_settings",
      changes,
      // The checks above hold for these; the client refuses the change if they moved since.
      basis: { billing_currency: before.billing_currency, rate_card_id: before.rate_card_id },
      by: office.by,
    });
    if (r.ok) return asClient(r.reply);
    if (r.code !== "settings_changed" || attempt >= SETTINGS_ATTEMPTS) throw new Refused(r);
  }
}

/** Turns the API's decimal credit limit into minor units, or refuses the bad field. */
function settingsFrom(input: SettingsInput, currency: string): Partial<ClientSettings> {
  const { credit_limit, ...rest } = input;
  if (credit_limit === undefined) return rest;
  const minor = toMinor(credit_limit, currency);
  if (!minor.ok) refuseFields([{ path: "credit_limit", message: minor.message }]);
  return { ...rest, credit_limit_minor: minor.minor };
}

/**
 * The currency of the courier's rate card `id` (fixed by its version 1), or null when the courier
 * has no such card. The read is scoped to the courier, so another courier's card is missing too.
 */
async function rateCardCurrency(
  runtime: ActorRuntime,
  courier: string,
  id: string,
): Promise<string | null> {
  const r = await runtime.read(rateCardActor, courier, id, { kind: "get" });
  if (r.ok) return asRateCard(r.reply).currency;
  if (r.code === "not_found") return null;
  throw new Refused(r);
}

/**
 * spec: courier 2.5, 4.2: a client is priced on its rate card and billed in its billing currency;
 * on a card in another currency every option shown would be refused at booking. `named` is the
 * card the request names (it must be one of the courier's); `result` the settings it leads to.
 */
async function checkRateCard(
  runtime: ActorRuntime,
  courier: string,
  named: string | null | undefined,
  result: Pick<ClientSettings, "billing_currency" | "rate_card_id">,
): Promise<void> {
  if (result.rate_card_id === null) return;
  const currency = await rateCardCurrency(runtime, courier, result.rate_card_id);
  if (currency === null) {
    // A card kept from before this check is not the request's doing: only a named one is refused.
    if (named === undefined || named === null) return;
    refuseFields([{ path: "rate_card_id", message: `no such rate card: ${named}` }]);
  }
  if (currency !== result.billing_currency) {
    refuse(
      "currency_mismatch",
      `rate card ${result.rate_card_id} prices in ${currency}; the client bills in ${result.billing_currency}`,
      { rate_card_currency: currency, billing_currency: result.billing_currency },
    );
  }
}
