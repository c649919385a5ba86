/**
 * The machine-readable contract (Business API 9.1): `/api-docs/openapi.json` (OpenAPI 3.1 built
 * from the route schemas, so it grows with every route), `/api-docs/postman.json` made from it,
 * and the reference page a person reads it with (`/docs`).
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Environment } from "./context.ts";
import { mountDocsPage } from "./docs_page.ts";
import { anonymous } from "./guards.ts";
import { type AppEnv, publicBaseUrl } from "./context.ts";
import { METHODS, type OpenApiDocument, SECURITY_SCHEMES } from "./openapi_shape.ts";
import { withResponseHeaders } from "./openapi_headers.ts";
import { postmanCollection } from "./postman.ts";

const INFO = {
  title: "Courier operations engine",
  version: "v1",
  description:
    "Courier platform API v1, Business API and in-store shopping fulfilment API. Every error is " +
    "`{success: false, code, message}` (the tracking links' `/s/`, `/trip-track/`, `/track/`: " +
    "`{success: false, error, message}`); every response carries X-Request-Id and " +
    "X-Service-Environment. " +
    "On live, a request with `X-Service-Test: true` answers 422 `test_mode_moved_to_sandbox` and " +
    "does nothing (its credential is checked first, as on any request); the sandbox ignores " +
    "the header.",
};

export function mountDocs(api: OpenAPIHono<AppEnv>, env: Environment): void {
  const registry = api.openAPIRegistry;
  for (const [name, scheme] of Object.entries(SECURITY_SCHEMES)) {
    registry.registerComponent("securitySchemes", name, scheme);
  }
  const document = (origin: string): OpenApiDocument =>
    withResponseHeaders(withOperationIds(api.getOpenAPI31Document({
      openapi: "3.1.0",
      info: INFO,
      servers: [{ url: `${origin}/api`, description: env.name }],
    })));
  // spec: business 8: rate headers on every response; anyone may read the contract, so it is
  // counted per address as other public calls are (and a document built per call is throttled).
  const openapi = keptForAnyOrigin((origin) => document(origin));
  const postman = keptForAnyOrigin((origin) => postmanCollection(document(origin)));
  api.get("/api-docs/openapi.json", anonymous, (c) => jsonText(openapi(publicBaseUrl(c))));
  api.get("/api-docs/postman.json", anonymous, (c) => jsonText(postman(publicBaseUrl(c))));
  mountDocsPage(api);
}

/**
 * Where the origin goes in a document made once: a name no caller's Host can be (`.invalid` is
 * reserved, RFC 2606), found only where the document names its own origin.
 */
const ORIGIN_MARK = "https://origin-of-this-document.invalid";

/**
 * The document's JSON for an origin. Made once, for no origin: the routes do not change while
 * the service runs, and the collection with its examples (about 1.2 MB) takes some 100 ms of
 * the serving thread to make. The origin is the caller's (its Host header, without PUBLIC_URL),
 * so each call joins it into the text made once: a Host of its own per call must not make the
 * document again, or any caller could keep the service busy making it.
 */
export function keptForAnyOrigin(make: (origin: string) => unknown): (origin: string) => string {
  let parts: readonly string[] | undefined;
  return (origin) => {
    parts ??= JSON.stringify(make(ORIGIN_MARK)).split(ORIGIN_MARK);
    return parts.join(JSON.stringify(origin).slice(1, -1));
  };
}

function jsonText(text: string): Response {
  return new Response(text, { headers: { "Content-Type": "application/json" } });
}

/**
 * The operation's id, from its method and path alone, so it is the same in every run and every
 * environment, and a client generated from one document keeps its names in the next:
 * `post /business/network-runs/{run}/expenses` is `postBusinessNetworkRunsByRunExpenses`.
 */
export function operationIdOf(method: string, path: string): string {
  const words = path.split("/").filter(Boolean).flatMap((segment) => {
    const param = /^\{(.+)\}$/.exec(segment);
    return param ? ["by", ...param[1]!.split(/[^A-Za-z0-9]+/)] : segment.split(/[^A-Za-z0-9]+/);
  }).filter(Boolean);
  return method + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join("");
}

/** Gives every operation that declares none its operationIdOf. */
function withOperationIds(doc: OpenApiDocument): OpenApiDocument {
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = (item as Record<string, { operationId?: string } | undefined>)[method];
      if (op && op.operationId === undefined) op.operationId = operationIdOf(method, path);
    }
  }
  return doc;
}
