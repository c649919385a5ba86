/**
 * The human-readable API reference at `/api/docs`: Swagger UI rendering the environment's own
 * `/api/api-docs/openapi.json`. Its script and stylesheet are the swagger-ui-dist npm package's
 * files, served by the service itself (read on first request and kept once read), so the page
 * works with no network beyond the service: no CDN, and a policy that lets the page reach nothing
 * else.
 */
import { SwaggerUI } from "@hono/swagger-ui";
// The package's folder alone: its main module evaluates the whole 1.5 MB bundle (about 400 ms
// of every start and every test file's isolate) to export what the service only serves as files.
import getAbsoluteFSPath from "swagger-ui-dist/absolute-path.js";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { join } from "node:path";
import type { AppEnv } from "./context.ts";
import { ApiError } from "./errors.ts";
import { anonymous } from "./guards.ts";
import { registerDocsPaths } from "./docs_paths.ts";

export const DOCS_PATH = "/docs";
const ASSETS = `${DOCS_PATH}/assets`;

/** The package's files the page loads, with their types; nothing else of it is served. */
const ASSET_TYPES: Readonly<Record<string, string>> = {
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui.css": "text/css; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

/**
 * The page: links relative to `/api/docs`, so it works under whatever prefix a proxy gives the
 * service. Only the page's own inline start-up script runs (its hash is in the policy).
 */
async function docsPage(): Promise<{ html: string; headers: Record<string, string> }> {
  const body = SwaggerUI({
    url: "api-docs/openapi.json",
    baseUrl: "docs/assets",
    docExpansion: "list",
    // 100 and more operations: a box to narrow the list by tag.
    filter: true,
    // The badge would send the document's address to an outside validator.
    validatorUrl: "none",
  }).toString().replaceAll("docs/assets/swagger-ui-dist/", "docs/assets/");
  const html = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>API reference</title>
    <link rel="icon" type="image/png" href="docs/assets/favicon-32x32.png" />
  </head>
  <body>${body}</body>
</html>`;
  const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
  const hashes = await Promise.all(scripts.map(async (s) => `'sha256-${await sha256(s)}'`));
  return {
    html,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-cache",
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "no-referrer",
      "X-Frame-Options": "DENY",
      // Swagger UI sets style attributes and draws its icons from data: URLs.
      "Content-Security-Policy": `default-src 'none'; script-src 'self' ${hashes.join(" ")}; ` +
        "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; " +
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    },
  };
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return btoa(String.fromCharCode(...new Uint8Array(digest)));
}

/**
 * Keeps `work` under `key` while it may succeed: one that fails is let go, so the next request
 * tries again (a failed read kept would break the page until a restart).
 */
function kept<T>(cache: Map<string, Promise<T>>, key: string, work: Promise<T>): Promise<T> {
  cache.set(key, work);
  work.catch(() => {
    if (cache.get(key) === work) cache.delete(key);
  });
  return work;
}

/** Where the page's files are read from: the package's folder (another in tests). */
export interface DocsPageOptions {
  readonly assetRoot?: string;
}

export function mountDocsPage(api: OpenAPIHono<AppEnv>, options: DocsPageOptions = {}): void {
  const assetRoot = options.assetRoot ?? getAbsoluteFSPath();
  let page: ReturnType<typeof docsPage> | null = null;
  const assets = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();
  registerDocsPaths(api, { page: DOCS_PATH, assets: ASSETS, files: Object.keys(ASSET_TYPES) });
  api.get(DOCS_PATH, anonymous, async (c) => {
    page ??= docsPage();
    const { html, headers } = await page;
    return c.body(html, 200, headers);
  });
  // The page's links are relative to `/api/docs`: with a trailing slash they would miss.
  api.get(`${DOCS_PATH}/`, anonymous, (c) => c.redirect("../docs", 301));
  api.get(`${ASSETS}/:file`, anonymous, async (c) => {
    const file = c.req.param("file");
    const type = Object.hasOwn(ASSET_TYPES, file) ? ASSET_TYPES[file] : undefined;
    if (type === undefined) throw new ApiError("not_found", `no such reference page file: ${file}`);
    const bytes = assets.get(file) ?? kept(assets, file, Deno.readFile(join(assetRoot, file)));
    return c.body(await bytes, 200, {
      "Content-Type": type,
      "Cache-Control": "public, max-age=3600",
      "X-Content-Type-Options": "nosniff",
    });
  });
}
