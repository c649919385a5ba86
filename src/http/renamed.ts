/**
 * Request fields the spec names otherwise than the service once did. Field names are the spec's
 * words (CONTRACT "Request bodies"), yet within a version a field is never renamed away from an
 * integrator already sending it (courier 9.2, 9.3: only additive changes): the body takes the
 * spec's name and, beside it, the former one. Sending both at once is refused 422 on the former
 * name, never resolved by guessing. The OpenAPI document shows the spec's names only (the schema
 * after the rename), so new integrators learn the spec's words.
 */
import { z } from "@hono/zod-openapi";

/**
 * `schema` (an object schema in the spec's words) reading each field of `renames` (former name
 * to the spec's name) under either name. Only top-level fields: a nested object renames its own.
 */
export function renamedFields<S extends z.ZodType>(
  schema: S,
  renames: Readonly<Record<string, string>>,
) {
  return z.preprocess((input, ctx) => {
    if (input === null || typeof input !== "object" || Array.isArray(input)) return input;
    let body = input as Record<string, unknown>;
    for (const [former, named] of Object.entries(renames)) {
      if (!Object.hasOwn(body, former)) continue;
      if (Object.hasOwn(body, named)) {
        ctx.addIssue({
          code: "custom",
          path: [former],
          message: `${former} is the former name of ${named}: send one of them, not both`,
          input: body[former],
        });
        continue;
      }
      const { [former]: value, ...rest } = body;
      body = { ...rest, [named]: value };
    }
    return body;
  }, schema);
}
