/**
 * Probing an operation as its own tenant (the tests generated from the OpenAPI document): the
 * credential its guard lets in, a request with a body as text, work a few at a time.
 */
import type { TestEnv } from "./test_env.ts";
import { OPERATOR_TOKEN } from "./test_env.ts";
import type { Tenant } from "./guard_world.ts";
import { type JsonSchema, nameOf, type Operation } from "./openapi_ops.ts";
import { urlOf } from "./guard_params.ts";

/** The tenant's own credential for the operation: the one its guard lets in. */
export async function credentialOf(t: TestEnv, op: Operation, a: Tenant, url: string) {
  const options: Record<string, string>[] = {
    operator: [{ Authorization: `Bearer ${OPERATOR_TOKEN}` }],
    business: [
      { "X-Business-API-Key": a.courier.business.api_key },
      { "X-Business-API-Key": a.ownerToken },
    ],
    client: [{ "X-Client-API-Key": a.client.api_key }],
    driver: [
      { Authorization: `Bearer ${a.driver.token}` },
      { Authorization: `Bearer ${a.poolDriver.token}` },
    ],
    // A channel's token is a JWT of the sandbox's channels: no tenant credential here (the
    // route is the sandbox's, answered 404 on live).
    channel: [{}],
    public: [{}],
  }[op.security] ?? [];
  for (const headers of options) {
    const r = await send(t, op, url, headers, "[]");
    if (r.status !== 401 && r.status !== 403) return headers;
  }
  throw new Error(`${nameOf(op)}: no credential of the tenant gets past its guard`);
}

/** Sends `body` as `type` (JSON unless told) with the tenant's `headers`; answers it read. */
export async function send(
  t: TestEnv,
  op: Operation,
  url: string,
  headers: Record<string, string>,
  body: string | FormData,
  type: string | null = "application/json",
) {
  const res = await t.app.request(`/api${url}`, {
    method: op.method,
    // A FormData body brings its own type, with its boundary.
    headers: type === null ? headers : { ...headers, "Content-Type": type },
    body,
  });
  const text = await res.text();
  let json: JsonSchema = null;
  try {
    json = JSON.parse(text);
  } catch { /* judged below */ }
  return { status: res.status, json, text };
}

/**
 * Whether a list's answer refused every row of it (POST /client/shipments/bulk checks each row on
 * its own and answers each bad one in `results`, courier 4.1): a refusal too, if none booked.
 */
export function everyRowRefused(r: { status: number; json: JsonSchema }): boolean {
  const data = r.json?.data;
  return r.status === 200 && data?.booked === 0 && Array.isArray(data.results) &&
    data.results.length > 0 &&
    data.results.every((x: JsonSchema) => typeof x?.error?.code === "string");
}

/** Whether an answer is a refusal in the error shape (CONTRACT "Errors"): a 4xx, never a 5xx. */
export function refusedInShape(r: { status: number; json: JsonSchema }): boolean {
  return r.status >= 400 && r.status < 500 && r.json?.success === false &&
    typeof r.json.code === "string" && typeof r.json.message === "string";
}

/** Runs `work` over `items`, `width` at a time. */
export async function pooled<T>(
  items: readonly T[],
  width: number,
  work: (item: T) => Promise<void>,
) {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

type Answer = Awaited<ReturnType<typeof send>>;

/**
 * Sends each operation its bad requests (`probesOf`, named) as tenant `a`, `width` operations
 * at a time; answers how many were sent and each answer that was not a refusal in the error
 * shape, named by its operation and probe.
 */
export async function unrefused<P>(
  t: TestEnv,
  a: Tenant,
  ops: readonly Operation[],
  o: {
    readonly width: number;
    readonly probesOf: (op: Operation) => [string, P][];
    readonly sendOne: (
      op: Operation,
      url: string,
      headers: Record<string, string>,
      probe: P,
    ) => Promise<Answer>;
  },
): Promise<{ failures: string[]; sent: number }> {
  const failures: string[] = [];
  let sent = 0;
  await pooled(ops, o.width, async (op) => {
    const { url } = urlOf(op, a.ids);
    const headers = await credentialOf(t, op, a, url);
    for (const [what, probe] of o.probesOf(op)) {
      const r = await o.sendOne(op, url, headers, probe);
      sent++;
      if (!refusedInShape(r) && !everyRowRefused(r)) {
        failures.push(`${nameOf(op)}, ${what}: ${r.status} ${r.text.slice(0, 300)}`);
      }
    }
  });
  return { failures, sent };
}
