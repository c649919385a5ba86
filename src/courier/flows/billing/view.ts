/**
 * The billing view of a client (courier 4.2 `GET .../billing`): the account's balances, credit,
 * ageing, COD and conversions from the actor, and a period's statement and the latest payments
 * from the query side.
 */
import type { CourierClient } from "../../../../actors/courier/courier_client.ts";
import { periodOf } from "../../rules/ledger.ts";
import {
  type PaymentListed,
  paymentsOf,
  type Statement,
  statementOf,
} from "../../queries/statement.ts";
import type { Deps } from "../../../environment.ts";
import { readAccount } from "./account.ts";

export interface ClientBilling {
  readonly account: CourierClient;
  /** The moment the view was read at (ageing counts days to it). */
  readonly now: number;
  readonly statement: Statement;
  readonly payments: readonly PaymentListed[];
}

/** The client's billing, with the statement of `period` (default: this month's). */
export async function clientBilling(
  deps: Pick<Deps, "runtime" | "db" | "clock" | "settle">,
  courier: string,
  client: string,
  period?: string,
): Promise<ClientBilling> {
  const account = await readAccount(deps.runtime, courier, client);
  const now = deps.clock.now();
  // spec: courier 4.2: the statement and payments are read from the query side; it first
  // holds every entry the account's balances above count, so one answer never contradicts
  // itself (a payment in the balances but missing from the statement and payments).
  await deps.settle();
  return {
    account,
    now,
    statement: await statementOf(deps.db, account.business_id, account.id, period ?? periodOf(now)),
    payments: await paymentsOf(deps.db, account.business_id, account.id),
  };
}
