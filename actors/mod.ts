/** Every actor type the runtime hosts. */
import type { AnyActorDefinition } from "../src/runtime/actor.ts";
import { businessActor } from "./platform/business.ts";
import { driverActor } from "./platform/driver.ts";
import { platformSettingsActor } from "./platform/platform_settings.ts";
import { sessionActor } from "./platform/session.ts";
import { courierClientActor } from "./courier/courier_client.ts";
import { walletActor } from "./platform/wallet.ts";
import { priceOfferActor } from "./courier/price_offer.ts";
import { referenceClaimActor } from "./courier/reference_claim.ts";
import { bookingRequestActor } from "./courier/booking_request.ts";
import { shipmentActor } from "./courier/shipment.ts";
import { rateCardActor } from "./courier/rate_card.ts";
import { courierCatalogueActor } from "./courier/courier_catalogue.ts";
import { outboundEventActor } from "./platform/outbound_event.ts";
import { operationsViewsActor } from "./courier/operations_views.ts";
import { networkRunActor } from "./courier/network_run.ts";
import { alertActor } from "./courier/alert.ts";
import { evidenceFileActor } from "./courier/evidence_file.ts";
import { customsCrossingActor } from "./courier/customs_crossing.ts";
import { labSampleActor } from "./courier/lab_sample.ts";
import { complianceChecklistActor } from "./courier/compliance_checklists.ts";
import { claimActor } from "./courier/claim.ts";
import { clientStoreActor } from "./courier/client_store.ts";
import { retailPacketActor } from "./courier/retail_packet.ts";
import { clientAddressActor } from "./courier/client_address.ts";
import { waybillSequenceActor } from "./courier/waybill_sequence.ts";
import { deferredWorkActor } from "./platform/deferred_work.ts";
import { shipmentRunsActor } from "./courier/shipment_runs.ts";
import { mailMessageActor } from "./platform/mail_message.ts";

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
