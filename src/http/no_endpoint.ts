/**
 * The answer to a request no route takes: 404 `not_found`, or 405 `method_not_allowed` with
 * `Allow` when the path exists under other methods (RFC 9110 15.5.6).
 */
import type { Context } from "hono";
import { ApiError } from "./errors.ts";

export /**
 * A path that exists under other methods answers 405 with `Allow` (RFC 9110 15.5.6), so a caller
 * who sent GET where POST was meant learns that, instead of 404 suggesting a wrong path.
 */
function noSuchEndpoint(c: Context, allow: readonly string[]): ApiError {
  const { method, path } = c.req;
  if (allow.length === 0) return new ApiError("not_found", `no such endpoint: ${method} ${path}`);
  return new ApiError(
    "method_not_allowed",
    `${path} does not take ${method}; it takes ${allow.join(", ")}`,
    { allow },
    { Allow: allow.join(", ") },
  );
}

/** The methods the router's routes take at a path (HEAD beside GET), in a stable order. */
export function allowedMethods(
  api: { readonly routes: readonly { readonly method: string; readonly path: string }[] },
  prefix: string,
): (path: string) => readonly string[] {
  let table: { pattern: RegExp; methods: Set<string> }[] | null = null;
  const build = () => {
    const byPath = new Map<string, Set<string>>();
    for (const r of api.routes) {
      if (r.method === "ALL") continue; // middleware, not an endpoint
      const methods = byPath.get(r.path) ?? new Set<string>();
      methods.add(r.method);
      if (r.method === "GET") methods.add("HEAD");
      byPath.set(r.path, methods);
    }
    return [...byPath].map(([path, methods]) => ({
      pattern: routePattern(prefix + path),
      methods,
    }));
  };
  return (path) => {
    table ??= build();
    const methods = new Set<string>();
    for (const t of table) if (t.pattern.test(path)) { for (const m of t.methods) methods.add(m); }
    return METHOD_ORDER.filter((m) => methods.has(m));
  };
}

const METHOD_ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/** Hono's path syntax (`:name`, `:name{regex}`, `*`) as an anchored regular expression. */
function routePattern(path: string): RegExp {
  const segments = path.split("/").map((segment) => {
    if (segment === "*") return ".*";
    const param = /^:[^{}?]+(?:\{(.+)\})?\??$/.exec(segment);
    if (param) return param[1] ? `(?:${param[1]})` : "[^/]+";
    return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  });
  // As strict as the router: a trailing slash is another path (404), not this one (405).
  return new RegExp(`^${segments.join("/")}$`);
}
