/**
 * The PGlite worker: one PGlite instance off the serving thread (pglite_proxy.ts starts it).
 * Messages are handled one after another, so queries run, and are answered, in the order sent;
 * int8 and json are parsed and serialised here, as createPGlite sets them.
 */
/// <reference lib="deno.worker" />
import type { PGlite } from "@electric-sql/pglite";
import { createPGlite } from "./pglite.ts";
import {
  type Answer,
  errorToWire,
  type FromWorker,
  type QueryResults,
  type ToWorker,
  type WireQuery,
} from "./pglite_wire.ts";

let pglite: PGlite | null = null;
/** Why PGlite did not open: each query is answered with it. */
let openError: Error | null = null;
let chain: Promise<void> = Promise.resolve();

self.onmessage = (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  chain = chain.then(() => handle(message));
};

function post(message: FromWorker): void {
  self.postMessage(message);
}

async function handle(message: ToWorker): Promise<void> {
  switch (message.type) {
    case "open":
      try {
        const { dataDir, loadDataDir, artifacts } = message;
        pglite = await createPGlite({
          ...(dataDir === undefined ? {} : { dataDir }),
          ...(loadDataDir === undefined ? {} : { loadDataDir }),
        }, artifacts);
        await pglite.query(`set search_path to ${message.schema}`);
        post({ type: "opened" });
      } catch (error) {
        openError = new Error(`PGlite could not open: ${errorToWire(error).message}`);
        post({ type: "failed", error: errorToWire(error) });
      }
      return;
    case "queries":
      return await answer(message.queries);
    case "close":
      if (pglite && !pglite.closed) await pglite.close();
      post({ type: "closed" });
      self.close();
  }
}

async function answer(queries: readonly WireQuery[]): Promise<void> {
  const answers: Answer[] = [];
  let fatal: unknown = null;
  for (const q of queries) {
    try {
      if (!pglite || fatal) throw fatal ?? openError ?? new Error("PGlite is not open");
      answers.push({ ok: true, results: resultsOf(await pglite.query(q.sql, [...q.params])) });
    } catch (error) {
      answers.push({ ok: false, error: errorToWire(error) });
      // WebAssembly aborted: the instance is unusable, so the worker dies and is restarted.
      if (error instanceof WebAssembly.RuntimeError) fatal = error;
    }
  }
  post({ type: "answers", answers });
  if (fatal) {
    // After the answers, in order, so those that went in are not reported lost.
    post({ type: "fatal", error: errorToWire(fatal) });
    self.close();
  }
}

/** Only what the dialect reads: the rest (blobs, row counts per statement) is not cloned. */
function resultsOf(r: QueryResults): QueryResults {
  return {
    rows: r.rows,
    fields: r.fields,
    ...(r.affectedRows === undefined ? {} : { affectedRows: r.affectedRows }),
    ...(r.command === undefined ? {} : { command: r.command }),
  };
}
