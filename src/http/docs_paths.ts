/**
 * The contract's own routes in the contract (issue: every route the service answers is in the
 * document): the OpenAPI document, the Postman collection, the reference page and its files.
 * Registered by hand, as the boards' pages are: none answers the JSON envelope define() makes.
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "./context.ts";
import { TEST_FLAG_REFUSED } from "./refusals.ts";
import { refusalResponses } from "./route_doc.ts";

const TAG = ["Reference"];

/** What any public call may meet: its address's limit, and on live the test flag's refusal. */
const PUBLIC = {
  rate_limited: "too many calls from this address; wait `Retry-After` seconds",
  ...TEST_FLAG_REFUSED,
};

export function registerDocsPaths(
  api: OpenAPIHono<AppEnv>,
  paths: { readonly page: string; readonly assets: string; readonly files: readonly string[] },
): void {
  const registry = api.openAPIRegistry;
  const json = (summary: string, path: string) =>
    registry.registerPath({
      method: "get",
      path,
      summary,
      tags: TAG,
      security: [],
      responses: {
        200: {
          description: "The document, with this environment's address in it",
          content: { "application/json": { schema: { type: "object" } } },
        },
        ...refusalResponses(PUBLIC),
      },
    });
  json("This OpenAPI 3.1 document", "/api-docs/openapi.json");
  json("A Postman collection of every operation, with examples", "/api-docs/postman.json");
  registry.registerPath({
    method: "get",
    path: paths.page,
    summary: "The reference page (HTML): this document, to read and try",
    tags: TAG,
    security: [],
    responses: {
      200: { description: "The page, text/html" },
      ...refusalResponses(PUBLIC),
    },
  });
  registry.registerPath({
    method: "get",
    path: `${paths.assets}/{file}`,
    summary: "The reference page's script, style sheet and icon",
    tags: TAG,
    security: [],
    request: { params: z.object({ file: z.enum(paths.files as [string, ...string[]]) }) },
    responses: {
      200: { description: "A static file of the page" },
      ...refusalResponses({ not_found: "no such file of the page", ...PUBLIC }),
    },
  });
}
