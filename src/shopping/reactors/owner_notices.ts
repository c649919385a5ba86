/**
 * Business API 5.6, shopping 2.1, 4: a changed shopping webhook address or `shf_` secret is
 * recorded (the capability's own event) and e-mailed to the account owner, as the business's own
 * webhook changes are (src/platform/reactors/owner_notices.ts). The capability adds the item in
 * the change's commit; its e-mail's id is the change's place in the capability's log, so one
 * change is one e-mail however often the item is handed over (a failure leaves it to be tried
 * again). The e-mail names the secret by its key id, never the secret.
 */
import { mailOwner } from "../../platform/reactors/owner_notices.ts";
import type { EgressPolicy } from "../../outbound/egress.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { OutboxHandling } from "../../runtime/outbox_handling.ts";
import type { OutboxItem } from "../../runtime/store.ts";
import { SHOPPING_OWNER_NOTICE_OUTBOX, type ShoppingOwnerNoticeItem } from "../rules/settings.ts";

export class ShoppingOwnerNotices {
  readonly #handling: OutboxHandling;

  constructor(deps: { readonly runtime: ActorRuntime; readonly egress: EgressPolicy }) {
    this.#handling = new OutboxHandling(
      deps.runtime,
      SHOPPING_OWNER_NOTICE_OUTBOX,
      async (item) => {
        await mailOwner(deps.runtime, deps.egress, shoppingNotice(item));
      },
    );
  }

  close(): Promise<void> {
    return this.#handling.close();
  }
}

/** The e-mail of one change of the business `item.tenant`'s shopping webhook. */
function shoppingNotice(item: OutboxItem) {
  const notice = item.payload as ShoppingOwnerNoticeItem;
  const change = {
    business_id: item.tenant,
    id: `${item.tenant}:shopping_security:${item.seq}`,
    cause: notice.cause,
    at: item.at,
    by: notice.by,
  };
  switch (notice.cause) {
    case "shopping_webhook_url_changed":
      return {
        ...change,
        what: "Your shopping webhook address was changed",
        detail: notice.webhook_url
          ? `Shopping fulfilment events now go to ${notice.webhook_url}.`
          : "The shopping webhook address was removed: no shopping fulfilment events are sent " +
            "until one is set.",
      };
    case "shopping_webhook_secret_rotated":
      return {
        ...change,
        what: "Your shopping webhook signing secret was changed",
        detail: `The new secret's key id is ${notice.key_id}. Shopping fulfilment events are ` +
          "signed with it from now on.",
      };
  }
}
