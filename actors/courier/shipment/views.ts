/** What the shipment shows outside its actor. */
import type { Shipment } from "./types.ts";

/** What the query side keeps for search and lists: references, parties, money, no token. */
export function shipmentSearchView(s: Shipment) {
  // Charges due are the actor's own work list (scan_charges.ts), not the shipment's story.
  const { tracking_token: _t, tracking_token_hash: _h, charges_due: _c, ...rest } = s;
  return { ...rest, ...s.references };
}
