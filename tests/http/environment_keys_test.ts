/**
 * Business API 5.2, CONTRACT errors, by construction: every operation of each environment's
 * OpenAPI document that takes a key (business, client or driver credentials) is called once per
 * wrong-environment credential. Live answers a sandbox key 401 sandbox_key_on_live; the sandbox
 * answers a live key, and a live portal session, 401 live_key_on_sandbox. Credentials are checked
 * before parameters and bodies, so no body is sent. A route added later is walked unlisted.
 */
import assert from "node:assert/strict";
import { clientKeyPrefix } from "../../src/courier/auth.ts";
import { nameOf, openApiDocument, type Operation, operations } from "../helpers/openapi_ops.ts";
import { createPoolDriver } from "../helpers/pool_drivers.ts";
import { openTestEnv, type TestEnv } from "../helpers/test_env.ts";

/** Operations whose credential is not in a header, each with why. */
const EXCLUDED: Readonly<Record<string, string>> = {
  // The browser's WebSocket carries the key in the query (board_test.ts, dispatch_board_test.ts).
  "GET /business/courier/operations/live": "the credential in the query",
  "GET /business/dispatch-board/live": "the credential in the query",
  // A bearer token outside /operator/ reads as a driver's (openapi_ops.ts), but this is the
  // operator's token: no environment's key reaches it.
  "GET /metrics": "the operator's bearer token",
};

/** Calls from one address are counted per minute (ANONYMOUS_RATE_LIMIT): a minute per batch. */
const CALLS_PER_MINUTE = 400;

interface Credentials {
  readonly business: readonly [string, string][];
  readonly client: readonly [string, string][];
  readonly driver: readonly [string, string][];
}

/** A live business's key and owner session, and a courier driver's and a pool driver's tokens. */
async function issued(t: TestEnv): Promise<Credentials> {
  const b = await t.createBusiness();
  const courierDriver = await t.call("POST", `/operator/businesses/${b.id}/drivers`, {
    operator: true,
    body: { name: "Kabo Molefe", phone: "+26771234568", vehicle_type_id: 1 },
  });
  assert.equal(courierDriver.status, 201, JSON.stringify(courierDriver.body));
  const pool = await createPoolDriver(t);
  const business: [string, string][] = [["business key", b.api_key]];
  if (t.env.name === "live") {
    const login = await t.call("POST", "/business/login", {
      body: { email: b.owner.email, password: b.owner.password },
    });
    assert.equal(login.status, 200, JSON.stringify(login.body));
    business.push(["portal session", login.body.data.token]);
  }
  return {
    business,
    // A client key says its environment in its prefix, which live checks before any lookup.
    client: [["client key", `${clientKeyPrefix(t.env.name)}${crypto.randomUUID()}`]],
    driver: [["courier driver", courierDriver.body.data.token], ["pool driver", pool.token]],
  };
}

function headersOf(op: Operation, credential: string): Record<string, string> {
  switch (op.security) {
    case "business":
      return { "X-Business-API-Key": credential };
    case "client":
      return { "X-Client-API-Key": credential };
    default:
      return { Authorization: `Bearer ${credential}` };
  }
}

/** The path with each parameter filled: an allowed value where the schema lists them. */
function urlOf(op: Operation): string {
  let path = op.path;
  for (const p of op.pathParams) {
    const value = p.schema.enum?.[0] ?? "x1";
    path = path.replace(`{${p.name}}`, encodeURIComponent(String(value)));
  }
  return path;
}

/** Every keyed operation called with `from`'s credentials; the answers that were not `code`. */
async function walk(t: TestEnv, from: Credentials, code: string): Promise<string[]> {
  const wrong: string[] = [];
  let calls = 0;
  const keyed = operations(await openApiDocument(t)).filter((op) =>
    ["business", "client", "driver"].includes(op.security) && !EXCLUDED[nameOf(op)]
  );
  assert.ok(keyed.length > 100, `only ${keyed.length} keyed operations`);
  for (const op of keyed) {
    for (const [what, credential] of from[op.security as keyof Credentials]) {
      if (++calls % CALLS_PER_MINUTE === 0) t.clock.advanceBy(61_000);
      const res = await t.app.request(`/api${urlOf(op)}`, {
        method: op.method,
        headers: headersOf(op, credential),
      });
      const body = await res.json().catch(() => null);
      if (res.status !== 401 || body?.code !== code) {
        wrong.push(`${nameOf(op)} with a ${what}: ${res.status} ${body?.code}`);
      }
    }
  }
  return wrong;
}

Deno.test("environment keys: every keyed route refuses the other environment's credentials", async () => {
  const live = await openTestEnv();
  const sandbox = await openTestEnv({ name: "sandbox" });
  try {
    const [liveKeys, sandboxKeys] = [await issued(live), await issued(sandbox)];
    assert.deepEqual(await walk(live, sandboxKeys, "sandbox_key_on_live"), []);
    assert.deepEqual(await walk(sandbox, liveKeys, "live_key_on_sandbox"), []);
  } finally {
    await Promise.all([live.close(), sandbox.close()]);
  }
});
