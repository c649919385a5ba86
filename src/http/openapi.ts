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

const INFO = {
  title: "Courier operations engine",
  version: "v1",
  description:
    "Courier platform API v1, Business API and in-store shopping fulfilment API. Every error is " +
    "`{success: false, code, message}`; every response carries X-Request-Id and X-Service-Environment. " +
    "On live, a request with `X-Service-Test: true` answers 422 `test_mode_moved_to_sandbox` and " +
    "does nothing; the sandbox ignores the header.",
};

type OpenApiDocument = ReturnType<OpenAPIHono<AppEnv>["getOpenAPI31Document"]>;

export function mountDocs(api: OpenAPIHono<AppEnv>, env: Environment): void {
  const registry = api.openAPIRegistry;
  registry.registerComponent("securitySchemes", "businessKey", {
    type: "apiKey",
    in: "header",
    name: "X-Business-API-Key",
  });
  registry.registerComponent("securitySchemes", "clientKey", {
    type: "apiKey",
    in: "header",
    name: "X-Client-API-Key",
  });
  registry.registerComponent("securitySchemes", "bearer", { type: "http", scheme: "bearer" });
  const document = (origin: string): OpenApiDocument =>
    api.getOpenAPI31Document({
      openapi: "3.1.0",
      info: INFO,
      servers: [{ url: `${origin}/api`, description: env.name }],
    });
  // spec: business 8: rate headers on every response; anyone may read the contract, so it is
  // counted per address as other public calls are (and a document built per call is throttled).
  api.get("/api-docs/openapi.json", anonymous, (c) => c.json(document(publicBaseUrl(c))));
  api.get(
    "/api-docs/postman.json",
    anonymous,
    (c) => c.json(postmanCollection(document(publicBaseUrl(c)))),
  );
  mountDocsPage(api);
}

interface PostmanItem {
  name: string;
  request: {
    method: string;
    header: { key: string; value: string }[];
    url: { raw: string; host: string[]; path: string[] };
    body?: { mode: "raw"; raw: string; options: { raw: { language: "json" } } };
  };
}

/** A Postman v2.1 collection with the variable `apiKey` (Business API 9.1). */
export function postmanCollection(doc: OpenApiDocument) {
  const items: PostmanItem[] = [];
  for (const [path, ops] of Object.entries(doc.paths ?? {})) {
    for (const method of ["get", "post", "put", "patch", "delete"] as const) {
      const op =
        (ops as Record<string, { summary?: string; requestBody?: unknown } | undefined>)[method];
      if (!op) continue;
      const segments = path.replace(/^\//, "").split("/").map((s) =>
        s.replace(/^\{(.+)\}$/, ":$1")
      );
      items.push({
        name: op.summary ?? `${method.toUpperCase()} ${path}`,
        request: {
          method: method.toUpperCase(),
          header: [
            { key: "X-Business-API-Key", value: "{{apiKey}}" },
            { key: "Content-Type", value: "application/json" },
          ],
          url: { raw: `{{baseUrl}}/${segments.join("/")}`, host: ["{{baseUrl}}"], path: segments },
          ...(op.requestBody
            ? {
              body: {
                mode: "raw" as const,
                raw: "{}",
                options: { raw: { language: "json" as const } },
              },
            }
            : {}),
        },
      });
    }
  }
  return {
    info: {
      name: doc.info.title,
      schema: "https://schema.getpostman.com/json/collection/v2.1.0/collection.json",
    },
    variable: [
      { key: "baseUrl", value: doc.servers?.[0]?.url ?? "" },
      { key: "apiKey", value: "" },
    ],
    item: items,
  };
}
