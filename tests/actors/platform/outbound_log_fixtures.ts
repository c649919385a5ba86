/** The event the delivery-log tests make: a charge's billing event to the courier. */
import type { NewOutboundEvent } from "../../../actors/platform/outbound_event/mod.ts";

export const T0 = Date.parse("2026-11-02T08:00:00Z");

export const EVENT: NewOutboundEvent = {
  event_id: "evt_1",
  stream: "billing",
  event_type: "shipment.booked",
  raw_body: JSON.stringify({ api_version: "v1", event_id: "evt_1", amount: "65.50" }),
  recipient: { kind: "courier" },
  entry: { client_id: "cli_1", reference: "WB1", kind: "shipment" },
  client_id: "cli_1",
};
