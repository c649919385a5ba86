/**
 * Finishing the requests under way before the servers stop. Deno 2.9's `HttpServer.shutdown()`
 * makes the body of a request still being received unreadable at once (denoland/deno#36809): a
 * client still sending would be answered 500. So a stop first turns new requests away (503
 * `service_stopping`, `Connection: close`; `/health` too, so a load balancer sees it) while those
 * under way finish, and only then are the servers shut down.
 */
import { STOP_DRAIN_MS_MAX } from "../limits.ts";
import type { Environment } from "./context.ts";
import { observeStopping, requestIdOf } from "./request_log.ts";

type Handler = (request: Request, info: Deno.ServeHandlerInfo) => Response | Promise<Response>;

export class Draining {
  #underWay = 0;
  #stopping = false;
  #idle: (() => void) | null = null;

  /** Requests under way (answered or not yet) across every server this one wraps. */
  get underWay(): number {
    return this.#underWay;
  }

  /**
   * `handler` with its requests counted, and turned away once a stop has begun; `environment`
   * names the environment it serves on those answers too (Business API 2.2), and `observed`
   * logs and counts them (its log and metrics).
   */
  serve(
    handler: Handler,
    environment?: string,
    observed?: Pick<Environment, "log" | "metrics">,
  ): Handler {
    return async (request, info) => {
      if (this.#stopping) {
        const requestId = requestIdOf(request.headers.get("X-Request-Id") ?? undefined);
        if (observed) observeStopping(observed, request, requestId);
        return stopping(requestId, environment);
      }
      this.#underWay++;
      try {
        return await handler(request, info);
      } finally {
        if (--this.#underWay === 0) this.#idle?.();
      }
    };
  }

  /** Turns new requests away; resolves once none is under way, or after `maxMs` regardless. */
  drain(maxMs = STOP_DRAIN_MS_MAX): Promise<void> {
    this.#stopping = true;
    if (this.#underWay === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#idle = null;
        resolve();
      };
      const timer = setTimeout(done, maxMs);
      this.#idle = done;
    });
  }
}

/**
 * The answer to a request that came after the stop began, in the error shape: as every answer,
 * with X-Service-Environment, and `environment: sandbox` in the sandbox's (Business API 2.2).
 */
function stopping(requestId: string, environment: string | undefined): Response {
  return Response.json({
    success: false,
    code: "service_stopping",
    message: "the service is stopping: send the request again shortly",
    ...(environment === "sandbox" ? { environment } : {}),
  }, {
    status: 503,
    headers: {
      "Connection": "close",
      "Retry-After": "5",
      "X-Request-Id": requestId,
      ...(environment ? { "X-Service-Environment": environment } : {}),
    },
  });
}
