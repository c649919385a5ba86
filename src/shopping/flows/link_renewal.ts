/**
 * spec: shopping 6 "Receipt URL" (valid receipt_url_ttl_minutes, at least 10, from receipt);
 * Business API 6 `shopping.basket_collected` "carries a signed packing_slip_url": every attempt of
 * an event carrying signed links carries them valid for the TTL from that attempt. A retry after
 * 30 minutes or 12 hours would otherwise hand the receiver a link already expired.
 *
 * The delivery engine asks this for each attempt's body (DeliveryHook.bodies) and signs the bytes
 * answered; the event itself, its id and every other byte of its body stay as made, so receivers
 * dedupe on the id as before. Events that carry no link of ours are not touched (undefined).
 */
import type { SendableEvent } from "../../platform/reactors/outbound_attempt.ts";
import type { EventDeps } from "./events.ts";
import { linkLifeMs } from "./events.ts";
import { renewedLink } from "./links.ts";

/** A link of GET /shopping/links/{token} in a body: the token is base64url, a dot, base64url. */
const LINK_TOKEN = /\/api\/shopping\/links\/([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)/g;

/** Whether `event` is one whose body may carry shopping links (store and basket events). */
function carriesLinks(event: SendableEvent): boolean {
  if (event.stream === "shopping_webhook") return true;
  return event.stream === "business_webhook" && event.event_type === "shopping.basket_collected";
}

/** The body of this attempt of `event`, its links renewed; undefined: sent as made. */
export async function bodyWithRenewedLinks(
  deps: Pick<EventDeps, "runtime" | "clock" | "dataKey">,
  tenant: string,
  event: SendableEvent,
): Promise<string | undefined> {
  if (!carriesLinks(event)) return undefined;
  const tokens = new Set([...event.raw_body.matchAll(LINK_TOKEN)].map((m) => m[1]!));
  if (tokens.size === 0) return undefined;
  const until = deps.clock.now() + await linkLifeMs(deps, tenant);
  let body = event.raw_body;
  for (const token of tokens) {
    const renewed = await renewedLink(deps, tenant, token, until);
    // Only the token's bytes change (base64url and a dot: nothing JSON escapes).
    if (renewed && renewed !== token) body = body.replaceAll(token, renewed);
  }
  return body;
}
