/**
 * The response headers every answer carries, declared in the OpenAPI document so that a client
 * generated from it (and the Postman collection) knows them: X-Request-Id and
 * X-Service-Environment on every answer (CONTRACT "Errors"; Business API 2.2), the rate headers
 * (Business API 8: on every answer of a caller a plan counts, and of anyone on a public route),
 * and Retry-After on a 429 and wherever a refusal says to wait it.
 */
import { METHODS, type OpenApiDocument } from "./openapi_shape.ts";

export const RESPONSE_HEADERS = {
  RequestId: {
    description: "The request's id: the caller's `X-Request-Id` when it was 1 to 128 characters " +
      "of `[A-Za-z0-9._:-]`, else one the service made",
    required: true,
    schema: { type: "string" },
  },
  Environment: {
    description: "`live` or `sandbox`",
    required: true,
    schema: { type: "string", enum: ["live", "sandbox"] },
  },
  RateLimitRemaining: {
    description: "Calls left before the limit binds: the fewer of the minute's and the day's " +
      "(Business API 8)",
    required: true,
    schema: { type: "integer", minimum: 0 },
  },
  RateLimitReset: {
    description: "When calls are let through again, in unix seconds: the minute's end, or the " +
      "day's once the day's limit binds",
    required: true,
    schema: { type: "integer" },
  },
  RateLimitRemainingOfAddress: {
    description: "On a refusal of a missing or unknown credential, counted against the " +
      "caller's address: calls it has left in the current minute",
    schema: { type: "integer", minimum: 0 },
  },
  RateLimitResetOfAddress: {
    description: "With X-RateLimit-Remaining: when the address's window ends, in unix seconds",
    schema: { type: "integer" },
  },
  RetryAfter: {
    description: "Seconds to wait before trying again",
    required: true,
    schema: { type: "integer", minimum: 0 },
  },
  RetryAfterWhenWaiting: {
    description: "With a refusal that says to wait (`booking_in_progress`, " +
      "`request_in_progress`...): seconds to wait before trying again",
    schema: { type: "integer", minimum: 0 },
  },
} as const;

const ref = (name: keyof typeof RESPONSE_HEADERS) => ({ $ref: `#/components/headers/${name}` });

interface Response {
  description?: string;
  headers?: Record<string, unknown>;
}

interface Operation {
  security?: Record<string, unknown>[];
  responses?: Record<string, Response>;
}

/**
 * The headers of one operation's answer of `status`. A caller counted on every call (a plan's
 * credential, or anyone on a public route) has the rate headers on every answer; one no plan
 * counts (the operator) has them only on a refusal its address paid for. A platform driver is
 * counted per driver token (driver_auth.ts), as its 429 says.
 */
function headersOf(status: string, response: Response, counted: boolean) {
  const waits = status === "429" || /Retry-After/.test(response.description ?? "");
  return {
    "X-Request-Id": ref("RequestId"),
    "X-Service-Environment": ref("Environment"),
    "X-RateLimit-Remaining": ref(counted ? "RateLimitRemaining" : "RateLimitRemainingOfAddress"),
    "X-RateLimit-Reset": ref(counted ? "RateLimitReset" : "RateLimitResetOfAddress"),
    ...(waits
      ? { "Retry-After": ref(status === "429" ? "RetryAfter" : "RetryAfterWhenWaiting") }
      : {}),
  };
}

/**
 * Whether every call of `op` is counted: a public route is, per address (guards.ts anonymous);
 * a credential is when its plan limits it, as its 429 says (guards.ts PLAN_LIMITED), and so is a
 * platform driver's token (driver_auth.ts).
 */
function countedAlways(op: Operation): boolean {
  if ((op.security ?? []).length === 0) return true;
  return /plan|driver app's limit/.test(op.responses?.["429"]?.description ?? "");
}

/** Declares the headers of every answer of every operation, and the components they name. */
export function withResponseHeaders(doc: OpenApiDocument): OpenApiDocument {
  const components = doc.components ?? (doc.components = {});
  (components as { headers?: unknown }).headers = RESPONSE_HEADERS;
  for (const item of Object.values(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = (item as Record<string, unknown>)[method] as Operation | undefined;
      if (!op) continue;
      const counted = countedAlways(op);
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        // A WebSocket's upgrade is answered before any header of the API is set.
        if (status === "101") continue;
        response.headers = { ...response.headers, ...headersOf(status, response, counted) };
      }
    }
  }
  return doc;
}
