/** The in-store shopping fulfilment document's actor types. */
import type { AnyActorDefinition } from "../../src/runtime/actor.ts";
import { shoppingCapabilityActor } from "./capability.ts";
import { shoppingOrderActor } from "./order.ts";
import { shoppingStoreActor } from "./store.ts";

export const SHOPPING_ACTORS: readonly AnyActorDefinition[] = [
  shoppingCapabilityActor,
  shoppingOrderActor,
  shoppingStoreActor,
];
