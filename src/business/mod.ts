/**
 * The Business API (its document): companies book rides and deliveries from their own systems.
 * So far its reference data, the one fare calculator, and its webhooks (the outbox its actors add
 * events to, sent through the platform's delivery engine); bookings and trips build on them.
 */
import { BUSINESS_ACTORS } from "../../actors/business/mod.ts";
import { fareRoutes } from "../../routes/business/fares.ts";
import { referenceDataRoutes } from "../../routes/business/reference_data.ts";
import { webhookRoutes } from "../../routes/business/webhooks.ts";
import type { Feature } from "../feature.ts";
import { BusinessWebhooks } from "./reactors/business_webhooks.ts";

export const businessFeature: Feature = {
  name: "business",
  actors: BUSINESS_ACTORS,
  routers: [referenceDataRoutes, fareRoutes, webhookRoutes],
  start: (deps) => ({
    reactors: {
      // spec: business 6: each event sent once its transition commits (the outbox's handler).
      business_webhooks: new BusinessWebhooks({ runtime: deps.runtime, log: deps.log }),
    },
  }),
};
