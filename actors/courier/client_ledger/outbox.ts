/**
 * The billing event a money fact of a client account calls for (courier 2.7, 6.1), added to the
 * account's outbox in the commit that books the fact: so a charge and the order to announce it
 * are durable together, and the event is made after the commit (src/courier/reactors/
 * billing_charges.ts), or after a crash by the runtime's outbox sweep.
 */
import type { OutboxAdd } from "../../../src/runtime/actor.ts";
import { chargeEventType } from "../../../src/courier/rules/billing_events.ts";
import type { CourierClientEvent, CourierClientState } from "../courier_client/messages.ts";

/** The outbox of the billing events of client accounts' charges. */
export const BILLING_CHARGE_OUTBOX = "billing_charge";

/** What the billing event of one account event is made from: the client billed, and the event. */
export interface BillingChargeItem {
  readonly client: { readonly id: string; readonly code: string; readonly name: string };
  readonly event: CourierClientEvent;
}

/** The item of an event that reports a charge, or its conversion resolved; none for others. */
export function billingOutbox(
  event: CourierClientEvent,
  next: CourierClientState,
): readonly OutboxAdd[] {
  if (next === null || !reportsCharge(event)) return [];
  const item: BillingChargeItem = {
    client: { id: next.id, code: next.code, name: next.name },
    event,
  };
  return [{ outbox: BILLING_CHARGE_OUTBOX, payload: item }];
}

function reportsCharge(event: CourierClientEvent): boolean {
  switch (event.kind) {
    case "booking_charged":
      return event.entry !== undefined && chargeEventType(event.entry) !== null;
    case "entry_posted":
    case "cod_remitted":
      return chargeEventType(event.entry) !== null;
    case "fx_resolved":
      return true;
    default:
      return false;
  }
}
