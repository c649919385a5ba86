/** The Business API's actor types. */
import type { AnyActorDefinition } from "../../src/runtime/actor.ts";
import { businessCatalogueActor } from "./catalogue.ts";

export const BUSINESS_ACTORS: readonly AnyActorDefinition[] = [businessCatalogueActor];
