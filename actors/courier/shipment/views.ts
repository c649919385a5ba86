/** What the shipment shows outside its actor. */
import type { LoggedShipmentEvent, Shipment, ShipmentEvent } from "./types.ts";

/** What the query side keeps for search and lists: references, parties, money, no token. */
export function shipmentSearchView(s: Shipment) {
  // Charges due are the actor's own work list (scan_charges.ts), not the shipment's story.
  const { tracking_token: _t, tracking_token_hash: _h, charges_due: _c, run_steps: _r, ...rest } =
    s;
  return { ...rest, ...s.references };
}

/**
 * An event as the log and the bus keep it: `shipment_booked` without the record, which the
 * commit stores once as the state and the change carries once as its snapshot.
 */
export function loggedEvent(e: ShipmentEvent): LoggedShipmentEvent {
  if (e.kind !== "shipment_booked") return e;
  const s = e.shipment;
  return {
    kind: "shipment_booked",
    waybill: s.waybill,
    booked_at: s.booked_at,
    status: s.status,
    health: s.health,
  };
}
