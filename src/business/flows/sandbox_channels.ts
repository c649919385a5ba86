/**
 * Partner sales channels in the sandbox (Business API 5.9, 6 last line): a storefront channel's
 * key is granted with the twin's credentials; `POST /channel/{source}/events` is authenticated by
 * a JWT the channel signs with it (audience `service-sandbox`, `exp` on the injected clock), and
 * an order event books a trip through the booking flow with the order's external_reference, so
 * a repeated event answers the first trip.
 */
import { errors as joseErrors, jwtVerify } from "jose";
import {
  type StorefrontChannel,
  storefrontChannelActor,
} from "../../../actors/business/sandbox_channels.ts";
import { PLATFORM_TENANT } from "../../../actors/platform/platform_settings.ts";
import { base64url, seal, sealOwner, unseal } from "../../domain/secrets.ts";
import type { Deps } from "../../environment.ts";
import type { CompleteDeps } from "./complete_booking.ts";
import { foundOrNull, invalidFields, orRefuse, refuse, Refused } from "../../runtime/actor.ts";
import { newId } from "../../runtime/ids.ts";
import {
  CHANNEL_ALGORITHM,
  CHANNEL_AUDIENCE,
  refuseUnlessSandbox,
  storefrontSource,
} from "../rules/sandbox.ts";
import { type Booked, type BookingRequest, bookTrip } from "./book.ts";

/** Bytes of a channel's signing key (256 bits, as HS256 asks). */
const CHANNEL_KEY_BYTES = 32;
const ENDPOINT = "POST /channel/{source}/events";

/** A channel's new key, sealed in its actor; the key itself is answered this once. */
export async function grantStorefrontChannel(
  deps: Pick<Deps, "runtime" | "dataKey" | "requestId">,
  businessId: string,
): Promise<{ readonly source: string; readonly signing_key: string }> {
  const source = storefrontSource(businessId);
  const key = "chk_" + base64url(crypto.getRandomValues(new Uint8Array(CHANNEL_KEY_BYTES)));
  const sealed = await seal(deps.dataKey, key, channelSealOwner(source));
  orRefuse(
    await deps.runtime.ask(storefrontChannelActor, PLATFORM_TENANT, source, {
      kind: "grant",
      source,
      business_id: businessId,
      signing_key: sealed,
      key_id: newId("chk"),
    }, { requestId: deps.requestId }),
  );
  return { source, signing_key: key };
}

function channelSealOwner(source: string): string {
  return sealOwner("storefront_channel", PLATFORM_TENANT, source);
}

/**
 * The business whose channel `source` signed `token`: refused 401 naming what is wrong (no
 * token, unknown channel, bad signature, expired, another audience, another issuer or subject).
 * On live, 404: the channel endpoint is on the sandbox base.
 */
export async function channelBusiness(
  deps: Pick<Deps, "name" | "runtime" | "dataKey" | "clock">,
  source: string,
  token: string | null,
): Promise<string> {
  refuseUnlessSandbox(deps.name, ENDPOINT);
  if (!token) invalid("Authorization: Bearer <channel token> is required");
  // A refused read (a full mailbox) is thrown (503): a valid token is never told it is invalid.
  const channel = foundOrNull(
    await deps.runtime.read(storefrontChannelActor, PLATFORM_TENANT, source, { kind: "get" }),
  ) as StorefrontChannel | null;
  if (!channel) invalid(`no channel is named ${source}`);
  const key = await unseal(deps.dataKey, channel.signing_key, channelSealOwner(source));
  try {
    await jwtVerify(token, new TextEncoder().encode(key), {
      algorithms: [CHANNEL_ALGORITHM],
      audience: CHANNEL_AUDIENCE,
      issuer: source,
      subject: channel.business_id,
      requiredClaims: ["exp"],
      currentDate: new Date(deps.clock.now()),
    });
  } catch (err) {
    refuseToken(err);
  }
  return channel.business_id;
}

function invalid(message: string): never {
  refuse("channel_token_invalid", message);
}

/** The token's fault as a stable code (jose's errors name the claim that failed). */
function refuseToken(err: unknown): never {
  if (err instanceof joseErrors.JWTExpired) {
    refuse("channel_token_expired", `the channel token expired: exp ${err.payload.exp}`);
  }
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    if (err.claim === "aud") {
      refuse("channel_token_wrong_audience", `the channel token's aud must be ${CHANNEL_AUDIENCE}`);
    }
    invalid(`the channel token's ${err.claim} claim is wrong: ${err.reason}`);
  }
  if (err instanceof joseErrors.JOSEError) {
    invalid(`the channel token does not verify with the channel's key: ${err.code}`);
  }
  throw err;
}

/** spec: business 6: the order events a channel may send. */
export const CHANNEL_EVENT_TYPES = ["order.created"] as const;

/**
 * An order event from a channel: books its trip for the channel's business, by the order's
 * external_reference (a repeated event answers the first trip, replayed).
 */
export function bookChannelOrder(
  deps:
    & Pick<Deps, "runtime" | "clock" | "name" | "requestId" | "referenceKey">
    & Pick<CompleteDeps, "numbers">,
  businessId: string,
  input: {
    readonly source: string;
    readonly type: string;
    /** The order as a booking, null when the event carries none. */
    readonly request: BookingRequest | null;
    readonly order: unknown;
  },
): Promise<Booked> {
  if (!(CHANNEL_EVENT_TYPES as readonly string[]).includes(input.type)) {
    refuse(
      "unknown_event_type",
      `unknown event type: ${input.type}; known: ${CHANNEL_EVENT_TYPES.join(", ")}`,
    );
  }
  if (!input.request) {
    throw new Refused(invalidFields([{ path: "order", message: `required by ${input.type}` }]));
  }
  return bookTrip(deps, businessId, {
    request: input.request,
    body: input.order,
    idempotencyKey: null,
    by: `channel:${input.source}`,
  });
}
