/**
 * The Business API (its document): companies book rides and deliveries from their own systems.
 * So far its reference data and the one fare calculator; bookings and trips build on them.
 */
import { BUSINESS_ACTORS } from "../../actors/business/mod.ts";
import { fareRoutes } from "../../routes/business/fares.ts";
import { referenceDataRoutes } from "../../routes/business/reference_data.ts";
import { tripsRoutes } from "../../routes/business/trips.ts";
import { startBookingOutboxes } from "./reactors/booking_outboxes.ts";
import { startBusinessReadTables } from "./queries/trips.ts";
import type { Feature } from "../feature.ts";

export const businessFeature: Feature = {
  name: "business",
  actors: BUSINESS_ACTORS,
  routers: [referenceDataRoutes, fareRoutes, tripsRoutes],
  start: (deps) => ({
    // The trips list's typed read table (migration 0018).
    projections: {
      business_read_tables: startBusinessReadTables({
        bus: deps.bus,
        db: deps.db,
        env: deps.busPrefix,
      }),
    },
    reactors: { booking_outboxes: startBookingOutboxes(deps) },
  }),
};
