/**
 * The Business API's reference data of one environment (4.3: vehicle types, parcel sizes, zones):
 * the default catalogue until the operator replaces it whole. Read on every fare and booking, from
 * memory; replaced rarely. Tenant = the platform's, one per environment.
 */
import {
  accept,
  type ActorDefinition,
  invalidFields,
  unreachable,
} from "../../src/runtime/actor.ts";
import {
  type Catalogue,
  type CatalogueInput,
  parseCatalogue,
} from "../../src/business/rules/catalogue.ts";
import { DEFAULT_CATALOGUE } from "../../src/business/rules/default_catalogue.ts";

export const BUSINESS_CATALOGUE_TENANT = "platform";
export const BUSINESS_CATALOGUE_ID = "business_catalogue";

/** A full catalogue (60 zones x 30 vehicle rates) is past one store value: split it. */
const CATALOGUE_STATE_BYTES_MAX = 600_000;

export interface BusinessCatalogue {
  readonly catalogue: Catalogue;
  /** 0 for the shipped default; each replacement adds one. */
  readonly version: number;
  readonly replaced_at: number | null;
}

export type BusinessCatalogueCommand =
  | { kind: "get" }
  | { kind: "replace"; input: CatalogueInput; by: string };

export type BusinessCatalogueEvent = {
  kind: "catalogue_replaced";
  catalogue: Catalogue;
  by: string;
  at: number;
};

function defaultCatalogue(): Catalogue {
  const parsed = parseCatalogue(DEFAULT_CATALOGUE);
  if (!parsed.ok) throw new Error(`default catalogue: ${JSON.stringify(parsed.errors)}`);
  return parsed.catalogue;
}

export const businessCatalogueActor: ActorDefinition<
  BusinessCatalogue,
  BusinessCatalogueCommand,
  BusinessCatalogueEvent,
  BusinessCatalogue
> = {
  type: "business_catalogue",
  noun: "catalogue",
  version: 1,
  initial: { catalogue: defaultCatalogue(), version: 0, replaced_at: null },
  decide(_state, command, ctx) {
    switch (command.kind) {
      case "replace": {
        const parsed = parseCatalogue(command.input);
        if (!parsed.ok) return invalidFields(parsed.errors);
        return accept(
          [{
            kind: "catalogue_replaced",
            catalogue: parsed.catalogue,
            by: command.by,
            at: ctx.now,
          }],
          (s) => s,
        );
      }
      case "get":
      case "timer":
        return accept([], (s) => s);
      default:
        return unreachable(command);
    }
  },
  evolve(state, event) {
    return { catalogue: event.catalogue, version: state.version + 1, replaced_at: event.at };
  },
  // The state holds the catalogue; the log keeps who replaced it and when.
  logged: ({ kind, by, at }) => ({ kind, by, at }),
  publishEvents: false,
  stateBytesMax: CATALOGUE_STATE_BYTES_MAX,
};
