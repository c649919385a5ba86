/**
 * Deferred work of the bus workers (actors/platform/deferred_work.ts): a worker subscribed with a name
 * (subscribeKeyed's `deferred`) whose work on a message still fails after its retries, or that a
 * shutdown stops before it is handled, has the message kept here and tried again on a durable
 * schedule until it is done. Before, such work was logged and counted handled: an alert, a client
 * webhook event or a completion billing event lost for good to a failure lasting a few seconds.
 *
 * Every worker's work is idempotent (ids derived from what they report), so a try that repeats
 * what a failed one already did changes nothing, and two instances trying the same message only
 * repeat each other.
 */
import { deferredWorkActor, deferredWorkId } from "../../../actors/platform/deferred_work.ts";
import type { ActorChange, BusMessage } from "../../bus/bus.ts";
import type { Deferral, WorkerRun } from "../../bus/keyed.ts";
import { type ReactorOptions, reporter, UnitReactor } from "../../bus/reactor.ts";
import { retried } from "../../bus/retry.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";

export interface DeferredWorksOptions extends Pick<ReactorOptions, "bus" | "onError"> {
  readonly runtime: ActorRuntime;
}

/** A try that came due: the deferred message and the worker that runs it here. */
interface DueTry {
  readonly worker: string;
  readonly run: WorkerRun;
  readonly message: BusMessage;
}

export class DeferredWorks implements Deferral {
  readonly #runtime: ActorRuntime;
  readonly #report: (error: unknown, where: string) => void;
  readonly #workers = new Map<string, WorkerRun>();
  readonly #due: UnitReactor<DueTry>;

  constructor(options: DeferredWorksOptions) {
    this.#runtime = options.runtime;
    this.#report = reporter(options, "deferred work");
    // A try that fails is reported to the actor; one that never reports is due again anyway (the
    // next try was set before this one was made). Its own report is not retried here, nor
    // deferred: this is where deferred work goes.
    this.#due = new UnitReactor({ ...options, retry: { delaysMs: [] } }, {
      worker: "deferred_work",
      actorType: deferredWorkActor.type,
      unitsOf: (change) => this.#dueTries(change),
      work: (due, change) => this.#try(due, change),
      describe: (due) => `${due.worker} on ${due.message.subject}`,
    });
  }

  register(worker: string, run: WorkerRun): void {
    if (this.#workers.has(worker)) throw new Error(`worker ${worker} registered twice`);
    this.#workers.set(worker, run);
  }

  /**
   * Keeps `message` for `worker` to try again (the worker has reported its failure). Its own
   * commit is retried like any handler's work; a deferral that still fails is thrown (the bus
   * logs it): the last resort, a store that takes no writes at all, or a message past the
   * deferred state's bound (actors/platform/deferred_work.ts, several times a shipment's).
   */
  async defer(worker: string, message: BusMessage, error: unknown): Promise<void> {
    const change = message.payload as Partial<ActorChange>;
    const tenant = change.tenant ?? "platform";
    const id = deferredWorkId(worker, message.subject, change.version);
    const reason = describe(error);
    await retried(async () => {
      const r = await this.#runtime.ask(deferredWorkActor, tenant, id, {
        kind: "defer",
        worker,
        subject: message.subject,
        payload: message.payload,
        error: reason,
      });
      if (!r.ok) throw new Error(`deferring ${id}: ${r.code}: ${r.message}`);
    });
  }

  /** Stops taking tries and waits for those under way. */
  async close(): Promise<void> {
    await this.#due.close();
  }

  /** The try a change made due, when this instance runs its worker. */
  #dueTries(change: ActorChange): DueTry[] {
    if (change.type !== deferredWorkActor.type) return [];
    if (!change.events.some(({ event }) => (event as { kind?: string }).kind === "due")) return [];
    const work = change.snapshot as
      | { status?: string; worker?: string; subject?: string; payload?: unknown }
      | undefined;
    if (work?.status !== "waiting" || !work.worker || !work.subject) return [];
    const run = this.#workers.get(work.worker);
    // A worker this instance does not run: another instance's try, or the next one, does it.
    if (!run) return [];
    return [{
      worker: work.worker,
      run,
      message: { subject: work.subject, payload: work.payload },
    }];
  }

  /** Runs the try and reports to the deferral how it went. */
  async #try(due: DueTry, change: ActorChange): Promise<void> {
    const ask = async (command: { kind: "done" } | { kind: "failed"; error: string }) => {
      const r = await this.#runtime.ask(deferredWorkActor, change.tenant, change.id, command);
      if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
    };
    try {
      await due.run(due.message);
    } catch (error) {
      this.#report(error, `${due.worker} on ${due.message.subject} (deferred, tried again later)`);
      await ask({ kind: "failed", error: describe(error) });
      return;
    }
    await ask({ kind: "done" });
  }
}

function describe(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 500);
}
