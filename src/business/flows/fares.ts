/**
 * What a trip costs a business (Business API 4.1 fare-estimate, 3.2): the environment's catalogue
 * and the account's vehicle_upgrade_policy, through the one calculator the booking uses.
 */
import {
  BUSINESS_CATALOGUE_ID,
  BUSINESS_CATALOGUE_TENANT,
  businessCatalogueActor,
} from "../../../actors/business/catalogue.ts";
import type { Deps } from "../../environment.ts";
import { orRefuse, Refused } from "../../runtime/actor.ts";
import { businessOf } from "../../platform/flows/businesses.ts";
import type { Catalogue } from "../rules/catalogue.ts";
import { priceTrip, type Route, type TripPrice } from "../rules/fare.ts";
import type { Declared } from "../rules/vehicle.ts";

/** The environment's catalogue in use: the default until the operator replaces it. */
export async function catalogueOf(deps: Pick<Deps, "runtime">): Promise<Catalogue> {
  const r = await deps.runtime.read(
    businessCatalogueActor,
    BUSINESS_CATALOGUE_TENANT,
    BUSINESS_CATALOGUE_ID,
    { kind: "get" },
  );
  return orRefuse(r).catalogue;
}

/** The fare and vehicle a booking of these details would get now; refusals are thrown. */
export async function estimateFare(
  deps: Pick<Deps, "runtime">,
  business: string,
  input: { readonly route: Route; readonly declared: Declared },
): Promise<TripPrice> {
  const [catalogue, account] = await Promise.all([
    catalogueOf(deps),
    businessOf(deps.runtime, business),
  ]);
  const r = priceTrip(
    catalogue,
    input.route,
    input.declared,
    account.settings.vehicle_upgrade_policy,
  );
  if (!r.ok) throw new Refused(r);
  return r.price;
}
