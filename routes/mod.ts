/** Every route file, one per section of the spec, mounted on each environment's API. */
import type { Api } from "../src/http/app.ts";
import { operatorRoutes } from "./platform/operator.ts";
import { accountRoutes } from "./business/account.ts";
import { courierClientRoutes } from "./courier/clients.ts";
import { clientApiRoutes } from "./courier/client_api.ts";
import { priceRoutes } from "./courier/prices.ts";
import { clientShipmentRoutes } from "./courier/client_shipments.ts";
import { billingRoutes } from "./courier/billing.ts";
import { billingEventRoutes } from "./courier/billing_events.ts";
import { boardRoutes } from "./courier/board.ts";
import { operationRoutes } from "./courier/operations.ts";
import { trackingRoutes } from "./courier/tracking.ts";
import { runRoutes } from "./courier/runs.ts";
import { rateCardRoutes } from "./courier/rate_cards.ts";
import { serviceLevelRoutes } from "./courier/service_levels.ts";
import { alertRoutes } from "./courier/alerts.ts";
import { customsRoutes } from "./courier/customs.ts";
import { packingSlipRoutes } from "./courier/packing_slip.ts";
import { clientDocumentRoutes } from "./courier/client_documents.ts";
import { labRoutes } from "./courier/lab.ts";
import { checklistRoutes } from "./courier/checklists.ts";
import { claimRoutes } from "./courier/claims.ts";
import { clientStoreRoutes } from "./courier/client_stores.ts";
import { clientPeopleRoutes } from "./courier/client_people.ts";
import { clientManifestRoutes } from "./courier/client_manifest.ts";

export const ROUTERS: readonly ((api: Api) => void)[] = [
  operatorRoutes,
  accountRoutes,
  courierClientRoutes,
  clientApiRoutes,
  priceRoutes,
  clientShipmentRoutes,
  billingRoutes,
  billingEventRoutes,
  // Before operationRoutes: its /operations/{reference} would take /operations/live.
  boardRoutes,
  operationRoutes,
  trackingRoutes,
  runRoutes,
  rateCardRoutes,
  serviceLevelRoutes,
  alertRoutes,
  customsRoutes,
  packingSlipRoutes,
  clientDocumentRoutes,
  labRoutes,
  checklistRoutes,
  claimRoutes,
  clientStoreRoutes,
  clientPeopleRoutes,
  clientManifestRoutes,
];
