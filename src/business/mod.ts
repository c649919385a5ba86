/**
 * The Business API (its document): companies book rides and deliveries from their own systems.
 * Its reference data and the one fare calculator; bookings and trips (the trip actor, the
 * booking flow and its sweep, the trips' typed read table); and its webhooks (the outbox its
 * actors add events to, sent through the platform's delivery engine).
 */
import { BUSINESS_ACTORS } from "../../actors/business/mod.ts";
import { fareRoutes } from "../../routes/business/fares.ts";
import { geocodeRoutes } from "../../routes/business/geocode.ts";
import { checkoutRoutes } from "../../routes/business/checkouts.ts";
import { referenceDataRoutes } from "../../routes/business/reference_data.ts";
import { tripsRoutes } from "../../routes/business/trips.ts";
import { batchRoutes } from "../../routes/business/batches.ts";
import { webhookRoutes } from "../../routes/business/webhooks.ts";
import { driverAppRoutes } from "../../routes/business/driver_app.ts";
import { driverTripsRoutes } from "../../routes/business/driver_trips.ts";
import { custodyLabelRoutes } from "../../routes/business/custody_labels.ts";
import { tripProofRoutes } from "../../routes/business/trip_proof.ts";
import { tripDocumentRoutes } from "../../routes/business/trip_documents.ts";
import { trackingRoutes } from "../../routes/business/tracking.ts";
import { chatRoutes } from "../../routes/business/chat.ts";
import type { Feature, FeatureDeps, FeatureParts } from "../feature.ts";
import { startBusinessReadTables } from "./queries/trips.ts";
import { startBookingOutboxes } from "./reactors/booking_outboxes.ts";
import { startSubscriptionOccurrences } from "./reactors/subscription_occurrences.ts";
import { subscriptionRoutes } from "../../routes/business/subscriptions.ts";
import { BusinessWebhooks } from "./reactors/business_webhooks.ts";
import { LIVE_POSITIONS, LivePositions } from "./reactors/live_positions.ts";
import { PositionSignals } from "./reactors/position_signals.ts";
import { dispatchBoardRoutes } from "../../routes/business/dispatch_board.ts";
import { DISPATCHER, Dispatcher } from "./reactors/dispatcher.ts";
import { reserveFromSequence, TRIP_NUMBERS, TripNumberBlocks } from "./flows/trip_numbers.ts";
import { dispatchRoutes } from "../../routes/business/dispatch.ts";
import { sandboxCredentialsRoutes } from "../../routes/business/sandbox_credentials.ts";
import { sandboxChannelRoutes } from "../../routes/business/sandbox_channels.ts";
import { sandboxSignupRoutes } from "../../routes/business/sandbox_signup.ts";
import { sandboxWalletRoutes } from "../../routes/business/sandbox_wallet.ts";
import { sandboxMessageRoutes } from "../../routes/business/sandbox_messages.ts";
import { sandboxStepsRoutes } from "../../routes/business/sandbox_steps.ts";
import { sandboxAutopilotRoutes } from "../../routes/business/sandbox_autopilot.ts";
import { startSandboxAutopilot } from "./reactors/sandbox_autopilot.ts";
import { sandboxInboxRoutes } from "../../routes/business/sandbox_inbox.ts";
import { platformServices } from "../platform/mod.ts";
import { startSandboxInbox } from "./queries/sandbox_inbox.ts";
import { sandboxInboxReceivers } from "./reactors/sandbox_inbox.ts";
import { SandboxReadiness } from "./reactors/sandbox_readiness.ts";
import { AddressBookKeeper } from "./reactors/address_book.ts";
import { servesSandbox } from "./rules/sandbox.ts";

export const businessFeature: Feature = {
  name: "business",
  actors: BUSINESS_ACTORS,
  routers: [
    referenceDataRoutes,
    fareRoutes,
    geocodeRoutes,
    checkoutRoutes,
    tripsRoutes,
    subscriptionRoutes,
    batchRoutes,
    webhookRoutes,
    driverAppRoutes,
    trackingRoutes,
    // Before the driver's trip actions: /driver/trips/{reference}/chat is not an {action}.
    chatRoutes,
    driverTripsRoutes,
    custodyLabelRoutes,
    tripProofRoutes,
    tripDocumentRoutes,
    dispatchBoardRoutes,
    dispatchRoutes,
    sandboxCredentialsRoutes,
    sandboxChannelRoutes,
    sandboxSignupRoutes,
    sandboxWalletRoutes,
    sandboxMessageRoutes,
    sandboxStepsRoutes,
    sandboxAutopilotRoutes,
    sandboxInboxRoutes,
  ],
  start: (deps) => startBusiness(deps),
};

function startBusiness(deps: FeatureDeps): FeatureParts {
  const positions = new LivePositions(deps.db);
  const signals = new PositionSignals(positions, { bus: deps.bus, env: deps.busPrefix });
  // spec: business 3.1: every position reaches the dispatch index at once.
  const dispatcher = new Dispatcher(deps);
  // spec: business 2.2: trip ids from blocks this instance reserved, one allocator per environment.
  const numbers = new TripNumberBlocks(reserveFromSequence(deps), () => deps.clock.now());
  const booking = { ...deps, numbers };
  positions.watch((id, p) => dispatcher.moved(id, p));
  const { delivery, deferral } = platformServices(deps);
  // spec: business 4.4: webhooks to the sandbox inbox are kept, not sent (one seam in the engine).
  delivery.add({ receivers: sandboxInboxReceivers(deps) });
  const onSandbox = servesSandbox(deps.name);
  // Each change projected once, by its actor's holder (issue 43 item 3).
  const projecting = {
    bus: deps.bus,
    db: deps.db,
    env: deps.busPrefix,
    handledBy: deps.runtime.placement,
  };
  return {
    // The trips list's typed read table (migration 0019).
    projections: {
      business_read_tables: startBusinessReadTables(projecting),
      // The sandbox inbox's list (migration 0025).
      sandbox_inbox: startSandboxInbox(projecting),
    },
    reactors: {
      // First, so closed last: the bookings of the reactors below take their numbers from it.
      [TRIP_NUMBERS]: numbers,
      booking_outboxes: startBookingOutboxes(booking),
      // spec: business 4.2: each due occurrence of a recurring delivery booked once.
      subscription_occurrences: startSubscriptionOccurrences(booking),
      // spec: business 4.4: each autopiloted trip's due step, run once its timer's commit is done.
      sandbox_autopilot: startSandboxAutopilot(deps),
      // spec: business 6: each event sent once its transition commits (the outbox's handler).
      business_webhooks: new BusinessWebhooks({
        runtime: deps.runtime,
        log: deps.log,
        publicUrl: deps.linkBase,
      }),
      // spec: business 1.2: positions in memory at once, kept durably in batches.
      [LIVE_POSITIONS]: positions,
      // The dispatch board: each driver's newest position, coalesced per pump.
      position_signals: signals,
      [DISPATCHER]: dispatcher,
      // spec: business 4.1 geocode: the places its trips named, saved once each trip commits.
      address_book: new AddressBookKeeper(deps, { runtime: deps.runtime, bus: deps.bus, deferral }),
      // spec: business appendix 3: what the business's own receiver handled (sandbox only).
      ...(onSandbox
        ? {
          sandbox_readiness: new SandboxReadiness(deps, {
            runtime: deps.runtime,
            bus: deps.bus,
            deferral,
          }),
        }
        : {}),
    },
    pumps: { [LIVE_POSITIONS]: () => positions.flush(), position_signals: () => signals.publish() },
    // A crash keeps no trip waiting for a driver in memory only (spec: business 3.1).
    sweeps: { waiting_trips: () => dispatcher.sweep(deps.db) },
  };
}
