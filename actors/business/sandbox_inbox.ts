/**
 * One delivery the sandbox inbox received (Business API 4.4, 6): the exact raw body and headers a
 * business webhook was sent with, kept so GET /business/sandbox/inbox shows them and a signature
 * verifies over them. An actor per delivery (tenant: the business; id: the attempt's), so bodies
 * of several KB never gather in one actor; the inbox's list is the `sandbox_inbox` read table,
 * projected from these snapshots and trimmed there to the newest per business. Deliveries are now
 * kept as rows of that list alone (src/business/queries/sandbox_inbox.ts keepInboxDelivery), as
 * the actor store cannot remove a record: this type stays so those stored before still load.
 */
import { accept, type ActorDefinition, unreachable } from "../../src/runtime/actor.ts";

export interface InboxDelivery {
  readonly id: string;
  readonly event: string;
  readonly event_id: string;
  readonly received_at: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The exact raw bytes sent, as UTF-8 text (they are JSON). */
  readonly body: string;
}

export type InboxDeliveryState = InboxDelivery | null;

export type InboxDeliveryCommand = {
  readonly kind: "receive";
  /** `id`: the actor's own id (the attempt's), so the snapshot names it. */
  readonly delivery: Omit<InboxDelivery, "received_at">;
};

export type InboxDeliveryEvent = { readonly kind: "received"; readonly delivery: InboxDelivery };

export const sandboxInboxActor: ActorDefinition<
  InboxDeliveryState,
  InboxDeliveryCommand,
  InboxDeliveryEvent,
  InboxDelivery
> = {
  type: "sandbox_inbox_delivery",
  noun: "inbox delivery",
  version: 1,
  initial: null,
  decide(state, command, ctx) {
    switch (command.kind) {
      case "receive": {
        // A delivery is its attempt: the same attempt handed over twice is kept once.
        if (state !== null) return accept([], () => state);
        const delivery: InboxDelivery = { ...command.delivery, received_at: ctx.now };
        return accept([{ kind: "received", delivery }], (next) => next!);
      }
      case "timer":
        return accept([]);
      default:
        return unreachable(command);
    }
  },
  evolve: (_s, e) => e.delivery,
  // The snapshot is the delivery: the inbox's read table is written from it.
  project: (s) => s ?? undefined,
  // The state is the delivery and never changes: the log would only repeat its body.
  logEvents: false,
  publishEvents: false,
};
