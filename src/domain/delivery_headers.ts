/**
 * The headers of one webhook delivery, signed (courier 6.1 and 6.2, business 6, shopping 6): a
 * billing event's V1 and V3, a client, business or shopping webhook's V1 and V2, a shopping
 * event's V2 only, each with the previous secret's signature during a rotation's grace period.
 */
import { API_VERSION, type RawBody, signV1, signV2, signV3, timestampText } from "./signatures.ts";

/** What one delivery attempt of a courier billing event needs (courier 6.1). */
export interface BillingDelivery {
  readonly secret: string;
  readonly keyId: string;
  readonly eventId: string;
  readonly attemptId: string;
  readonly deliveryTimestamp: number;
  readonly rawBody: RawBody;
  /** The rotated-out secret during its grace period: it signs a second V3 header. */
  readonly previous?: PreviousKey | null;
}

/** A secret replaced by a rotation and still honoured until its grace period ends. */
export interface PreviousKey {
  readonly keyId: string;
  readonly secret: string;
}

export type BillingDeliveryHeaders = {
  readonly "Content-Type": "application/json";
  readonly "X-Service-Event-Id": string;
  readonly "Idempotency-Key": string;
  readonly "X-Service-Signature": string;
  readonly "X-Service-Signature-V3": string;
  readonly "X-Service-Delivery-Timestamp": string;
  readonly "X-Service-Attempt-Id": string;
  readonly "X-Service-Key-Id": string;
  readonly "X-Service-Api-Version": typeof API_VERSION;
  /** During a rotation's grace period: the same V3 signature under the previous key. */
  readonly "X-Service-Signature-V3-Previous"?: string;
  readonly "X-Service-Previous-Key-Id"?: string;
};

/** Every header of a billing event delivery: V1 and V3 signatures, ids, key id, api version. */
export async function v3Headers(delivery: BillingDelivery): Promise<BillingDeliveryHeaders> {
  const { secret, rawBody, eventId, attemptId, deliveryTimestamp, previous } = delivery;
  const parts = { apiVersion: API_VERSION, deliveryTimestamp, eventId, attemptId, rawBody };
  return {
    "Content-Type": "application/json",
    "X-Service-Event-Id": eventId,
    "Idempotency-Key": eventId,
    "X-Service-Signature": await signV1(secret, rawBody),
    "X-Service-Signature-V3": await signV3(secret, parts),
    "X-Service-Delivery-Timestamp": timestampText(deliveryTimestamp),
    "X-Service-Attempt-Id": attemptId,
    "X-Service-Key-Id": delivery.keyId,
    "X-Service-Api-Version": API_VERSION,
    ...(previous
      ? {
        "X-Service-Signature-V3-Previous": await signV3(previous.secret, parts),
        "X-Service-Previous-Key-Id": previous.keyId,
      }
      : {}),
  };
}

/** What one delivery of a client, business or shopping webhook needs (courier 6.2, business 6). */
export interface WebhookDelivery {
  readonly secret: string;
  /** Event name, e.g. `shipment.delivered`. */
  readonly event: string;
  /** The event id: identical on every retry (shopping 6). */
  readonly deliveryId: string;
  readonly timestamp: number;
  readonly rawBody: RawBody;
  /** The rotated-out secret during its grace period: it signs a second V2 header. */
  readonly previous?: PreviousKey | null;
}

export type WebhookDeliveryHeaders = {
  readonly "Content-Type": "application/json";
  readonly "X-Service-Signature": string;
  readonly "X-Service-Signature-V2": string;
  readonly "X-Service-Timestamp": string;
  readonly "X-Service-Event": string;
  readonly "X-Service-Delivery": string;
  readonly "X-Service-Api-Version": typeof API_VERSION;
  /** During a rotation's grace period: the V2 signature under the previous secret. */
  readonly "X-Service-Signature-V2-Previous"?: string;
};

/** Every header of a V2-family webhook delivery: V1 and V2 signatures, timestamp, event, id, version. */
export async function v2Headers(delivery: WebhookDelivery): Promise<WebhookDeliveryHeaders> {
  const { secret, rawBody, timestamp } = delivery;
  return {
    "Content-Type": "application/json",
    "X-Service-Signature": await signV1(secret, rawBody),
    "X-Service-Signature-V2": await signV2(secret, rawBody, timestamp),
    "X-Service-Timestamp": timestampText(timestamp),
    "X-Service-Event": delivery.event,
    "X-Service-Delivery": delivery.deliveryId,
    // spec: courier 9.1, every delivery carries the version header, client webhooks too.
    "X-Service-Api-Version": API_VERSION,
    ...(delivery.previous
      ? {
        "X-Service-Signature-V2-Previous": await signV2(
          delivery.previous.secret,
          rawBody,
          timestamp,
        ),
      }
      : {}),
  };
}

/** The headers of shopping 6, exactly: V2 only, no other signature and no grace-period header. */
export type ShoppingDeliveryHeaders = {
  readonly "Content-Type": "application/json";
  readonly "X-Service-Timestamp": string;
  readonly "X-Service-Delivery": string;
  readonly "X-Service-Event": string;
  readonly "X-Service-Signature-V2": string;
};

/**
 * spec: shopping 6, 9: a shopping event is signed with V2 only, under the secret held at the
 * attempt (a rotation is in force at once, so no previous secret signs).
 */
export async function shoppingHeaders(
  delivery: Omit<WebhookDelivery, "previous">,
): Promise<ShoppingDeliveryHeaders> {
  const { secret, rawBody, timestamp } = delivery;
  return {
    "Content-Type": "application/json",
    "X-Service-Timestamp": timestampText(timestamp),
    "X-Service-Delivery": delivery.deliveryId,
    "X-Service-Event": delivery.event,
    "X-Service-Signature-V2": await signV2(secret, rawBody, timestamp),
  };
}
