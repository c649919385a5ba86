/** A client's settlement settings (courier 2.5), changed only as its balances allow (4.2). */
import { accept, type Decision, reject } from "../../../src/runtime/actor.ts";
import { isOpen } from "../../../src/courier/rules/ledger.ts";
import { hasBalances } from "../client_ledger.ts";
import type { CourierClient } from "./state.ts";
import type {
  CourierClientCommand,
  CourierClientEvent,
  CourierClientReply,
  CourierClientState,
} from "./messages.ts";

export function changeSettings(
  state: CourierClient,
  c: Extract<CourierClientCommand, { kind: "change_settings" }>,
): Decision<CourierClientState, CourierClientEvent, CourierClientReply> {
  const was = state.settings;
  if (
    c.basis &&
    (c.basis.billing_currency !== was.billing_currency || c.basis.rate_card_id !== was.rate_card_id)
  ) {
    return reject(
      "settings_changed",
      `the client's billing currency or rate card changed meanwhile: ${was.billing_currency}, ${was.rate_card_id}`,
    );
  }
  const currency = c.changes.billing_currency;
  const moves = currency !== undefined && currency !== was.billing_currency;
  // spec: courier 2.6 rule 4: a rate awaited is one unit of the charge's currency in the billing
  // currency it was charged under; resolved under another (even the charge's own) it books a
  // conversion that never happened.
  if (moves && (hasBalances(state) || state.ledger.unresolved.length > 0)) {
    return reject(
      "balance_not_settled",
      `the billing currency changes only with the balances settled and conversions resolved: ${was.billing_currency}`,
    );
  }
  // spec: courier 4.2: each mode settles its own balances (a credit receivable is paid, prepaid
  // funds are spent): under another mode they could never be settled. A conversion awaiting its
  // rate would post under the new mode what was charged under the old.
  // An open invoice too: a credit note not yet invoiced can offset it to a zero balance, and
  // neither external (no invoice, no payment) nor prepaid (no payment) could then settle it.
  const mode = c.changes.settlement_mode;
  if (
    mode !== undefined && mode !== was.settlement_mode &&
    (hasBalances(state) || state.ledger.unresolved.length > 0 ||
      state.ledger.invoices.some(isOpen))
  ) {
    return reject(
      "balance_not_settled",
      `settlement_mode changes only with the balances settled, invoices paid and conversions resolved: ${was.settlement_mode}`,
    );
  }
  // spec: courier 4.2: external posts no invoice, so entries not yet invoiced would stay so for
  // good (an owed of 0 says nothing of them: a payment may have met them): invoice them first.
  const uninvoiced = mode === "external" && was.settlement_mode !== "external"
    ? Object.keys(state.ledger.periods).filter((k) => state.ledger.periods[k]!.count > 0).sort()
    : [];
  if (uninvoiced.length > 0) {
    const periods = [...new Set(uninvoiced.map((k) => k.slice(0, k.indexOf("|"))))];
    return reject(
      "balance_not_settled",
      `settlement_mode becomes external only once every entry is invoiced: invoice ${
        periods.join(", ")
      } first`,
    );
  }
  // spec: courier 2.5: the credit limit is an amount in the billing currency; its minor units
  // would mean another amount in another, so a move of currency names the limit again.
  if (moves && c.changes.credit_limit_minor === undefined && was.credit_limit_minor !== 0) {
    const message =
      `give the credit limit in ${currency} with the change from ${was.billing_currency}`;
    return reject("validation_failed", `invalid request: credit_limit: ${message}`, {
      errors: [{ path: "credit_limit", message }],
    });
  }
  return accept(
    [{ kind: "settings_changed", changes: c.changes, by: c.by }],
    (s) => s ?? undefined,
  );
}
