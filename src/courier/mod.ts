/**
 * The courier platform (courier platform API v1): its actors, its routes, and the reactors,
 * projection and sweeps that follow its commits.
 */
import { nameClaimsFiledBefore } from "./flows/old_data/claims.ts";
import { restateReturningShipments } from "./flows/old_data/returning.ts";
import { bindClientSeals } from "./flows/old_data/seals.ts";
import { fillChargedEntries } from "./flows/old_data/charged_entries.ts";
import { COURIER_ACTORS } from "../../actors/courier/mod.ts";
import { courierClientRoutes } from "../../routes/courier/clients.ts";
import { clientApiRoutes } from "../../routes/courier/client_api.ts";
import { priceRoutes } from "../../routes/courier/prices.ts";
import { clientShipmentRoutes } from "../../routes/courier/client_shipments.ts";
import { billingRoutes } from "../../routes/courier/billing.ts";
import { billingEventRoutes } from "../../routes/courier/billing_events.ts";
import { boardRoutes } from "../../routes/courier/board.ts";
import { operationRoutes } from "../../routes/courier/operations.ts";
import { trackingRoutes } from "../../routes/courier/tracking.ts";
import { runRoutes } from "../../routes/courier/runs.ts";
import { runActionRoutes } from "../../routes/courier/run_actions.ts";
import { driverRunRoutes } from "../../routes/courier/driver_runs.ts";
import { rateCardRoutes } from "../../routes/courier/rate_cards.ts";
import { serviceLevelRoutes } from "../../routes/courier/service_levels.ts";
import { alertRoutes } from "../../routes/courier/alerts.ts";
import { customsRoutes } from "../../routes/courier/customs.ts";
import { packingSlipRoutes } from "../../routes/courier/packing_slip.ts";
import { clientDocumentRoutes } from "../../routes/courier/client_documents.ts";
import { labRoutes } from "../../routes/courier/lab.ts";
import { checklistRoutes } from "../../routes/courier/checklists.ts";
import { claimRoutes } from "../../routes/courier/claims.ts";
import { clientStoreRoutes } from "../../routes/courier/client_stores.ts";
import { clientPeopleRoutes } from "../../routes/courier/client_people.ts";
import { clientManifestRoutes } from "../../routes/courier/client_manifest.ts";
import type { Feature, FeatureDeps } from "../feature.ts";
import { platformServices } from "../platform/mod.ts";
import { credentialCacheOf } from "../platform/auth/credential_cache.ts";
import { courierClientActor } from "../../actors/courier/courier_client.ts";
import { clientCredentialsChanged } from "./auth.ts";
import { completeStalledBookings } from "./reactors/stalled_bookings.ts";
import { ShipmentAlertRaiser } from "./reactors/alert_raiser.ts";
import { BillingEvents } from "./reactors/billing_events.ts";
import { startBillingWait } from "./reactors/billing_wait.ts";
import { loggedEventOf } from "./queries/outbound_log.ts";
import { outboundEventActor } from "../../actors/platform/outbound_event/mod.ts";
import { BookingCrossings } from "./reactors/booking_crossings.ts";
import { ClientWebhooks } from "./reactors/client_webhooks.ts";
import { CustomsCharges } from "./reactors/customs_charges.ts";
import { outboundAlerts } from "./reactors/delivery_alerts.ts";
import { targetResolver } from "./reactors/delivery_targets.ts";
import { startLedgerProjector } from "./reactors/ledger_projection.ts";
import { RunFollowUps } from "./reactors/run_follow_ups.ts";
import { ScanCharges } from "./reactors/scan_charges.ts";
import { LabCharges } from "./reactors/lab_charges.ts";
import { startReadTables } from "./queries/read_tables.ts";
import { logAlertsRaised, watchOpenAlerts } from "./observe.ts";
import { ChargedEntries } from "./reactors/charged_entries.ts";
import { ClosedOnRuns } from "./reactors/closed_on_runs.ts";
import { ColdReservations } from "./reactors/cold_reservations.ts";
import { PresentationsWithdrawn } from "./reactors/presentations_withdrawn.ts";
import { chargedEntryFill } from "./flows/billing/entry_fill.ts";
import { chargedEntryActor } from "../../actors/courier/charged_entry/mod.ts";
import type { OldDataPass } from "../runtime/old_data.ts";

export const courierFeature: Feature = {
  name: "courier",
  actors: COURIER_ACTORS,
  routers: [
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
    // In this order: a run's /stops, /driver and /expenses are registered before its /{action}.
    runRoutes,
    runActionRoutes,
    driverRunRoutes,
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
  ],
  start(deps) {
    const { runtime, bus, db } = deps;
    const { deferral, delivery, attemptFirst } = platformServices(deps);
    const targets = targetResolver(runtime, deps.clock);
    // spec: courier 6.1, 6.2: the courier's and its clients' endpoints; 6.3 their alerts.
    // Only the courier's and its clients' recipients: another document's (the business's
    // shopping webhook) is left to its own hook (undefined lets the next one answer).
    const alerts = outboundAlerts(runtime, db);
    delivery.add({
      targets: (tenant, r) =>
        r.kind === "courier" || r.kind === "client"
          ? targets(tenant, r)
          : Promise.resolve(undefined),
      ...alerts,
    });
    const ledger = startLedgerProjector({
      bus,
      db,
      env: deps.busPrefix,
      handledBy: runtime.placement,
    });
    // The lists' typed read tables (migration 0016), from the actors' snapshots.
    const readTables = startReadTables({
      bus,
      db,
      env: deps.busPrefix,
      handledBy: runtime.placement,
    });
    // Issue 36 item 2: a charge's event delivered at its first attempt is a delivery-log row,
    // which the runtime answers for the event's actor until a requeue or acknowledgement makes it.
    runtime.coldSource(outboundEventActor.type, (tenant, id) => loggedEventOf(db, tenant, id));
    // spec: courier 2.6 rule 5: an entry booked before accounts told their charged entries is
    // read from its account's log on first use.
    runtime.coldSource(chargedEntryActor.type, chargedEntryFill(runtime));
    const billingEvents = new BillingEvents({ runtime, bus, db, targets, deferral, attemptFirst });
    watchOpenAlerts(deps);
    credentialCacheOf(runtime)?.follow(courierClientActor.type, clientCredentialsChanged);
    return {
      projections: { ledger, read_tables: readTables },
      reactors: {
        billing_events: billingEvents,
        // Its charges stay due in the shipment, on the shipment's own timer: nothing to defer.
        scan_charges: new ScanCharges({ runtime, bus }),
        // The same for clearance fees: due in the crossing, on the crossing's own timer.
        customs_charges: new CustomsCharges({ runtime, bus }),
        // The same for cold-chain charges: due in the lab sample, on the sample's own timer.
        lab_charges: new LabCharges({ runtime, bus }),
        alert_raiser: new ShipmentAlertRaiser({ runtime, bus, deferral }),
        client_webhooks: new ClientWebhooks({ runtime, bus, deferral }),
        booking_crossings: new BookingCrossings({ runtime, bus, deferral }),
        // What a run's change left due: the run's own timer makes it due again until done.
        run_follow_ups: new RunFollowUps({ runtime, bus, log: deps.log }),
        charged_entries: new ChargedEntries({ runtime }),
        // spec: courier 3.4: the runs holding a shipment operations closed end its item.
        closed_on_runs: new ClosedOnRuns({ runtime }),
        // spec: courier 2.10: a cold-slot reservation its profile's request left pending.
        cold_reservations: new ColdReservations({ runtime }),
        // spec: courier 3.4, 3.2: a presentation the crossing withdrew, withdrawn on the shipment.
        presentations_withdrawn: new PresentationsWithdrawn({ runtime }),
        // spec: courier 3.1: the hourly retry of the charge events that wait for an endpoint.
        billing_wait: startBillingWait({
          runtime,
          db,
          targets,
          onEndpointMissing: alerts.onEndpointMissing,
        }),
        alerts_raised_log: logAlertsRaised(deps),
      },
      // Charges and completed shipments whose billing event, or bookings whose shipment, a crash
      // or a failure outlasting the handlers' retries kept from being made are found on the
      // query side.
      sweeps: {
        "billing event sweep": (now) => billingEvents.sweep(db, now),
        "completion event sweep": (now) => billingEvents.sweepCompletions(db, now),
        "stalled booking sweep": (now) => completeStalledBookings(deps, now),
      },
      migrations: oldDataPasses(deps),
    };
  },
};

/**
 * Issue 42 item 9: records stored before earlier fixes, brought to today's rules, once per
 * version; the shipment's load and unseal still take what an older instance writes.
 */
function oldDataPasses(deps: FeatureDeps): Record<string, OldDataPass> {
  const { runtime } = deps;
  return {
    "claims filed before one a shipment": {
      version: 1,
      run: () => nameClaimsFiledBefore(runtime),
    },
    "shipments stored returning before the returning rule": {
      version: 1,
      run: () => restateReturningShipments(runtime),
    },
    "client webhook seals made before seals were bound": {
      version: 1,
      run: () => bindClientSeals(runtime, deps.dataKey),
    },
    // Issue 34 item 2: notes are judged on charged entries, told by each commit since.
    "entries booked before charged entries were told": {
      version: 1,
      run: () => fillChargedEntries(runtime),
    },
  };
}
