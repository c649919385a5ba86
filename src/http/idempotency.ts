/** Idempotency keys a caller names a request by: the `Idempotency-Key` header or a body field. */
import type { Context } from "hono";
import type { AppEnv } from "./context.ts";
import { ApiError } from "./errors.ts";
import { z } from "./route.ts";

/** An idempotency key as the body carries it (1 to 120 characters, trimmed). */
export const IdempotencyKey = z.string().trim().min(1).max(120);

/** The `Idempotency-Key` header, checked like the body field (a document may allow fewer). */
export function idempotencyHeader(c: Context<AppEnv>, max = 120): string | null {
  const raw = c.req.header("Idempotency-Key");
  if (raw === undefined) return null;
  const parsed = IdempotencyKey.max(max).safeParse(raw);
  if (!parsed.success) {
    const message = `1 to ${max} characters`;
    throw new ApiError("validation_failed", `invalid request: Idempotency-Key: ${message}`, {
      errors: [{ path: "Idempotency-Key", message }],
    });
  }
  return parsed.data;
}
