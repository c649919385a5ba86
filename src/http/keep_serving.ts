/**
 * A port that keeps serving. Deno's accept loop ends for good on an error of the machine (out of
 * file handles under a flood of connections: EMFILE), closing the listener and rejecting the
 * server's `finished`, which, unhandled, ended the whole process, live and sandbox together.
 * Here the error is logged and the port served again once it can be (backing off while the
 * handles are still taken); a stop asked meanwhile ends it.
 */
import type { Logger } from "../observe/log.ts";

/** The first wait before serving again, doubled at each failed try up to RESTART_MAX_MS. */
export const RESTART_MS = 250;
export const RESTART_MAX_MS = 8_000;

/** What keepServing needs of a server: Deno.HttpServer's end and stop. */
export interface Server {
  readonly finished: Promise<void>;
  shutdown(): Promise<void>;
}

export function keepServing(
  start: () => Server,
  o: {
    readonly log: Logger;
    readonly name: string;
    readonly wait?: (ms: number) => Promise<void>;
  },
): { shutdown(): Promise<void> } {
  const wait = o.wait ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let stopped = false;
  let current: Server;
  const serve = (server: Server) => {
    current = server;
    server.finished.catch((e) => restart(e));
  };
  const restart = async (e: unknown) => {
    if (stopped) return;
    o.log.error(
      { event: "server_stopped_accepting", environment: o.name, err: String(e) },
      "the port stopped accepting connections: serving it again",
    );
    for (let ms = RESTART_MS; !stopped; ms = Math.min(ms * 2, RESTART_MAX_MS)) {
      await wait(ms);
      if (stopped) return;
      try {
        return serve(start());
      } catch (again) {
        o.log.warn({ event: "server_restart_failed", environment: o.name, err: String(again) });
      }
    }
  };
  serve(start());
  return {
    shutdown() {
      stopped = true;
      return current.shutdown();
    },
  };
}
