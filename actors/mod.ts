/** Every actor type the runtime hosts. */
import type { AnyActorDefinition } from "../src/runtime/actor.ts";
import { businessActor } from "./business.ts";
import { driverActor } from "./driver.ts";
import { platformSettingsActor } from "./platform_settings.ts";
import { sessionActor } from "./session.ts";
import { courierClientActor } from "./courier_client.ts";
import { walletActor } from "./wallet.ts";
import { priceOfferActor } from "./price_offer.ts";
import { referenceClaimActor } from "./reference_claim.ts";
import { bookingRequestActor } from "./booking_request.ts";
import { shipmentActor } from "./shipment.ts";
import { rateCardActor } from "./rate_card.ts";
import { courierCatalogueActor } from "./courier_catalogue.ts";
import { outboundEventActor } from "./outbound_event.ts";
import { operationsViewsActor } from "./operations_views.ts";
import { networkRunActor } from "./network_run.ts";
import { alertActor } from "./alert.ts";
import { evidenceFileActor } from "./evidence_file.ts";
import { customsCrossingActor } from "./customs_crossing.ts";
import { labSampleActor } from "./lab_sample.ts";
import { complianceChecklistActor } from "./compliance_checklists.ts";
import { claimActor } from "./claim.ts";
import { clientStoreActor } from "./client_store.ts";
import { retailPacketActor } from "./retail_packet.ts";
import { clientAddressActor } from "./client_address.ts";
import { waybillSequenceActor } from "./waybill_sequence.ts";
import { deferredWorkActor } from "./deferred_work.ts";
import { shipmentRunsActor } from "./shipment_runs.ts";
import { mailMessageActor } from "./mail_message.ts";

export const ACTORS: readonly AnyActorDefinition[] = [
  businessActor,
  driverActor,
  platformSettingsActor,
  sessionActor,
  courierClientActor,
  walletActor,
  priceOfferActor,
  referenceClaimActor,
  bookingRequestActor,
  shipmentActor,
  rateCardActor,
  courierCatalogueActor,
  outboundEventActor,
  operationsViewsActor,
  networkRunActor,
  alertActor,
  evidenceFileActor,
  customsCrossingActor,
  labSampleActor,
  complianceChecklistActor,
  claimActor,
  clientStoreActor,
  retailPacketActor,
  clientAddressActor,
  waybillSequenceActor,
  deferredWorkActor,
  shipmentRunsActor,
  mailMessageActor,
];
