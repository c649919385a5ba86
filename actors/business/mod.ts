/** The Business API's actor types. */
import type { AnyActorDefinition } from "../../src/runtime/actor.ts";
import { batchActor } from "./batch.ts";
import { batchPricesActor } from "./batch_prices.ts";
import { addressBookActor } from "./address_book.ts";
import { businessCatalogueActor } from "./catalogue.ts";
import { checkoutActor } from "./checkout.ts";
import { poolDriverActor } from "./pool_driver.ts";
import { sandboxInboxActor } from "./sandbox_inbox.ts";
import { tripActor } from "./trip/mod.ts";
import { subscriptionActor } from "./subscription.ts";
import { tripSequenceActor } from "./trip_sequence.ts";
import { tripChatActor } from "./trip_chat.ts";
import { storefrontChannelActor } from "./sandbox_channels.ts";
import { sandboxSignupActor } from "./sandbox_signup.ts";
import { sandboxAutopilotActor } from "./sandbox_autopilot.ts";
import { sandboxAutopilotSettingActor } from "./sandbox_autopilot_setting.ts";
import { packingSlipSettingsActor } from "./packing_slip_settings.ts";

export const BUSINESS_ACTORS: readonly AnyActorDefinition[] = [
  businessCatalogueActor,
  poolDriverActor,
  sandboxInboxActor,
  tripActor,
  subscriptionActor,
  batchActor,
  batchPricesActor,
  tripSequenceActor,
  tripChatActor,
  storefrontChannelActor,
  sandboxSignupActor,
  sandboxAutopilotActor,
  sandboxAutopilotSettingActor,
  packingSlipSettingsActor,
  addressBookActor,
  checkoutActor,
];
