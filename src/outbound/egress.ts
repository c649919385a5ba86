/**
 * What may leave an environment, decided in one place from the environment's config (Business API
 * 1.3; ARCHITECTURE "Environments": what config says includes "whether outbound traffic is
 * allowed"). Live sends what it has to send. The sandbox is deny-by-default: only webhooks, whose
 * targets are always the addresses an integrator registered (a business's, a client's or a
 * courier's webhook or billing endpoint, looked up at each attempt); messages to people (e-mail,
 * push, SMS, WhatsApp, calls) and payment gateways (none is built in) are refused at the sender and
 * recorded.
 */
import type { MessageChannel, MessageDisposition } from "../domain/messages.ts";
import type { SendFn } from "./pinned_post.ts";

/** What an outbound call is for. */
export type EgressKind = "webhook" | MessageChannel | "payment_gateway";

export interface EgressPolicy {
  /** The kinds allowed out; everything else is refused with `reason`. */
  readonly allowed: ReadonlySet<EgressKind>;
  readonly reason: string;
}

const LIVE: EgressPolicy = {
  allowed: new Set<EgressKind>([
    "webhook",
    "email",
    "push",
    "sms",
    "whatsapp",
    "call",
    "payment_gateway",
  ]),
  reason: "",
};

const SANDBOX: EgressPolicy = {
  // spec: business 1.3: "outbound traffic is deny-by-default" apart from registered webhooks.
  allowed: new Set<EgressKind>(["webhook"]),
  reason: "the sandbox reaches no real phone, inbox or payment (Business API 1.3)",
};

/** The environment's policy: the one decision of what may leave it. */
export function egressPolicyOf(environment: "live" | "sandbox"): EgressPolicy {
  return environment === "sandbox" ? SANDBOX : LIVE;
}

/** Why `kind` may not leave, or null when it may. */
export function egressRefusal(policy: EgressPolicy, kind: EgressKind): string | null {
  return policy.allowed.has(kind) ? null : `${kind} refused: ${policy.reason}`;
}

/** spec: business 1.3: a message's fate at its sender's gate, kept with the message. */
export function messageDisposition(
  policy: EgressPolicy,
  channel: MessageChannel,
): MessageDisposition {
  const reason = egressRefusal(policy, channel);
  return reason === null ? { status: "queued" } : { status: "refused", reason };
}

/** An error for a call the policy refuses; the caller records it as the attempt's failure. */
export class EgressRefused extends Error {
  override readonly name = "EgressRefused";
}

/** `send`, for calls of `kind`, behind the policy: a refused kind never opens a connection. */
export function egressSend(policy: EgressPolicy, kind: EgressKind, send: SendFn): SendFn {
  const reason = egressRefusal(policy, kind);
  if (reason === null) return send;
  return () => Promise.reject(new EgressRefused(reason));
}
