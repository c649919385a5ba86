/**
 * One attempt to deliver an outbound event (courier 3.1, 6.1, 6.2): its target looked up (a fixed
 * one, or the recipient's endpoint now), checked again (a name may have been pointed inward since
 * it was saved), the body signed with the target's secret (and the rotated-out one in its grace
 * period), and sent to the addresses just checked. Never throws: every failure is an outcome.
 */
import type {
  AttemptOutcome,
  OutboundEvent,
  OutboundTarget,
  Recipient,
} from "../../../actors/platform/outbound_event/mod.ts";
import { sealOwner, unseal } from "../../domain/secrets.ts";
import { shoppingHeaders, v2Headers, v3Headers } from "../../domain/delivery_headers.ts";
import type { SendFn } from "../../outbound/pinned_post.ts";
import { checkDeliveryTarget, type Resolve } from "../../outbound/url_guard.ts";
import type { Clock } from "../../runtime/clock.ts";
import { ATTEMPT_ERROR_CHARS_MAX, ATTEMPT_TIMEOUT_MS, clip } from "../rules/delivery_schedule.ts";

/** A target as resolved for one attempt, with the rotated-out key still in its grace period. */
export interface DeliveryTarget extends OutboundTarget {
  readonly previous?: {
    readonly key_id: string;
    readonly sealed_secret: OutboundTarget["sealed_secret"];
  } | null;
}

/** Where an event with a `recipient` goes now; null: no endpoint is configured. */
export type TargetLookup = (tenant: string, recipient: Recipient) => Promise<DeliveryTarget | null>;

/**
 * A receiver built into the service (the sandbox inbox, Business API 4.4): it takes a delivery as
 * an endpoint would, the exact body and headers, with no network between. Resolves once the
 * delivery is kept (the attempt is then delivered); throws when it could not be (failed).
 */
export type LocalReceiver = (delivery: LocalDelivery) => Promise<void>;

export interface LocalDelivery {
  readonly tenant: string;
  readonly attempt_id: string;
  readonly event_id: string;
  readonly event_type: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** The built-in receiver a target URL names, if any; undefined: the URL is a network one. */
export type LocalReceivers = (tenant: string, url: string) => LocalReceiver | undefined;

/**
 * The body one attempt sends and signs, when a feature renews part of it at each attempt (links
 * valid from receipt, shopping 6); undefined: the event's body as made, byte for byte.
 */
export type AttemptBody = (tenant: string, event: SendableEvent) => Promise<string | undefined>;

/** What an attempt is made with. */
export interface AttemptDeps {
  /** The environment's data key, to unseal signing secrets for the moment of signing. */
  readonly dataKey: CryptoKey;
  readonly clock: Clock;
  /** ALLOW_LOOPBACK_WEBHOOKS: http://127.0.0.1 and http://localhost targets (tests, local runs). */
  readonly allowLoopback: boolean;
  /** The ports the operator allows besides 443, read at every attempt (none when absent). */
  readonly allowedPorts?: (() => Promise<readonly number[]>) | undefined;
  readonly send: SendFn;
  /** DNS for the per-attempt target check; defaults to the system resolver. */
  readonly resolve?: Resolve | undefined;
  readonly targets?: TargetLookup | undefined;
  /** Targets that name a built-in receiver: signed as any, handed over instead of sent. */
  readonly receivers?: LocalReceivers | undefined;
  /** The body of each attempt, where a feature renews part of it; else the event's own. */
  readonly bodyOf?: AttemptBody | undefined;
}

/** What an attempt sends of an event: made (an actor's) or about to be (an outbox item's). */
export type SendableEvent = Pick<
  OutboundEvent,
  "event_id" | "stream" | "event_type" | "raw_body" | "target" | "recipient"
>;

/** Makes one attempt of `event`; `known`: its target as already looked up for this attempt. */
export async function sendAttempt(
  deps: AttemptDeps,
  tenant: string,
  event: SendableEvent,
  attemptId: string,
  known?: DeliveryTarget,
): Promise<AttemptOutcome> {
  let target: DeliveryTarget | null;
  try {
    target = event.target ?? known ??
      (deps.targets && event.recipient ? await deps.targets(tenant, event.recipient) : null);
  } catch (e) {
    return failed(null, `target_lookup_failed: ${messageOf(e)}`);
  }
  if (target === null) return { result: "no_endpoint" };
  let sent: SendableEvent;
  try {
    sent = await attemptBodyOf(deps, tenant, event);
  } catch (e) {
    return failed(null, `body_failed: ${messageOf(e)}`);
  }
  const local = deps.receivers?.(tenant, target.url);
  if (local) return await receiveLocally(deps, tenant, sent, target, attemptId, local);
  let allowedPorts: readonly number[];
  try {
    allowedPorts = (await deps.allowedPorts?.()) ?? [];
  } catch (e) {
    return failed(null, `settings_lookup_failed: ${messageOf(e)}`);
  }
  // Checked again at every attempt: a name may have been pointed inward since it was saved, and
  // the operator may have removed the port it uses.
  const verdict = await checkDeliveryTarget(target.url, {
    allowLoopback: deps.allowLoopback,
    allowedPorts,
    resolve: deps.resolve,
  });
  if (!verdict.ok) return failed(null, `url_refused: ${verdict.message}`);
  let headers: Record<string, string>;
  try {
    headers = await signedHeaders(deps, tenant, sent, target, attemptId);
  } catch (e) {
    return failed(null, `signing_failed: ${messageOf(e)}`);
  }
  return await post(deps.send, verdict.url, verdict.addresses ?? [], headers, sent.raw_body);
}

/** The event as this attempt sends it: its body renewed where a feature asks, else as made. */
async function attemptBodyOf(
  deps: AttemptDeps,
  tenant: string,
  event: SendableEvent,
): Promise<SendableEvent> {
  const body = await deps.bodyOf?.(tenant, event);
  return body === undefined ? event : { ...event, raw_body: body };
}

/**
 * The one seam for a built-in receiver: the same signed headers and raw body an endpoint would
 * get, handed over in process (never a loopback request), answered as a 200 once kept.
 */
async function receiveLocally(
  deps: AttemptDeps,
  tenant: string,
  event: SendableEvent,
  target: DeliveryTarget,
  attemptId: string,
  receiver: LocalReceiver,
): Promise<AttemptOutcome> {
  let headers: Record<string, string>;
  try {
    headers = await signedHeaders(deps, tenant, event, target, attemptId);
  } catch (e) {
    return failed(null, `signing_failed: ${messageOf(e)}`);
  }
  // Within the same time-out as a network attempt: a receiver that never answers frees the
  // attempt's slot and is retried on the schedule, as an endpoint would be.
  let timeout: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timeout = setTimeout(() => resolve("timeout"), ATTEMPT_TIMEOUT_MS);
  });
  try {
    const kept = receiver({
      tenant,
      attempt_id: attemptId,
      event_id: event.event_id,
      event_type: event.event_type,
      headers,
      body: event.raw_body,
    });
    if (await Promise.race([kept, timedOut]) === "timeout") return failed(null, "timeout");
  } catch (e) {
    return failed(null, `receiver_failed: ${messageOf(e)}`);
  } finally {
    clearTimeout(timeout);
  }
  return { result: "delivered", http_status: 200, receiver: target.url };
}

/** Sends to the addresses checked, never to a second lookup of the name, within the timeout. */
async function post(
  send: SendFn,
  url: URL,
  addresses: readonly string[],
  headers: Record<string, string>,
  body: string,
): Promise<AttemptOutcome> {
  const abort = new AbortController();
  const timeout = setTimeout(() => abort.abort(), ATTEMPT_TIMEOUT_MS);
  try {
    const response = await send({ url, addresses, headers, body, signal: abort.signal });
    // A 3xx is a failure: a redirect could lead anywhere the target check never saw.
    if (response.status >= 200 && response.status < 300) {
      return { result: "delivered", http_status: response.status };
    }
    return failed(response.status, null);
  } catch (e) {
    return failed(null, abort.signal.aborted ? "timeout" : `fetch_failed: ${messageOf(e)}`);
  } finally {
    clearTimeout(timeout);
  }
}

/**
 * The signature headers: v3 for billing events (courier 6.1), v2 for client webhooks (6.2), V2
 * only for shopping events (shopping 6).
 */
async function signedHeaders(
  deps: AttemptDeps,
  tenant: string,
  event: SendableEvent,
  target: DeliveryTarget,
  attemptId: string,
): Promise<Record<string, string>> {
  const owner = secretOwnerOf(tenant, event);
  const secret = await unseal(deps.dataKey, target.sealed_secret, owner);
  const previous = target.previous
    ? {
      keyId: target.previous.key_id,
      secret: await unseal(deps.dataKey, target.previous.sealed_secret, owner),
    }
    : null;
  const timestamp = Math.floor(deps.clock.now() / 1000);
  if (event.stream === "shopping_webhook") {
    // spec: shopping 6: V2 only, the event_id as X-Service-Delivery on every retry.
    return await shoppingHeaders({
      secret,
      event: event.event_type,
      deliveryId: event.event_id,
      timestamp,
      rawBody: event.raw_body,
    });
  }
  if (event.stream === "billing") {
    return await v3Headers({
      secret,
      keyId: target.key_id,
      eventId: event.event_id,
      attemptId,
      deliveryTimestamp: timestamp,
      rawBody: event.raw_body,
      previous,
    });
  }
  return await v2Headers({
    secret,
    event: event.event_type,
    deliveryId: event.event_id,
    timestamp,
    rawBody: event.raw_body,
    previous,
  });
}

/**
 * Whose secret signs an event, as sealOwner names it: the event's own fixed target, else the
 * record its recipient's target is read from (the business, or the client).
 */
export function secretOwnerOf(
  tenant: string,
  event: Pick<OutboundEvent, "event_id" | "target" | "recipient">,
): string {
  if (event.target) return sealOwner("outbound_target", tenant, event.event_id);
  if (event.recipient?.kind === "client") {
    return sealOwner("client_webhook", tenant, event.recipient.client_id);
  }
  // spec: shopping 2.1: the `shf_` secret, sealed for the business's shopping settings.
  if (event.recipient?.kind === "shopping") return sealOwner("shopping_webhook", tenant, tenant);
  return sealOwner("business_webhook", tenant, tenant);
}

function failed(status: number | null, error: string | null): AttemptOutcome {
  return {
    result: "failed",
    http_status: status,
    error: error === null ? null : clip(error, ATTEMPT_ERROR_CHARS_MAX),
  };
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
