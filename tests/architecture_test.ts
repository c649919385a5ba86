/**
 * The import rules of ARCHITECTURE "Layout", read from the import graph of the product's code
 * (src/, actors/, routes/, migrations/): type imports count as imports.
 */
import assert from "node:assert/strict";
import {
  type Graph,
  importCircles,
  importGraph,
  importRuleBreaks,
} from "./helpers/import_graph.ts";

const ROOT = new URL("../", import.meta.url);

let graph: Graph | undefined;
function code(): Graph {
  return graph ??= importGraph(ROOT, ["src", "actors", "routes", "migrations"]);
}

Deno.test("architecture: no import circles", () => {
  assert.deepEqual(importCircles(code()), []);
});

Deno.test("architecture: every import keeps the layout's rules", () => {
  assert.deepEqual(importRuleBreaks(code()), []);
});

Deno.test("architecture: the rules catch what they forbid", () => {
  const g: Graph = new Map([
    ["src/http/app.ts", ["actors/courier/shipment.ts", "src/courier/flows/booking.ts"]],
    ["src/runtime/runtime.ts", ["routes/courier/prices.ts"]],
    ["actors/courier/shipment.ts", ["src/courier/flows/booking.ts", "actors/courier/alert.ts"]],
    ["actors/courier/alert.ts", ["src/platform/rules/scopes.ts", "src/http/errors.ts"]],
    ["src/courier/flows/booking.ts", ["hono", "src/http/errors.ts", "actors/courier/shipment.ts"]],
    ["src/courier/reactors/x.ts", ["@hono/zod-openapi"]],
    ["src/courier/queries/y.ts", ["hono/deno"]],
    ["routes/courier/prices.ts", ["routes/courier/runs.ts", "routes/courier/answers/a.ts"]],
    ["routes/courier/runs.ts", ["routes/business/answers/b.ts", "routes/courier/prices.ts"]],
    ["src/courier/rules/pricing.ts", ["src/courier/flows/booking.ts"]],
  ]);
  assert.deepEqual(importRuleBreaks(g), [
    "actors/courier/alert.ts -> src/http/errors.ts: an actor imports only the actor contract, " +
    "shared domain, limits, its document's rules and actors (and the platform's rules)",
    "actors/courier/shipment.ts -> src/courier/flows/booking.ts: an actor imports only the " +
    "actor contract, shared domain, limits, its document's rules and actors (and the platform's " +
    "rules)",
    "routes/courier/prices.ts -> routes/courier/runs.ts: a route file imports no other route " +
    "file but its document's answers/",
    "routes/courier/runs.ts -> routes/business/answers/b.ts: a route file imports no other " +
    "route file but its document's answers/",
    "routes/courier/runs.ts -> routes/courier/prices.ts: a route file imports no other route " +
    "file but its document's answers/",
    "src/courier/flows/booking.ts -> hono: flows, reactors and queries never import Hono or " +
    "src/http/",
    "src/courier/flows/booking.ts -> src/http/errors.ts: flows, reactors and queries never " +
    "import Hono or src/http/",
    "src/courier/queries/y.ts -> hono/deno: flows, reactors and queries never import Hono or " +
    "src/http/",
    "src/courier/reactors/x.ts -> @hono/zod-openapi: flows, reactors and queries never import " +
    "Hono or src/http/",
    "src/courier/rules/pricing.ts -> src/courier/flows/booking.ts: rules are pure: they import " +
    "only shared domain, limits and their document's (or the platform's) rules",
    "src/http/app.ts -> actors/courier/shipment.ts: generic src/ never imports actors/, routes/ " +
    "or a feature folder",
    "src/http/app.ts -> src/courier/flows/booking.ts: generic src/ never imports actors/, " +
    "routes/ or a feature folder",
    "src/runtime/runtime.ts -> routes/courier/prices.ts: generic src/ never imports actors/, " +
    "routes/ or a feature folder",
  ]);
  assert.deepEqual(importCircles(g), [
    ["actors/courier/shipment.ts", "src/courier/flows/booking.ts"],
    ["routes/courier/prices.ts", "routes/courier/runs.ts"],
  ]);
});
