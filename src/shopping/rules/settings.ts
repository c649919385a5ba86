/**
 * The capability settings of shopping 2.1 beyond the operator's switch: where events go, the
 * decision window and the receipt links' life, with the document's defaults.
 */
import {
  SHOPPING_ASK_TIMEOUT_MINUTES_DEFAULT,
  SHOPPING_RECEIPT_TTL_MINUTES_DEFAULT,
} from "../../limits.ts";

/** spec: shopping 2.1: the webhook secret has the form `shf_...`. */
export const SHOPPING_SECRET_PREFIX = "shf_";

/** The outbound stream of shopping events (spec: shopping 6), as the deliveries list reads it. */
export const SHOPPING_WEBHOOK_STREAM = "shopping_webhook";

export interface ShoppingSettings {
  readonly webhook_url: string | null;
  readonly ask_timeout_minutes: number;
  readonly receipt_url_ttl_minutes: number;
}

/** spec: shopping 2.1, 8: until set, no URL, a 5 minute window, receipt links for 24 hours. */
export const SHOPPING_SETTINGS_DEFAULT: ShoppingSettings = {
  webhook_url: null,
  ask_timeout_minutes: SHOPPING_ASK_TIMEOUT_MINUTES_DEFAULT,
  receipt_url_ttl_minutes: SHOPPING_RECEIPT_TTL_MINUTES_DEFAULT,
};

/**
 * spec: business 5.6: a changed shopping webhook address or secret is recorded (the capability's
 * event) and e-mailed to the account owner: an item of this outbox, added in the change's own
 * commit, makes the e-mail once (src/shopping/reactors/owner_notices.ts).
 */
export const SHOPPING_OWNER_NOTICE_OUTBOX = "shopping_owner_notice";

/** One change the owner is told of (the item's tenant is the business); never the secret. */
export type ShoppingOwnerNoticeItem =
  & { readonly by: string }
  & (
    | { readonly cause: "shopping_webhook_url_changed"; readonly webhook_url: string | null }
    | { readonly cause: "shopping_webhook_secret_rotated"; readonly key_id: string }
  );
