/**
 * Uploads (evidence files, CSV bookings) read within a byte cap whatever Content-Length says, so
 * a client cannot make the server hold more than the route allows.
 */
import type { Context } from "hono";
import type { AppEnv } from "./context.ts";
import { ApiError, validationFailed } from "./errors.ts";
import { REQUEST_BODY_BYTES_MAX } from "../limits.ts";

/** Whether the request body is a multipart form (media types are case-insensitive). */
export function isMultipart(c: Context<AppEnv>): boolean {
  return (c.req.header("Content-Type") ?? "").toLowerCase().startsWith("multipart/form-data");
}

/** Room for the multipart boundaries and the text fields around an uploaded file. */
export const MULTIPART_OVERHEAD_BYTES_MAX = 64 * 1024;

/** The body's bytes; `payload_too_large` with `message` past `max`. */
export async function boundedBody(
  c: Context<AppEnv>,
  max: number,
  message: string,
): Promise<Uint8Array<ArrayBuffer>> {
  const tooLarge = () => new ApiError("payload_too_large", message);
  if (Number(c.req.header("Content-Length") ?? "0") > max) throw tooLarge();
  const parts: Uint8Array[] = [];
  let total = 0;
  const body = c.req.raw.body;
  if (body !== null) {
    for await (const part of body) {
      total += part.length;
      if (total > max) throw tooLarge();
      parts.push(part);
    }
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return bytes;
}

/**
 * A JSON or text body within the request cap (`max`, by default REQUEST_BODY_BYTES_MAX), also
 * when it declares no length (chunked), which app.ts cannot hold to the cap. A declared length
 * frames the body (the server reads no more of it), so such a body, like one a guard already
 * read, is Hono's to read and keep; only a chunked one is counted as it streams, and kept for a
 * later read here.
 */
export async function boundedText(
  c: Context<AppEnv>,
  max = REQUEST_BODY_BYTES_MAX,
): Promise<string> {
  const message = `request body over ${max} bytes`;
  const declared = c.req.header("Content-Length");
  const framed = declared !== undefined || c.req.raw.bodyUsed;
  if (framed && Number(declared ?? "0") > max) throw new ApiError("payload_too_large", message);
  const text = utf8(
    framed ? new Uint8Array(await c.req.arrayBuffer()) : await boundedBody(c, max, message),
  );
  // Hono keeps each body it read as a promise (its type says the value): the text is kept the
  // same way, so c.req.text() after this (the route after a guard) finds it.
  (c.req.bodyCache as unknown as { text?: Promise<string> }).text = Promise.resolve(text);
  return text;
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The body's text; bytes that are no UTF-8 are refused naming the body. Decoded leniently, they
 * became U+FFFD and the fields they stood in were answered as missing or wrong.
 */
function utf8(bytes: Uint8Array): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw validationFailed([{ path: "body", message: "not valid UTF-8" }]);
  }
}

/** A multipart body of at most `max` bytes, parsed. */
export async function boundedForm(
  c: Context<AppEnv>,
  max: number,
  message: string,
): Promise<FormData> {
  const bytes = await boundedBody(c, max, message);
  try {
    return await new Response(bytes, {
      headers: { "Content-Type": c.req.header("Content-Type") ?? "" },
    }).formData();
  } catch (e) {
    throw validationFailed([{
      path: "body",
      message: `not valid multipart/form-data: ${(e as Error).message}`,
    }]);
  }
}
