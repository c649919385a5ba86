/**
 * What the sandbox inbox and readiness routes answer (Business API 4.4, appendix 3): the inbox's
 * deliveries with their exact raw bodies, and which going-live flows the receiver has handled.
 */
import type { InboxDelivery } from "../../../actors/business/sandbox_inbox.ts";
import { type FlowReport, READINESS_FLOWS } from "../../../src/business/rules/sandbox_readiness.ts";
import { BUSINESS_WEBHOOK_EVENTS } from "../../../src/business/rules/webhook_events.ts";
import { iso } from "../../../src/domain/iso.ts";
import { z } from "../../../src/http/route.ts";
import { UtcInstant } from "../../../src/http/schemas.ts";

export const InboxPointedAnswer = z.object({
  webhook_url: z.string().openapi({
    description: "Where the business's webhooks now go: the built-in inbox's marker URL. Set a " +
      "real URL with PATCH /business/profile to point them away again",
    example: "https://inbox.sandbox.invalid/",
  }),
  replaced: z.string().nullable().openapi({
    description: "The webhook URL the inbox replaced; null when none was set or the inbox was " +
      "already set",
  }),
  inbox: z.string().openapi({ example: "/business/sandbox/inbox" }),
}).openapi("SandboxInboxPointed");

export const InboxDeliveryAnswer = z.object({
  id: z.string().openapi({ description: "The inbox delivery's id (one per attempt)" }),
  event: z.string().openapi({ enum: [...BUSINESS_WEBHOOK_EVENTS], example: "trip.created" }),
  event_id: z.string().openapi({ description: "The webhook's id, X-Service-Delivery" }),
  received_at: UtcInstant,
  headers: z.record(z.string(), z.string()).openapi({
    description: "The headers sent: X-Service-Signature, X-Service-Signature-V2, " +
      "X-Service-Timestamp, X-Service-Event, X-Service-Delivery, Content-Type...",
  }),
  body: z.string().openapi({
    description: "The exact raw bytes sent (UTF-8 JSON): verify the V1 and V2 signatures over " +
      "this string before parsing it",
  }),
}).openapi("SandboxInboxDelivery");

export function inboxDeliveryView(d: InboxDelivery): z.infer<typeof InboxDeliveryAnswer> {
  return {
    id: d.id,
    event: d.event,
    event_id: d.event_id,
    received_at: iso(d.received_at),
    headers: { ...d.headers },
    body: d.body,
  };
}

const EvidenceAnswer = z.object({
  event_id: z.string(),
  trip_reference: z.string(),
  delivered_at: UtcInstant,
}).openapi("SandboxReadinessEvidence");

const FlowAnswer = z.object({
  flow: z.enum(READINESS_FLOWS),
  required: z.boolean().openapi({
    description: "id_refusal is required only of a business that books age-restricted trips",
  }),
  done: z.boolean(),
  evidence: EvidenceAnswer.nullable().openapi({
    description: "The earliest webhook of the flow your receiver answered 2xx",
  }),
  missing: z.string().nullable().openapi({ description: "What is still to be handled" }),
}).openapi("SandboxReadinessFlow");

export const ReadinessAnswer = z.object({
  ready: z.boolean().openapi({ description: "Every required flow is done" }),
  flows: z.array(FlowAnswer),
}).openapi("SandboxReadiness");

export function readinessView(
  r: { readonly ready: boolean; readonly flows: readonly FlowReport[] },
): z.infer<typeof ReadinessAnswer> {
  return {
    ready: r.ready,
    flows: r.flows.map((f) => ({
      ...f,
      evidence: f.evidence ? { ...f.evidence, delivered_at: iso(f.evidence.delivered_at) } : null,
    })),
  };
}
