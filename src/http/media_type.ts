/**
 * What a JSON route reads: a body of a JSON media type (or one without a type, as curl's `-d @-`
 * with a header forgotten sends less often than scripts that send none). Any other type is 415
 * `unsupported_media_type`: a form or text body was never read as the caller meant it.
 */
import type { Context } from "hono";
import type { AppEnv } from "./context.ts";
import { ApiError } from "./errors.ts";
import type { Refusals } from "./refusals.ts";

/** define() lists this on every route that reads a JSON body. */
export const UNSUPPORTED_MEDIA_TYPE: Refusals = {
  unsupported_media_type: "the body's Content-Type is not application/json",
};

/** define() lists this on every route that reads a form (RouteSpec.multipart, upload). */
export function unsupportedBesides(types: string): Refusals {
  return { unsupported_media_type: `the body's Content-Type is not ${types}` };
}

/** Refuses a body that is not of `types` (the route read it as none of them). */
export function unsupportedMedia(c: Context<AppEnv>, types: string): ApiError {
  const type = (c.req.header("Content-Type") ?? "").split(";")[0]!.trim().slice(0, 100);
  return new ApiError("unsupported_media_type", `the body must be ${types}: ${type || "none"}`);
}

/** `application/json`, `application/<anything>+json`, with or without parameters. */
function isJson(type: string): boolean {
  const essence = type.split(";")[0]!.trim().toLowerCase();
  return essence === "application/json" ||
    (essence.startsWith("application/") && essence.endsWith("+json"));
}

/** Refuses a body of a declared type that is not JSON; `also` names another type the route takes. */
export function requireJsonBody(c: Context<AppEnv>, also?: string): void {
  const type = c.req.header("Content-Type")?.trim() ?? "";
  if (type === "" || isJson(type)) return;
  const wanted = also ? `application/json or ${also}` : "application/json";
  throw new ApiError(
    "unsupported_media_type",
    `the body must be ${wanted}: ${type.split(";")[0]!.trim().slice(0, 100)}`,
  );
}
