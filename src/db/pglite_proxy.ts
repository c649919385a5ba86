/**
 * PGlite in a Worker, seen from the serving thread: `query` queues the statement, the queries
 * queued in one turn go in one message, and their answers come back in order. A worker that dies
 * is started again on the same data folder: what it had not answered fails with a transient
 * error (class 57, so the projections' write queues try again) and the session is new, so a
 * transaction begun before cannot go on (`generation`).
 */
import type { Artifacts } from "./pglite.ts";
import {
  type Answer,
  errorFromWire,
  type FromWorker,
  type QueryResults,
  type ToWorker,
  type WireError,
  type WireQuery,
} from "./pglite_wire.ts";

export interface PGliteWorkerOptions {
  /** PGlite's data folder; in memory when absent (a worker that dies is then not restarted). */
  readonly dataDir?: string;
  /** A dump to start an empty data folder (or memory) from, at the first open only. */
  readonly loadDataDir?: Blob;
  /** PGlite's compiled WebAssembly, so the worker does not compile it again. */
  readonly artifacts?: Artifacts;
  /** The schema every query of the session is confined to (its search_path). */
  readonly schema: string;
}

interface Pending {
  readonly query: WireQuery;
  readonly resolve: (results: QueryResults) => void;
  readonly reject: (error: unknown) => void;
}

/** The SQLSTATE of a session ended under its queries (admin_shutdown): transient. */
export const WORKER_STOPPED_CODE = "57P01";

export class PGliteWorker {
  readonly #options: PGliteWorkerOptions;
  /** The dump to start from, until the first open has it (not kept: it can be large). */
  #loadDataDir: Blob | undefined;
  #worker!: Worker;
  #ready!: Promise<void>;
  /** Queued in this turn, not yet posted. */
  #queued: Pending[] = [];
  /** Posted, in order, not yet answered. */
  #sent: Pending[] = [];
  #closed = false;
  #generation = 0;
  #restarts = 0;
  /** Why the worker is gone for good (in memory, its data died with it). */
  #gone: Error | null = null;

  private constructor(options: PGliteWorkerOptions) {
    this.#options = options;
    this.#loadDataDir = options.loadDataDir;
    this.#start();
  }

  /** A worker with its PGlite open (throws when PGlite cannot open the data folder). */
  static async open(options: PGliteWorkerOptions): Promise<PGliteWorker> {
    const proxy = new PGliteWorker(options);
    try {
      await proxy.waitReady;
    } catch (error) {
      await proxy.close();
      throw error;
    }
    return proxy;
  }

  get waitReady(): Promise<void> {
    return this.#ready;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Bumps at each restart: a session (and any transaction in it) from before is gone. */
  get generation(): number {
    return this.#generation;
  }

  /** How many times the worker died and was started again. */
  get restarts(): number {
    return this.#restarts;
  }

  query<R = Record<string, unknown>>(
    sql: string,
    params: readonly unknown[] = [],
  ): Promise<QueryResults<R>> {
    if (this.#closed) return Promise.reject(new Error("PGlite is closed"));
    if (this.#gone) return Promise.reject(this.#gone);
    return new Promise((resolve, reject) => {
      if (this.#queued.length === 0) queueMicrotask(() => this.#flush());
      this.#queued.push({ query: { sql, params }, resolve: resolve as Pending["resolve"], reject });
    });
  }

  /** Waits for what was sent, closes PGlite and ends the worker. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#flush();
    this.#closed = true;
    if (this.#gone) return; // its worker has already ended
    const worker = this.#worker;
    await new Promise<void>((resolve) => {
      worker.addEventListener("message", (e) => {
        if ((e as MessageEvent<FromWorker>).data.type === "closed") resolve();
      });
      worker.addEventListener("error", () => resolve());
      this.#post({ type: "close" });
    });
    worker.terminate();
  }

  /** Ends the worker as a crash would, and starts another (what a dying worker goes through). */
  kill(): void {
    this.#died(new Error("the PGlite worker was ended"));
  }

  #start(): void {
    const worker = new Worker(new URL("./pglite_worker.ts", import.meta.url), { type: "module" });
    this.#worker = worker;
    this.#ready = new Promise<void>((resolve, reject) => {
      worker.onmessage = (e: MessageEvent<FromWorker>) => {
        const m = e.data;
        if (m.type === "opened") resolve();
        else if (m.type === "failed") reject(errorFromWire(m.error));
        else if (m.type === "answers") this.#answered(m.answers);
        else if (m.type === "fatal") {
          this.#died(new Error(`PGlite aborted in its worker: ${m.error.message}`));
        }
      };
    });
    this.#ready.catch(() => {}); // a failed open is the queries' error too (the worker says so)
    worker.onerror = (e) => {
      e.preventDefault(); // the worker's failure is handled here, not the process's
      this.#died(new Error(`the PGlite worker failed: ${e.message}`));
    };
    worker.onmessageerror = () => this.#died(new Error("a PGlite worker message was unreadable"));
    const { dataDir, schema, artifacts } = this.#options;
    const loadDataDir = this.#loadDataDir;
    // Again at a restart, it would overwrite what was written since.
    this.#loadDataDir = undefined;
    this.#post({
      type: "open",
      schema,
      ...(artifacts === undefined ? {} : { artifacts }),
      ...(dataDir === undefined ? {} : { dataDir }),
      ...(loadDataDir === undefined ? {} : { loadDataDir }),
    });
  }

  #died(cause: Error): void {
    if (this.#closed) return;
    this.#worker.terminate();
    this.#generation++;
    const lost = [...this.#sent, ...this.#queued];
    this.#sent = [];
    this.#queued = [];
    const error = this.#options.dataDir === undefined
      ? new Error(`${cause.message}; its in-memory database is gone`, { cause })
      : Object.assign(
        new Error(`${cause.message}; it was restarted, the query may be tried again`, { cause }),
        { code: WORKER_STOPPED_CODE },
      );
    for (const p of lost) p.reject(error);
    if (this.#options.dataDir === undefined) this.#gone = error;
    else {
      this.#restarts++;
      this.#start();
    }
  }

  #flush(): void {
    if (this.#queued.length === 0) return;
    const batch = this.#queued;
    this.#queued = [];
    try {
      this.#post({ type: "queries", queries: batch.map((p) => p.query) });
    } catch (error) { // a parameter that cannot be cloned: nothing was sent
      for (const p of batch) p.reject(error);
      return;
    }
    this.#sent.push(...batch);
  }

  #answered(answers: readonly Answer[]): void {
    for (const a of answers) {
      const p = this.#sent.shift();
      if (!p) return;
      if (a.ok) p.resolve(a.results);
      else p.reject(errorFromWire(a.error as WireError));
    }
  }

  #post(message: ToWorker): void {
    this.#worker.postMessage(message);
  }
}
