/**
 * The outboxes that move a pool driver's holding on (Business API 3.1 queued): a trip that ends
 * (completed, returned, cancelled) or is given back frees its driver, a driver freed of the trip
 * under way starts the one queued behind it, a batch's stop that starts so starts the batch's other
 * stops queued with it, and a batch's stop leaving its driver while others wait queued passes the
 * driver's hold on to the next (2.3, 4.2). Each is written in the commit of the fact, so a
 * crash between the trip, the driver and the queued trip is completed by the outbox's sweep.
 */

/** A trip that no longer holds its driver: the driver's holding releases it. */
export const DRIVER_RELEASE_OUTBOX = "business_driver_release";

/** A queued trip that became the driver's current one: the trip moves from queued to accepted. */
export const QUEUED_START_OUTBOX = "business_queued_start";

/**
 * spec: business 2.3, 3.1 queued: a batch's stops queued behind their driver's trip under way
 * start with the one the driver holds (the first stop, or the next once it left): its start
 * (every other stop of that driver), or a stop given queued (that one, should the batch have
 * started meanwhile).
 */
export const BATCH_START_OUTBOX = "business_batch_start";

/**
 * The batch whose stops start with the stop the driver held: `driver_id`, that stop's driver, all
 * of whose other stops start (absent, an item stored before: the first stop's driver, once it has
 * started); `stop`: only that one, given queued (absent: all).
 */
export interface BatchStartItem {
  readonly business_id: string;
  readonly batch_id: string;
  readonly driver_id?: string;
  readonly stop?: string;
}

/**
 * spec: business 2.3, 3.1 queued: a batch's stop that was cancelled or given back no longer holds
 * its driver, who keeps the batch's other stops queued with it: the driver's hold passes to the
 * next of them in the driving order (it starts when the trip under way ends, the rest with it),
 * or, with none left, is released.
 */
export const BATCH_HOLD_OUTBOX = "business_batch_hold";

/** The batch's stop `stop` that left its driver `driver_id`. */
export interface BatchHoldItem {
  readonly business_id: string;
  readonly batch_id: string;
  readonly driver_id: string;
  readonly stop: string;
}

/** The trip as a driver holds it (`<business>:<reference>`), and its driver, for either outbox. */
export interface HoldingItem {
  readonly driver_id: string;
  readonly trip: string;
}

/** A trip named across businesses (a pool driver's holding). */
export const tripKeyOf = (businessId: string, reference: string) => `${businessId}:${reference}`;

/** The business and reference of a holding's trip key (a reference may hold a colon). */
export function tripOfKey(key: string): { business_id: string; reference: string } | null {
  const at = key.indexOf(":");
  if (at <= 0 || at === key.length - 1) return null;
  return { business_id: key.slice(0, at), reference: key.slice(at + 1) };
}
