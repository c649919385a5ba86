/**
 * The in-store shopping fulfilment document: a merchant's order that one shopper buys across up
 * to 20 stores and delivers in one shop-and-deliver trip (booked by the Business API's flow).
 * Its capability settings and orders; the events of the stores' work through the one delivery
 * engine (to the business's shopping webhook), the float's reconciliation and the signed links,
 * and the collected basket's event to the business webhook (Business API 6).
 */
import { SHOPPING_ACTORS } from "../../actors/shopping/mod.ts";
import { shoppingCapabilityRoutes } from "../../routes/shopping/capability.ts";
import { shoppingLinkRoutes } from "../../routes/shopping/links.ts";
import { shoppingOrderRoutes } from "../../routes/shopping/orders.ts";
import { shoppingDecisionRoutes } from "../../routes/shopping/decisions.ts";
import { shopperRoutes } from "../../routes/shopping/driver.ts";
import { sandboxShopperRoutes } from "../../routes/shopping/sandbox.ts";
import type { Feature } from "../feature.ts";
import { bodyWithRenewedLinks } from "./flows/link_renewal.ts";
import { platformServices } from "../platform/mod.ts";
import { shoppingWebhookTargets } from "./flows/targets.ts";
import { ShoppingEvents } from "./reactors/shopping_events.ts";
import { ShoppingOwnerNotices } from "./reactors/owner_notices.ts";
import { egressPolicyOf } from "../outbound/egress.ts";
import { endStoresOfCancelledTrips, watchOrdersBooking } from "./flows/old_data.ts";

export const shoppingFeature: Feature = {
  name: "shopping",
  actors: SHOPPING_ACTORS,
  routers: [
    shoppingCapabilityRoutes,
    shoppingOrderRoutes,
    shoppingDecisionRoutes,
    shopperRoutes,
    sandboxShopperRoutes,
    shoppingLinkRoutes,
  ],
  start(deps) {
    // spec: shopping 6: the business's shopping webhook, resolved at every attempt; the signed
    // links of an event valid receipt_url_ttl_minutes from each attempt, not from its making.
    platformServices(deps).delivery.add({
      targets: shoppingWebhookTargets(deps.runtime),
      bodies: (tenant, event) => bodyWithRenewedLinks(deps, tenant, event),
    });
    // spec: shopping 2.3, 6: each store change's events made once its commit is done; business
    // 6: the collected basket's event to the business webhook once the order's commit is done.
    return {
      reactors: {
        shopping_events: new ShoppingEvents(deps),
        // spec: business 5.6: the owner is e-mailed of a changed shopping webhook or secret.
        shopping_owner_notices: new ShoppingOwnerNotices({
          runtime: deps.runtime,
          egress: egressPolicyOf(deps.name),
        }),
      },
      // Orders left booking before the stall sweep existed get its timer, once.
      migrations: {
        "shopping orders booking before the stall timer": {
          version: 1,
          run: () => watchOrdersBooking(deps.runtime),
        },
        // Trips cancelled before their cancellation ended the order's stores: the goods charged.
        "shopping stores left pending by a cancelled trip": {
          version: 1,
          run: () => endStoresOfCancelledTrips(deps.runtime),
        },
      },
    };
  },
};
