/**
 * spec: business 6 "wallet.low_balance | wallet fell below the configured threshold": the one
 * place that decides who hears a debit take a business's wallet below the profile's
 * low_balance_threshold (4.3 PATCH /business/profile). Every debit of the wallet passes its watch
 * (a trip's charge, a shopping order's goods, the sandbox's set balance): the wallet's command
 * requires one, so a debit cannot leave it out. The wallet sends the event once when the balance
 * falls below, and again only after it has risen back (actors/platform/wallet.ts).
 */
import type { LowBalanceWatch } from "../../../actors/platform/wallet.ts";
import type { Business } from "../../../actors/platform/business/types.ts";
import { toMinor } from "../../domain/money.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { businessOf } from "../../platform/flows/businesses.ts";
import { BUSINESS_WEBHOOK_OUTBOX } from "../rules/webhook_events.ts";

/** The watch of a debit in `currency`; null without a threshold (set in the account's currency). */
export function lowBalanceWatch(account: Business, currency: string): LowBalanceWatch | null {
  const text = account.profile.low_balance_threshold;
  if (text === null || currency !== account.currency) return null;
  const m = toMinor(text, currency);
  if (!m.ok) return null;
  return { threshold_minor: m.minor, business_id: account.id, outbox: BUSINESS_WEBHOOK_OUTBOX };
}

/** The watch as the business's profile sets it now, for a debit made without the account. */
export async function lowBalanceWatchOf(
  runtime: ActorRuntime,
  businessId: string,
  currency: string,
): Promise<LowBalanceWatch | null> {
  return lowBalanceWatch(await businessOf(runtime, businessId), currency);
}
