/**
 * The handler of the shopping event outbox (shopping 2.3, 6; issue 41 items 5 and 7): each item
 * the store actor adds in the commit of a change (a store's part ended, a line awaits a decision)
 * is handed to flows/events.ts, which records it on the order and makes its events through the
 * one delivery engine (src/platform/reactors/deliver.ts). A failure leaves the item in the outbox;
 * the runtime hands it over again and the idempotent steps finish it.
 */
import { OutboxHandling } from "../../runtime/outbox_handling.ts";
import type { Logger } from "../../observe/log.ts";
import type { OutboxItem } from "../../runtime/store.ts";
import { type EventDeps, handleShoppingItem } from "../flows/events.ts";
import { SHOPPING_EVENT_OUTBOX, type ShoppingEventItem } from "../rules/events.ts";

export class ShoppingEvents {
  readonly #deps: EventDeps & { readonly log: Logger };
  readonly #handling: OutboxHandling;

  constructor(deps: EventDeps & { readonly log: Logger }) {
    this.#deps = deps;
    this.#handling = new OutboxHandling(
      deps.runtime,
      SHOPPING_EVENT_OUTBOX,
      (item) => this.#onItem(item),
    );
  }

  /** Stops taking items (they wait in the outbox) and waits for those being handled. */
  close(): Promise<void> {
    return this.#handling.close();
  }

  async #onItem(item: OutboxItem): Promise<void> {
    const event = item.payload as ShoppingEventItem;
    if (event.business_id !== item.tenant) {
      // The tenant whose actor committed the change is the only recipient ever: an item naming
      // another business is a broken actor, dropped rather than sent across tenants.
      this.#deps.log.error(
        { event: "shopping_event_dropped", tenant_id: item.tenant, event_id: event.event_id },
        "shopping event item names another business",
      );
      return;
    }
    await handleShoppingItem(this.#deps, event);
  }
}
