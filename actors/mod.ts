/** Every actor type the runtime hosts. */
import type { AnyActorDefinition } from "../src/runtime/actor.ts";
import { businessActor } from "./business.ts";
import { driverActor } from "./driver.ts";
import { platformSettingsActor } from "./platform_settings.ts";
import { sessionActor } from "./session.ts";
import { courierClientActor } from "./courier_client.ts";
import { walletActor } from "./wallet.ts";

export const ACTORS: readonly AnyActorDefinition[] = [
  businessActor,
  driverActor,
  platformSettingsActor,
  sessionActor,
  courierClientActor,
  walletActor,
];
