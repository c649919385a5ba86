/**
 * Messages the service sends to people (Business API 1.3, 5.6): e-mail today; push, SMS, WhatsApp
 * and calls when a sender for them is added. Every message names its channel and carries what
 * its sender's gate decided, so a refusal is kept with the message, whichever the channel.
 */

export const MESSAGE_CHANNELS = ["email", "push", "sms", "whatsapp", "call"] as const;
export type MessageChannel = typeof MESSAGE_CHANNELS[number];

/**
 * What the gate decided: `queued` for the channel's sender (the service has no mail transport of
 * its own: a sender reads the outbox), or `refused` with why (the sandbox reaches no phone or
 * inbox: Business API 1.3). A sender sends only queued messages.
 */
export type MessageDisposition =
  | { readonly status: "queued" }
  | { readonly status: "refused"; readonly reason: string };
