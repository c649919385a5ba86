/**
 * Courier 1.1, by construction: every operation of the OpenAPI document whose path or query names
 * a resource is called with another tenant's credentials (and, on client and driver routes,
 * another client's and another driver's) and this tenant's real identifiers, and must answer
 * word for word as identifiers nobody holds, and change nothing. A route added later is probed
 * without anyone listing it; a parameter this test cannot fill fails it by name.
 */
import assert from "node:assert/strict";
import { openTestEnv, type TestEnv } from "../helpers/test_env.ts";
import { digest, newTenant, type Tenant } from "../helpers/guard_world.ts";
import {
  nameOf,
  openApiDocument,
  type Operation,
  operations,
  sampleBody,
} from "../helpers/openapi_ops.ts";
import { namesResource, nobody, urlOf } from "../helpers/guard_params.ts";
import { VALID_BODIES } from "../helpers/valid_bodies.ts";

/**
 * Operations deliberately not probed, each with why. Anything else naming a resource is probed.
 */
const EXCLUDED: Readonly<Record<string, string>> = {
  // The tracking token is itself the capability, handed to the recipient (tracking_test.ts).
  "GET /s/{token}": "public tracking by token",
  // Business API 2.4 and 4.1: the tracking token, and the chat token sent with the reference, are
  // themselves the capability (tracking_test.ts and chat_test.ts test a wrong one).
  "GET /trip-track/{token}": "public tracking by token",
  // Business API 2.4 rule 5: a reference link is public by design, reduced (tracking_test.ts).
  "GET /track/{reference}": "public reduced tracking by reference",
  "GET /trip-chat/{reference}": "public chat with the chat token",
  "POST /trip-chat/{reference}": "public chat with the chat token",
  // Business API 5.9: the channel's signed token is the capability (sandbox_channels_test.ts
  // tests another business's token on this business's channel).
  "POST /channel/{source}/events": "public, the channel token",
  // Shopping 6: the signed link is itself the capability, handed to the merchant in its own
  // event (events_test.ts and links_test.ts test an altered and an expired one).
  "GET /shopping/links/{token}": "public, the signed link",
  // `key` is the caller's own credential, carried in the query for a browser's WebSocket.
  "GET /business/courier/operations/live": "the credential in the query",
  // As the courier's board; its isolation is tested by dispatch_board_test.ts.
  "GET /business/dispatch-board/live": "the credential in the query",
};

/** The operation's URL with `a`'s identifiers, or those `fill` makes of them; null: none. */
function probeOf(op: Operation, a: Tenant) {
  return namesResource(op) ? (fill: (id: string) => string) => urlOf(op, a.ids, fill) : null;
}

/** The credentials that must not reach `a`'s resources, by the operation's security. */
function strangers(op: Operation, a: Tenant, b: Tenant): [string, Record<string, string>][] {
  const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });
  switch (op.security) {
    case "business":
      return [
        ["another courier's key", { "X-Business-API-Key": b.courier.business.api_key }],
        ["another courier's owner", { "X-Business-API-Key": b.ownerToken }],
      ];
    case "client":
      return [
        ["another courier's client", { "X-Client-API-Key": b.client.api_key }],
        ["another client", { "X-Client-API-Key": a.client2.api_key }],
      ];
    case "driver":
      return [
        ["another courier's driver", bearer(b.driver.token)],
        ["another driver", bearer(a.driver2.token)],
        // The dispatch pool's drivers (Business API trips) answer on the same security.
        ["another tenant's pool driver", bearer(b.poolDriver.token)],
        ["another pool driver", bearer(a.poolDriver2.token)],
      ];
    default:
      throw new Error(`${nameOf(op)}: no stranger for security ${op.security}`);
  }
}

/** The answer as a caller reads it, the identifiers asked for written as `<id>`. */
async function answer(
  t: TestEnv,
  op: Operation,
  url: string,
  used: readonly string[],
  headers: Record<string, string>,
): Promise<{ status: number; code: string | null; text: string }> {
  const body = op.body ? VALID_BODIES[nameOf(op)] ?? sampleBody(op.body) : undefined;
  const res = await t.app.request(`/api${url}`, {
    method: op.method,
    headers: body === undefined ? headers : { ...headers, "Content-Type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  let text = await res.text();
  for (const id of used) text = text.replaceAll(id, "<id>");
  let code: string | null = null;
  try {
    code = JSON.parse(text).code ?? JSON.parse(text).error ?? null;
  } catch { /* a file answer */ }
  return { status: res.status, code, text };
}

Deno.test("guards: every operation naming a resource answers another tenant's ids as ids nobody holds, and changes nothing", async () => {
  const t = await openTestEnv();
  try {
    const [a, b] = await Promise.all([newTenant(t, "A"), newTenant(t, "B")]);
    const all = operations(await openApiDocument(t));
    const stale = Object.keys(EXCLUDED).filter((n) => !all.some((op) => nameOf(op) === n));
    assert.deepEqual(stale, [], "excluded operations the document no longer has");
    // The operator is one credential over every tenant: it has no other tenant to be.
    const ops = all.filter((op) => op.security !== "operator" && !(nameOf(op) in EXCLUDED));
    const probes = ops.flatMap((op) => {
      const url = probeOf(op, a);
      return url ? [{ op, url }] : [];
    });
    assert.ok(probes.length >= 60, `operations probed: ${probes.length}`);
    const before = [await digest(t, a), await digest(t, b)];
    const unreached: string[] = [];
    const leaks: string[] = [];
    await Promise.all(probes.map(async ({ op, url }) => {
      const refused: string[] = [];
      for (const [who, headers] of strangers(op, a, b)) {
        const theirs = url((id) => id);
        const none = url(nobody);
        const real = await answer(t, op, theirs.url, theirs.used, headers);
        const missing = await answer(t, op, none.url, none.used, headers);
        if (real.status !== missing.status || real.text !== missing.text) {
          leaks.push(
            `${nameOf(op)} as ${who}: ${real.status} ${real.text.slice(0, 200)} ` +
              `but for ids nobody holds ${missing.status} ${missing.text.slice(0, 200)}`,
          );
        }
        // A refusal before the identifier is looked up proves nothing: some stranger must get
        // past the credential's guard and the request's schema.
        const early = missing.status === 401 || missing.status === 403 ||
          missing.code === "validation_failed";
        if (early) refused.push(`${nameOf(op)} as ${who}: ${missing.text.slice(0, 300)}`);
      }
      if (refused.length === strangers(op, a, b).length) unreached.push(...refused);
    }));
    assert.deepEqual(leaks, [], "answers that tell another tenant's identifiers exist");
    assert.deepEqual(unreached, [], "probes refused before the lookup: give a valid body");
    assert.equal(await digest(t, a), before[0], "a probe changed what tenant A sees");
    assert.equal(await digest(t, b), before[1], "a probe changed what the stranger sees");
  } finally {
    await t.close();
  }
});
