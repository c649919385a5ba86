/**
 * Charge events made while their courier has no endpoint, written as waiting rows (courier 3.1,
 * issue 36 item 2) in batches: the outbox handlers of one group commit's charges each add their
 * event, and one statement writes them all, where a statement each cost the query side more
 * than the actor it replaces. Then each courier's `billing_wait` timer is asked once, for the
 * earliest retry of its rows in the batch.
 */
import type { Kysely } from "kysely";
import type { WaitingForEndpoint } from "../../../actors/platform/outbound_event/mod.ts";
import type { Database } from "../../db/schema.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { writeWaitingLogs } from "../queries/outbound_log.ts";
import { waitFor } from "./billing_wait.ts";

/** Rows one statement writes at most (19 parameters each, well under Postgres' 65,535). */
const WAITING_ROWS_BATCH_MAX = 500;

interface Added {
  readonly tenant: string;
  readonly log: WaitingForEndpoint;
  readonly resolve: (written: boolean) => void;
  readonly reject: (error: unknown) => void;
}

export class WaitingRows {
  readonly #runtime: ActorRuntime;
  readonly #db: Kysely<Database>;
  #queue: Added[] = [];

  constructor(runtime: ActorRuntime, db: Kysely<Database>) {
    this.#runtime = runtime;
    this.#db = db;
  }

  /**
   * Writes the event's row and arms its courier's timer: true once both are done, false when
   * the query side refused the rows (the event is then made an actor instead). A timer that
   * could not be armed throws: the outbox item stays, and its handling again finds the row.
   */
  add(tenant: string, log: WaitingForEndpoint): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ tenant, log, resolve, reject });
      // The handlers of one commit's items start in one turn: the next one takes them together.
      if (this.#queue.length === 1) setTimeout(() => this.#flush(), 0);
    });
  }

  async #flush(): Promise<void> {
    const batch = this.#queue.splice(0, WAITING_ROWS_BATCH_MAX);
    if (this.#queue.length > 0) setTimeout(() => this.#flush(), 0);
    const written = await writeWaitingLogs(this.#db, batch).then(() => true, () => false);
    if (!written) {
      for (const a of batch) a.resolve(false);
      return;
    }
    const earliest = new Map<string, number>();
    for (const { tenant, log } of batch) {
      earliest.set(tenant, Math.min(earliest.get(tenant) ?? Infinity, log.retry_at));
    }
    const armed = new Map(
      [...earliest].map(([tenant, at]) => [tenant, waitFor(this.#runtime, tenant, at)]),
    );
    for (const a of batch) armed.get(a.tenant)!.then(() => a.resolve(true), a.reject);
  }
}
