/** The courier platform's actor types (courier platform API v1). */
import type { AnyActorDefinition } from "../../src/runtime/actor.ts";
import { courierClientActor } from "./courier_client.ts";
import { priceOfferActor } from "./price_offer.ts";
import { referenceClaimActor } from "./reference_claim.ts";
import { bookingRequestActor } from "./booking_request.ts";
import { shipmentActor } from "./shipment/mod.ts";
import { rateCardActor } from "./rate_card.ts";
import { courierCatalogueActor } from "./courier_catalogue.ts";
import { operationsViewsActor } from "./operations_views.ts";
import { networkRunActor } from "./network_run/mod.ts";
import { alertActor } from "./alert.ts";
import { evidenceFileActor } from "./evidence_file.ts";
import { customsCrossingActor } from "./customs_crossing/mod.ts";
import { labSampleActor } from "./lab_sample/mod.ts";
import { complianceChecklistActor } from "./compliance_checklists.ts";
import { claimActor } from "./claim/mod.ts";
import { clientStoreActor } from "./client_store.ts";
import { retailPacketActor } from "./retail_packet.ts";
import { clientAddressActor } from "./client_address.ts";
import { waybillSequenceActor } from "./waybill_sequence.ts";
import { shipmentRunsActor } from "./shipment_runs.ts";
import { chargedEntryActor } from "./charged_entry/mod.ts";
import { billingWaitActor } from "./billing_wait.ts";

export const COURIER_ACTORS: readonly AnyActorDefinition[] = [
  courierClientActor,
  priceOfferActor,
  referenceClaimActor,
  bookingRequestActor,
  shipmentActor,
  rateCardActor,
  courierCatalogueActor,
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
  shipmentRunsActor,
  chargedEntryActor,
  billingWaitActor,
];
