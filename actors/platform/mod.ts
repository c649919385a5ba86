/** The platform's actor types: accounts, sign-in, wallets, outbound events, deferred work, mail (CONTRACT; Business API 5). */
import type { AnyActorDefinition } from "../../src/runtime/actor.ts";
import { businessActor } from "./business/mod.ts";
import { driverActor } from "./driver.ts";
import { platformSettingsActor } from "./platform_settings.ts";
import { sessionActor } from "./session.ts";
import { walletActor } from "./wallet.ts";
import { outboundEventActor } from "./outbound_event/mod.ts";
import { deferredWorkActor } from "./deferred_work.ts";
import { mailMessageActor } from "./mail_message.ts";

export const PLATFORM_ACTORS: readonly AnyActorDefinition[] = [
  businessActor,
  driverActor,
  platformSettingsActor,
  sessionActor,
  walletActor,
  outboundEventActor,
  deferredWorkActor,
  mailMessageActor,
];
