/**
 * A claim's approved amount on the client's ledger (courier 2.4 liability cover, 2.6 rule 5,
 * 4.6 claims): a credit note on the shipment's booked price up to what that entry still holds,
 * and the rest, compensation above the price (cover is on the declared value), as an entry of
 * its own kind, since a credit note never takes its entry below zero.
 */

/** How a claim's credit divides: both signed like entries (negative: the client is owed). */
export interface CompensationSplit {
  /** The credit note on the booked price: from 0 down to minus what the entry still holds. */
  readonly note_minor: number;
  /** What the claim pays above the booked price: the `compensation` entry, 0 or negative. */
  readonly above_minor: number;
}

/**
 * Divides `credit_minor` (negative, in the entry's minor units) given what the entry still
 * holds with its notes (`net_minor`, which earlier credit may have taken to zero or below).
 * Integer minor units throughout: the two parts always add up to the credit, nothing rounds.
 */
export function compensationSplit(net_minor: number, credit_minor: number): CompensationSplit {
  const room = Math.max(net_minor, 0);
  const note = Math.max(credit_minor, -room);
  // No room gives -0, which deepEqual and JSON tell apart from 0 no better than people do.
  return { note_minor: note === 0 ? 0 : note, above_minor: credit_minor - note };
}
