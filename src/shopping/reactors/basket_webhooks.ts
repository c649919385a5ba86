/**
 * The handler of the basket webhook outbox (Business API 6 `shopping.basket_collected`): each item
 * the order actor adds in the commit that collects a basket is handed to flows/basket_webhook.ts,
 * which makes the business webhook event through the one delivery engine. A failure leaves the
 * item in the outbox; the runtime hands it over again and the idempotent steps finish it.
 */
import { OutboxHandling } from "../../runtime/outbox_handling.ts";
import type { Logger } from "../../observe/log.ts";
import { Refused } from "../../runtime/actor.ts";
import type { OutboxItem } from "../../runtime/store.ts";
import { sendBasketWebhook } from "../flows/basket_webhook.ts";
import type { EventDeps } from "../flows/events.ts";
import { BASKET_WEBHOOK_OUTBOX, type BasketWebhookItem } from "../rules/events.ts";

export class BasketWebhooks {
  readonly #deps: EventDeps & { readonly log: Logger };
  readonly #handling: OutboxHandling;

  constructor(deps: EventDeps & { readonly log: Logger }) {
    this.#deps = deps;
    this.#handling = new OutboxHandling(
      deps.runtime,
      BASKET_WEBHOOK_OUTBOX,
      (item) => this.#onItem(item),
    );
  }

  /** Stops taking items (they wait in the outbox) and waits for those being handled. */
  close(): Promise<void> {
    return this.#handling.close();
  }

  async #onItem(item: OutboxItem): Promise<void> {
    const basket = item.payload as BasketWebhookItem;
    const log = { tenant_id: item.tenant, order_reference: basket.order_reference };
    if (basket.business_id !== item.tenant) {
      // The tenant whose actor committed the basket is the only recipient ever: an item naming
      // another business is a broken actor, dropped rather than sent across tenants.
      this.#deps.log.error(
        { event: "basket_webhook_dropped", ...log },
        "basket webhook item names another business",
      );
      return;
    }
    try {
      await sendBasketWebhook(this.#deps, basket);
    } catch (e) {
      if (!(e instanceof Refused)) throw e;
      // Refused for good (emitBusinessWebhook): handed over again it would be refused again.
      this.#deps.log.error(
        { event: "basket_webhook_refused", ...log, code: e.rejection.code },
        "basket webhook refused",
      );
    }
  }
}
