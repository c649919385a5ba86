/**
 * Charge events made while their courier has no endpoint, written as waiting rows (courier 3.1,
 * issue 36 item 2) in batches: the outbox handlers of one group commit's charges each add their
 * event in one turn, and one statement writes them all (turn_batch.ts), where a statement each
 * cost the query side more than the actor it replaces. Then each courier's `billing_wait` timer
 * is asked once, for the earliest retry of its rows in the batch.
 */
import type { Kysely } from "kysely";
import type { WaitingForEndpoint } from "../../../actors/platform/outbound_event/mod.ts";
import type { Database } from "../../db/schema.ts";
import { type TurnBatch, turnBatch } from "../../db/turn_batch.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { writeWaitingLogs } from "../queries/outbound_log.ts";
import { waitFor } from "./billing_wait.ts";

/** Rows one statement writes at most (19 parameters each, well under Postgres' 65,535). */
const WAITING_ROWS_BATCH_MAX = 500;

/**
 * Writes an event's row and arms its courier's timer: true once both are done, false when the
 * query side refused the rows (the event is then made an actor instead). A timer that could not
 * be armed rejects: the outbox item stays, and its handling again finds the row.
 */
export type WaitingRows = TurnBatch<{ tenant: string; log: WaitingForEndpoint }, boolean>;

export function waitingRows(runtime: ActorRuntime, db: Kysely<Database>): WaitingRows {
  return turnBatch(WAITING_ROWS_BATCH_MAX, async (batch) => {
    const written = await writeWaitingLogs(db, batch).then(() => true, () => false);
    if (!written) return batch.map(() => false);
    const earliest = new Map<string, number>();
    for (const { tenant, log } of batch) {
      earliest.set(tenant, Math.min(earliest.get(tenant) ?? Infinity, log.retry_at));
    }
    const armed = new Map(
      [...earliest].map(([tenant, at]) => [tenant, waitFor(runtime, tenant, at)]),
    );
    return batch.map((a) => armed.get(a.tenant)!.then(() => true));
  });
}
