/**
 * Issue 35.2: the Postman collection's example bodies are bodies the routes take: each request
 * with a JSON body is sent, as its own tenant with real identifiers, the collection's example,
 * and none is refused as invalid (`validation_failed`). Other refusals (the state of the world:
 * a run already closed, a balance too low) are the example's fair answers.
 */
import assert from "node:assert/strict";
import { openTestEnv } from "../helpers/test_env.ts";
import { newTenant } from "../helpers/guard_world.ts";
import { credentialOf, send } from "../helpers/guard_probe.ts";
import { nameOf, openApiDocument, operations } from "../helpers/openapi_ops.ts";
import { urlOf } from "../helpers/guard_params.ts";

/**
 * Fields naming an object the integrator made (a rate card, a driver, a calendar): no example
 * can name one of theirs, so a refusal naming only these is the example's fair answer.
 */
const OWN_OBJECTS = new Set(["rate_card_id", "driver_id", "calendar_id"]);

/** The refusals of a body as such, whatever the state of the world (live refuses test flags). */
const INVALID = new Set([
  "validation_failed",
  "test_mode_moved_to_sandbox",
  "test_booking_refused",
]);

interface Entry {
  request: { method: string; url: { path: string[] }; body?: { mode: string; raw?: string } };
}
interface Folder {
  item: (Folder | Entry)[];
}

/** The example body of each request with a raw (JSON) one, by `METHOD /path`. */
function examples(collection: Folder): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (f: Folder) => {
    for (const e of f.item) {
      if (!("request" in e)) {
        walk(e);
        continue;
      }
      const r = e.request;
      const path = "/" + r.url.path.map((s) => s.replace(/^:(.+)$/, "{$1}")).join("/");
      if (r.body?.mode === "raw" && r.body.raw) out.set(`${r.method} ${path}`, r.body.raw);
    }
  };
  walk(collection);
  return out;
}

Deno.test("postman: no example body is refused as invalid by its route", async () => {
  const t = await openTestEnv();
  try {
    const a = await newTenant(t, "A");
    const collection = (await t.call("GET", "/api-docs/postman.json")).body as Folder;
    const bodies = examples(collection);
    const refused: string[] = [];
    // The operator's last: its examples change the tenant (its plan, its limits, its key).
    const ops = operations(await openApiDocument(t)).filter((o) => o.body !== null)
      .sort((x, y) => Number(x.security === "operator") - Number(y.security === "operator"));
    for (const op of ops) {
      const body = bodies.get(nameOf(op));
      assert.ok(body !== undefined, `${nameOf(op)} has an example body`);
      const { url } = urlOf(op, a.ids);
      const headers = await credentialOf(t, op, a, url);
      const r = await send(t, op, url, headers, body);
      const errors: { path: string }[] = r.json?.errors ?? [];
      const own = errors.length > 0 && errors.every((e) => OWN_OBJECTS.has(e.path));
      if (INVALID.has(r.json?.code) && !own) {
        refused.push(
          `${nameOf(op)}: ${r.json.code} ${JSON.stringify(r.json.errors ?? r.json.message)}`,
        );
      }
    }
    assert.deepEqual(refused, [], "example bodies refused as invalid");
    assert.ok(ops.length > 50, `operations with a JSON body: ${ops.length}`);
  } finally {
    await t.close();
  }
});

Deno.test("postman: the fare estimate's example query is a route the catalogue serves", async () => {
  const t = await openTestEnv();
  try {
    const b = await t.createBusiness();
    const collection = (await t.call("GET", "/api-docs/postman.json")).body;
    type Query = { key: string; value: string; disabled?: boolean };
    const found: { request: { url: { query: Query[] } } }[] = [];
    const walk = (f: { item?: unknown[]; name?: string; request?: unknown }) => {
      for (const e of (f.item ?? []) as { name?: string; item?: unknown[]; request?: unknown }[]) {
        if (e.item) walk(e);
        else if (JSON.stringify(e.request).includes('"fare-estimate"')) found.push(e as never);
      }
    };
    walk(collection);
    assert.equal(found.length, 1);
    // What Postman sends: the enabled parameters (the required ones).
    const sent = found[0]!.request.url.query.filter((q) => !q.disabled);
    const query = new URLSearchParams(sent.map((q) => [q.key, q.value]));
    // Before, the schemas' minimums (-90, -180): 422 outside_service_area.
    const r = await t.call("GET", `/business/trip/fare-estimate?${query}`, { key: b.api_key });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  } finally {
    await t.close();
  }
});
