/**
 * Every actor's commands and replies can cross between instances as JSON (forwarding.ts,
 * json_safe.ts): checked on their types when the tests are type-checked, for every actor every
 * feature runs (the list below must name them all, which the test checks).
 */
import assert from "node:assert/strict";
import { FEATURES } from "../../src/features.ts";
import type { CommandOf, ReplyOf } from "../../src/runtime/actor.ts";
import { addressBookActor } from "../../actors/business/address_book.ts";
import { batchActor } from "../../actors/business/batch.ts";
import { batchPricesActor } from "../../actors/business/batch_prices.ts";
import { businessCatalogueActor } from "../../actors/business/catalogue.ts";
import { checkoutActor } from "../../actors/business/checkout.ts";
import { packingSlipSettingsActor } from "../../actors/business/packing_slip_settings.ts";
import { poolDriverActor } from "../../actors/business/pool_driver.ts";
import { sandboxAutopilotActor } from "../../actors/business/sandbox_autopilot.ts";
import { sandboxAutopilotSettingActor } from "../../actors/business/sandbox_autopilot_setting.ts";
import { storefrontChannelActor } from "../../actors/business/sandbox_channels.ts";
import { sandboxInboxActor } from "../../actors/business/sandbox_inbox.ts";
import { sandboxSignupActor } from "../../actors/business/sandbox_signup.ts";
import { subscriptionActor } from "../../actors/business/subscription.ts";
import { tripActor } from "../../actors/business/trip/mod.ts";
import { tripChatActor } from "../../actors/business/trip_chat.ts";
import { tripSequenceActor } from "../../actors/business/trip_sequence.ts";
import { alertActor } from "../../actors/courier/alert.ts";
import { billingWaitActor } from "../../actors/courier/billing_wait.ts";
import { bookingRequestActor } from "../../actors/courier/booking_request.ts";
import { claimActor } from "../../actors/courier/claim/mod.ts";
import { clientAddressActor } from "../../actors/courier/client_address.ts";
import { clientStoreActor } from "../../actors/courier/client_store.ts";
import { complianceChecklistActor } from "../../actors/courier/compliance_checklists.ts";
import { courierCatalogueActor } from "../../actors/courier/courier_catalogue.ts";
import { chargedEntryActor } from "../../actors/courier/charged_entry/mod.ts";
import { courierClientActor } from "../../actors/courier/courier_client.ts";
import { customsCrossingActor } from "../../actors/courier/customs_crossing/mod.ts";
import { evidenceFileActor } from "../../actors/courier/evidence_file.ts";
import { labSampleActor } from "../../actors/courier/lab_sample/mod.ts";
import { networkRunActor } from "../../actors/courier/network_run/mod.ts";
import { operationsViewsActor } from "../../actors/courier/operations_views.ts";
import { priceOfferActor } from "../../actors/courier/price_offer.ts";
import { rateCardActor } from "../../actors/courier/rate_card.ts";
import { referenceClaimActor } from "../../actors/courier/reference_claim.ts";
import { retailPacketActor } from "../../actors/courier/retail_packet.ts";
import { shipmentActor } from "../../actors/courier/shipment/mod.ts";
import { shipmentRunsActor } from "../../actors/courier/shipment_runs.ts";
import { waybillSequenceActor } from "../../actors/courier/waybill_sequence.ts";
import { businessActor } from "../../actors/platform/business/mod.ts";
import { deferredWorkActor } from "../../actors/platform/deferred_work.ts";
import { driverActor } from "../../actors/platform/driver.ts";
import { mailMessageActor } from "../../actors/platform/mail_message.ts";
import { outboundEventActor } from "../../actors/platform/outbound_event/mod.ts";
import { platformSettingsActor } from "../../actors/platform/platform_settings.ts";
import { sessionActor } from "../../actors/platform/session.ts";
import { walletActor } from "../../actors/platform/wallet.ts";
import { shoppingCapabilityActor } from "../../actors/shopping/capability.ts";
import { shoppingOrderActor } from "../../actors/shopping/order.ts";
import { shoppingStoreActor } from "../../actors/shopping/store.ts";

/**
 * True when a value of type T is plain JSON (json_safe.ts); `unknown` is left to the check made
 * at each forward. A union is safe when each member is.
 */
type JsonSafe<T> = unknown extends T ? true
  : T extends string | number | boolean | null | undefined ? true
  : T extends bigint | symbol | ((...args: never[]) => unknown) ? false
  : T extends Date | ReadonlyMap<unknown, unknown> | ReadonlySet<unknown> ? false
  : T extends readonly (infer U)[] ? JsonSafe<U>
  : T extends object ? (false extends { [K in keyof T]-?: JsonSafe<T[K]> }[keyof T] ? false : true)
  : false;

/** Compiles only when every actor's commands and replies are JSON-safe. */
type AllSafe<D extends readonly unknown[]> = {
  [I in keyof D]: [CommandOf<D[I]>] extends [never] ? ["command type not found", D[I]]
    : JsonSafe<CommandOf<D[I]>> extends true
      ? JsonSafe<ReplyOf<D[I]>> extends true ? true : ["reply not JSON-safe", D[I]]
    : ["command not JSON-safe", D[I]];
};

const ACTORS = [
  addressBookActor,
  batchActor,
  batchPricesActor,
  businessCatalogueActor,
  checkoutActor,
  packingSlipSettingsActor,
  poolDriverActor,
  sandboxAutopilotActor,
  sandboxAutopilotSettingActor,
  storefrontChannelActor,
  sandboxInboxActor,
  sandboxSignupActor,
  subscriptionActor,
  tripActor,
  tripChatActor,
  tripSequenceActor,
  alertActor,
  billingWaitActor,
  bookingRequestActor,
  claimActor,
  clientAddressActor,
  clientStoreActor,
  complianceChecklistActor,
  courierCatalogueActor,
  chargedEntryActor,
  courierClientActor,
  customsCrossingActor,
  evidenceFileActor,
  labSampleActor,
  networkRunActor,
  operationsViewsActor,
  priceOfferActor,
  rateCardActor,
  referenceClaimActor,
  retailPacketActor,
  shipmentActor,
  shipmentRunsActor,
  waybillSequenceActor,
  businessActor,
  deferredWorkActor,
  driverActor,
  mailMessageActor,
  outboundEventActor,
  platformSettingsActor,
  sessionActor,
  walletActor,
  shoppingCapabilityActor,
  shoppingOrderActor,
  shoppingStoreActor,
] as const;

/** The actors whose commands or replies are not JSON-safe, named; never when all are. */
type Unsafe = Exclude<AllSafe<typeof ACTORS>[number], true>;
const unsafe: [Unsafe] extends [never] ? "none" : Unsafe = "none";

/** As AllSafe judges one type. */
type Judged<T> = JsonSafe<T> extends true ? "safe" : "refused";

/** The check itself tells: each of these is refused by it, and the last is safe. */
const judged: [
  Judged<{ at: Date }>,
  Judged<{ kind: "a" } | { kind: "b"; seen: Set<string> }>,
  Judged<{ list: readonly { n: bigint }[] }>,
  Judged<{ reply: () => void }>,
  Judged<{ kind: "a"; n?: number; list: readonly { s: string | null }[] }>,
] = ["refused", "refused", "refused", "refused", "safe"];

Deno.test("json commands: the type check above covers every actor type a feature runs", () => {
  assert.equal(unsafe, "none");
  assert.deepEqual(judged, ["refused", "refused", "refused", "refused", "safe"]);
  const listed = new Set<string>(ACTORS.map((a) => a.type));
  const run = FEATURES.flatMap((f) => f.actors.map((a) => a.type));
  assert.deepEqual(run.filter((t) => !listed.has(t)), [], "actors to add to this list");
});
