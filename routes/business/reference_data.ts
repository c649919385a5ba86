/**
 * Business API 4.3 reference data: vehicle types, parcel sizes (authoritative: 9.2, the ladder
 * changes without notice) and zones, read by businesses and their `deliveries` partner keys (5);
 * and the operator's side of the same data: the catalogue in use, replaced whole.
 */
import type { Context } from "hono";
import {
  BUSINESS_CATALOGUE_ID,
  BUSINESS_CATALOGUE_TENANT,
  businessCatalogueActor,
} from "../../actors/business/catalogue.ts";
import { CatalogueBody } from "../../src/business/schemas.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { ask, read } from "../../src/http/ask.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { define, z } from "../../src/http/route.ts";
import { business, operatorOnly } from "../../src/platform/auth/auth.ts";
import {
  CatalogueAnswer,
  catalogueView,
  ParcelSizeAnswer,
  parcelSizeView,
  VehicleTypeAnswer,
  vehicleTypeView,
  ZoneAnswer,
  zoneView,
} from "./answers/reference_data.ts";

const tag = "Reference data";
// spec: business 5: the deliveries scope reaches GET /business/vehicle-types, /parcel-sizes, /zones.
const middleware = [business({ scope: "deliveries" })];

export function referenceDataRoutes(api: Api): void {
  businessRoutes(api);
  operatorRoutes(api);
}

function businessRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/business/vehicle-types",
    summary: "Vehicle types: body type, capacity class, payload and load space",
    tag,
    security: "business",
    middleware,
    response: z.array(VehicleTypeAnswer),
  }, async (c) => {
    const { catalogue } = await catalogueIn(c);
    return ok(c, catalogue.vehicle_types.map(vehicleTypeView));
  });

  define(api, {
    method: "get",
    path: "/business/parcel-sizes",
    summary: "Parcel sizes: kilogram range, eligible vehicle types and rates per band",
    description: "Authoritative: the ladder may change without notice, so read it here rather " +
      "than keeping a copy. A parcel is in the band its weight (or volumetric weight) falls in, " +
      "or the declared size's when that is larger.",
    tag,
    security: "business",
    middleware,
    response: z.array(ParcelSizeAnswer),
  }, async (c) => {
    const { catalogue } = await catalogueIn(c);
    return ok(c, catalogue.parcel_sizes.map((s) => parcelSizeView(catalogue, s)));
  });

  define(api, {
    method: "get",
    path: "/business/zones",
    summary: "Zones: the area each serves, its currency and its rates per vehicle type",
    tag,
    security: "business",
    middleware,
    response: z.array(ZoneAnswer),
  }, async (c) => {
    const { catalogue } = await catalogueIn(c);
    return ok(c, catalogue.zones.map(zoneView));
  });
}

function operatorRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/operator/business-catalogue",
    summary: "The Business API's reference data in use (the shipped default until replaced)",
    tag: "Operator",
    security: "operator",
    middleware: [operatorOnly],
    response: CatalogueAnswer,
  }, async (c) => ok(c, catalogueView(await catalogueIn(c))));

  define(api, {
    method: "put",
    path: "/operator/business-catalogue",
    summary: "Replace the Business API's vehicle types, parcel sizes and zones, whole",
    description: "Takes the form GET answers. Parcel sizes run lightest first, each from the " +
      "kilogram where the one before ends (the first from 0); every zone rates every vehicle " +
      "type and every parcel size rates every zone, in the zone's currency. Fares and bookings " +
      "use the new catalogue from this answer on; trips already booked keep their fare.",
    tag: "Operator",
    security: "operator",
    middleware: [operatorOnly],
    body: CatalogueBody,
    response: CatalogueAnswer,
    refusals: {
      validation_failed: "a field is out of range, or the lists disagree (a repeated id, a gap " +
        "between bands, a missing rate, an amount with more decimals than its currency has): " +
        "`errors` names each by its path",
    },
  }, async (c, { body }) => {
    const s = await ask(
      c,
      businessCatalogueActor,
      BUSINESS_CATALOGUE_TENANT,
      BUSINESS_CATALOGUE_ID,
      {
        kind: "replace",
        input: body,
        by: "operator",
      },
    );
    return ok(c, catalogueView(s));
  });
}

function catalogueIn(c: Context<AppEnv>) {
  return read(c, businessCatalogueActor, BUSINESS_CATALOGUE_TENANT, BUSINESS_CATALOGUE_ID, {
    kind: "get",
  });
}
