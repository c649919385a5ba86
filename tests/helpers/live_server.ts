/**
 * A test's own HTTP server for pages with live sockets, on a free loopback port. Stopped by its
 * signal, not by a graceful `shutdown()`: since Deno's graceful shutdown waits for every upgraded
 * WebSocket to drain (denoland/deno#35105), a server-side socket whose resource lingers after its
 * close kept the board tests waiting with no connection left (twice in full Postgres runs, never
 * alone). The abort closes what is left at once; the tests close their own sockets first anyway.
 */
export interface LiveServer {
  readonly port: number;
  /** Stops listening and closes every connection and socket left; resolves once finished. */
  close(): Promise<void>;
}

export function serveLive(fetch: (request: Request) => Response | Promise<Response>): LiveServer {
  const stop = new AbortController();
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", signal: stop.signal, onListen() {} },
    fetch,
  );
  return {
    port: server.addr.port,
    close: async () => {
      stop.abort();
      await server.finished;
    },
  };
}
