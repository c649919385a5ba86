/**
 * The response headers every answer carries, declared in the OpenAPI document so that a client
 * generated from it (and the Postman collection) knows them: X-Request-Id and
 * X-Service-Environment on every answer (CONTRACT "Errors"; Business API 2.2), the rate headers
 * on every answer of a counted caller (Business API 8: all but the operator's), and Retry-After
 * on a 429 and wherever a refusal says to wait it.
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
    description: "Calls left in the current minute (Business API 8)",
    required: true,
    schema: { type: "integer", minimum: 0 },
  },
  RateLimitReset: {
    description: "When the current window ends, in unix seconds",
    required: true,
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

/** The headers of one operation's answer of `status`. */
function headersOf(status: string, response: Response, counted: boolean) {
  const waits = status === "429" || /Retry-After/.test(response.description ?? "");
  return {
    "X-Request-Id": ref("RequestId"),
    "X-Service-Environment": ref("Environment"),
    ...(counted
      ? {
        "X-RateLimit-Remaining": ref("RateLimitRemaining"),
        "X-RateLimit-Reset": ref("RateLimitReset"),
      }
      : {}),
    ...(waits
      ? { "Retry-After": ref(status === "429" ? "RetryAfter" : "RetryAfterWhenWaiting") }
      : {}),
  };
}

/** Declares the headers of every answer of every operation, and the components they name. */
export function withResponseHeaders(doc: OpenApiDocument): OpenApiDocument {
  const components = doc.components ?? (doc.components = {});
  (components as { headers?: unknown }).headers = RESPONSE_HEADERS;
  for (const item of Object.values(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = (item as Record<string, unknown>)[method] as
        | { security?: Record<string, unknown>[]; responses?: Record<string, Response> }
        | undefined;
      if (!op) continue;
      // The operator is the one caller no plan counts (guards.ts countUncounted).
      const counted = !(op.security ?? []).some((s) => "operatorToken" in s);
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        // A WebSocket's upgrade is answered before any header of the API is set.
        if (status === "101") continue;
        response.headers = { ...response.headers, ...headersOf(status, response, counted) };
      }
    }
  }
  return doc;
}
