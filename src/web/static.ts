/**
 * A page's static files, served from src/web/ by an allow-list of names (nothing else there is
 * served), read once and kept, with headers that let the page run its own scripts only.
 */
import { ApiError } from "../http/errors.ts";

const WEB_DIR = new URL("./", import.meta.url);

const PAGE_HEADERS = {
  "Cache-Control": "no-cache",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
  "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; " +
    "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; " +
    "frame-ancestors 'none'",
};

/** Serves the files named in `types` (file name to content type); others answer 404. */
export function staticFiles(
  what: string,
  types: Readonly<Record<string, string>>,
): (name: string) => Promise<Response> {
  const cache = new Map<string, Uint8Array<ArrayBuffer>>();
  return async (name) => {
    const type = Object.hasOwn(types, name) ? types[name] : undefined;
    if (type === undefined) throw new ApiError("not_found", `no such ${what} file: ${name}`);
    let bytes = cache.get(name);
    if (bytes === undefined) {
      bytes = await Deno.readFile(new URL(name, WEB_DIR));
      cache.set(name, bytes);
    }
    return new Response(bytes, { headers: { ...PAGE_HEADERS, "Content-Type": type } });
  };
}
