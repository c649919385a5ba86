/**
 * The in-store shopping fulfilment document: a merchant's order that one shopper buys across up
 * to 20 stores and delivers in one shop-and-deliver trip (booked by the Business API's flow).
 * Its capability settings and orders; the shopper's work, decisions, events and receipts build on
 * the order's store actors.
 */
import { SHOPPING_ACTORS } from "../../actors/shopping/mod.ts";
import { shoppingCapabilityRoutes } from "../../routes/shopping/capability.ts";
import { shoppingOrderRoutes } from "../../routes/shopping/orders.ts";
import { shoppingDecisionRoutes } from "../../routes/shopping/decisions.ts";
import { shopperRoutes } from "../../routes/shopping/driver.ts";
import { sandboxShopperRoutes } from "../../routes/shopping/sandbox.ts";
import type { Feature } from "../feature.ts";

export const shoppingFeature: Feature = {
  name: "shopping",
  actors: SHOPPING_ACTORS,
  routers: [
    shoppingCapabilityRoutes,
    shoppingOrderRoutes,
    shoppingDecisionRoutes,
    shopperRoutes,
    sandboxShopperRoutes,
  ],
  start: () => ({}),
};
