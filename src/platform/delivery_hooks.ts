/**
 * What the features tell the one delivery engine (reactors/deliver.ts): where their recipients'
 * events go and what a failed, waiting or late-delivered event raises. The engine is the
 * platform's; the recipients and their alerts are the documents' (courier 6.1, 6.2, 6.3).
 */
import type { Recipient } from "../../actors/platform/outbound_event/mod.ts";
import type { OutboundDeliveryOptions } from "./reactors/deliver.ts";
import type { AlertCallback } from "./reactors/outbound_alerts.ts";
import type { AttemptBody, DeliveryTarget, LocalReceivers } from "./reactors/outbound_attempt.ts";

/** Where a recipient's events go now: null, none is set; undefined, not this feature's. */
export type TargetResolver = (
  tenant: string,
  recipient: Recipient,
) => Promise<DeliveryTarget | null | undefined>;

export interface DeliveryHook {
  readonly targets?: TargetResolver;
  /** Target URLs that name a receiver built into the service (the sandbox inbox). */
  readonly receivers?: LocalReceivers;
  /** The body of an attempt of this feature's events, renewed at each attempt (shopping 6). */
  readonly bodies?: AttemptBody;
  readonly onFailed?: AlertCallback;
  readonly onEndpointMissing?: AlertCallback;
  readonly onDeliveredAfterWait?: AlertCallback;
  readonly onFailedAfterWait?: AlertCallback;
}

type Callbacks = Pick<
  OutboundDeliveryOptions,
  "targets" | "receivers" | "bodyOf" | AlertName
>;

type AlertName = "onFailed" | "onEndpointMissing" | "onDeliveredAfterWait" | "onFailedAfterWait";

/** Hooks added by features as they start, read by the engine at each attempt. */
export class DeliveryHooks {
  readonly #hooks: DeliveryHook[] = [];

  add(hook: DeliveryHook): void {
    this.#hooks.push(hook);
  }

  /** The engine's options, each asking the hooks added by then. */
  callbacks(): Callbacks {
    return {
      targets: async (tenant, recipient) => {
        for (const h of this.#hooks) {
          const target = await h.targets?.(tenant, recipient);
          if (target !== undefined) return target;
        }
        return null;
      },
      receivers: (tenant, url) => {
        for (const h of this.#hooks) {
          const receiver = h.receivers?.(tenant, url);
          if (receiver) return receiver;
        }
        return undefined;
      },
      bodyOf: async (tenant, event) => {
        for (const h of this.#hooks) {
          const body = await h.bodies?.(tenant, event);
          if (body !== undefined) return body;
        }
        return undefined;
      },
      onFailed: (tenant, event) => this.#each("onFailed", tenant, event),
      onEndpointMissing: (tenant, event) => this.#each("onEndpointMissing", tenant, event),
      onDeliveredAfterWait: (tenant, event) => this.#each("onDeliveredAfterWait", tenant, event),
      onFailedAfterWait: (tenant, event) => this.#each("onFailedAfterWait", tenant, event),
    };
  }

  async #each(
    name: AlertName,
    ...args: Parameters<AlertCallback>
  ): Promise<void> {
    for (const h of this.#hooks) await h[name]?.(...args);
  }
}
