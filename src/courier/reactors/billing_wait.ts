/**
 * The hourly retry of a courier's charge events waiting for an endpoint (courier 3.1), kept as
 * delivery-log rows (issue 36 item 2): one pass per courier when its `billing_wait` timer fires
 * (actors/courier/billing_wait.ts), handed over by that actor's outbox. With an endpoint set since,
 * each event due is made an actor, due now, and the delivery engine sends it as any other; with
 * none still, each is noted tried again in an hour, and its alert raised as the delivery engine
 * raises it for an actor's retry (billing_endpoint_missing unless its entry went out in a CSV
 * export). Then the timer is armed for the next event due.
 *
 * A pass that fails (the endpoint unreadable, an alert refused) throws before it notes a page,
 * so the outbox sweep hands the pass over again and nothing due is skipped.
 */
import {
  BILLING_WAIT_OUTBOX,
  billingWaitActor,
  type BillingWaitItem,
} from "../../../actors/courier/billing_wait.ts";
import {
  outboundEventActor,
  type Recipient,
  summaryOf,
} from "../../../actors/platform/outbound_event/mod.ts";
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Reactor } from "../../environment.ts";
import type { DeliveryTarget } from "../../platform/reactors/deliver.ts";
import type { AlertCallback } from "../../platform/reactors/outbound_alerts.ts";
import { NO_ENDPOINT_RETRY_MS } from "../../platform/rules/delivery_schedule.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import {
  loggedEventOfRow,
  type LogRow,
  nextWaitingAt,
  noteWaitingRetry,
  waitingDue,
} from "../queries/outbound_log.ts";

/** Rows one statement of a pass reads. */
const WAITING_PAGE = 200;
/**
 * The least time between two passes of one courier: events made a moment apart are retried in
 * one pass, at most this late, rather than a pass each.
 */
export const WAITING_PASS_GAP_MS = 60_000;

const COURIER: Recipient = { kind: "courier" };

export interface BillingWaitOptions {
  readonly runtime: ActorRuntime;
  readonly db: Kysely<Database>;
  /** The courier's endpoint, or null when none is set (delivery_targets.ts). */
  readonly targets: (tenant: string, recipient: Recipient) => Promise<DeliveryTarget | null>;
  /** What an actor's retry that finds no endpoint raises (delivery_alerts.ts). */
  readonly onEndpointMissing: AlertCallback;
}

/** Handles the passes the couriers' `billing_wait` timers hand over. */
export function startBillingWait(o: BillingWaitOptions): Reactor {
  const release = o.runtime.handleOutbox(BILLING_WAIT_OUTBOX, async (item) => {
    await retryWaiting(o, item.tenant, (item.payload as BillingWaitItem).at);
  });
  return {
    close() {
      release();
      return Promise.resolve();
    },
  };
}

/** Asks the courier's timer to fire by `at`, when its next waiting event is due. */
export async function waitFor(runtime: ActorRuntime, tenant: string, at: number): Promise<void> {
  const r = await runtime.ask(billingWaitActor, tenant, tenant, { kind: "wait", at });
  if (!r.ok) throw new Error(`billing wait of ${tenant}: ${r.code}: ${r.message}`);
}

/**
 * One pass over a courier's waiting events due by now; answers how many it retried. `dueAt`: when
 * the pass was due (the next is at least WAITING_PASS_GAP_MS after it).
 */
export async function retryWaiting(
  o: BillingWaitOptions,
  tenant: string,
  dueAt: number,
): Promise<number> {
  const now = o.runtime.clock.now();
  // A failed lookup throws: the pass is handed over again.
  const target = await o.targets(tenant, COURIER);
  let retried = 0;
  let after: { at: number; id: string } | null = null;
  for (;;) {
    const rows = await waitingDue(o.db, tenant, now, WAITING_PAGE, after);
    if (rows.length === 0) break;
    if (target) await madeDue(o.runtime, tenant, rows);
    else await stillMissing(o, tenant, rows, now);
    retried += rows.length;
    if (rows.length < WAITING_PAGE) break;
    const last = rows.at(-1)!;
    after = { at: Number(last.next_attempt_at), id: last.id };
  }
  const next = await nextWaitingAt(o.db, tenant);
  if (next !== null) await waitFor(o.runtime, tenant, Math.max(next, dueAt + WAITING_PASS_GAP_MS));
  return retried;
}

/** An endpoint is set since: each event is made an actor, due now (the engine sends it). */
async function madeDue(runtime: ActorRuntime, tenant: string, rows: readonly LogRow[]) {
  const answers = await Promise.all(
    rows.map((r) => runtime.ask(outboundEventActor, tenant, r.id, { kind: "due" })),
  );
  const refused = answers.find((a) => !a.ok);
  if (refused && !refused.ok) {
    throw new Error(`waiting event of ${tenant}: ${refused.code}: ${refused.message}`);
  }
}

/**
 * Still no endpoint: each event's retry is noted, and what it raises raised first, so a refused
 * alert leaves the page due for the pass handed over again (raising is idempotent). The page's
 * events are raised together, not one after another: each is its own alert, and asked in one
 * turn, their export lookups go to the query side as one statement (exportedLookup) and their
 * alerts' reads and writes in shared commits, where one by one a page cost a round trip each.
 */
async function stillMissing(
  o: BillingWaitOptions,
  tenant: string,
  rows: readonly LogRow[],
  now: number,
): Promise<void> {
  const retryAt = now + NO_ENDPOINT_RETRY_MS;
  await Promise.all(rows.map((row) => {
    const state = loggedEventOfRow({ ...row, endpoint_missing_at: now, next_attempt_at: retryAt });
    return state ? o.onEndpointMissing(tenant, summaryOf(state)) : undefined;
  }));
  await noteWaitingRetry(o.db, tenant, rows.map((r) => r.id), { now, retryAt });
}
