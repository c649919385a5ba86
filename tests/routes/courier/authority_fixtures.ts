/** The authority sweeps' world: the OpenAPI operations expanded with ids, two couriers' resources and people, requests and answers compared by shape. */
import assert from "node:assert/strict";
import { type TestEnv } from "../../helpers/test_env.ts";
import {
  bookShipment,
  type Client,
  type Courier,
  newDriver,
  topUp,
} from "../../helpers/courier.ts";
import { COURIER_SCOPES } from "../../../src/platform/rules/scopes.ts";
import { newOfferId } from "../../../src/business/flows/dispatch.ts";
import { businessThingsOf } from "../../helpers/guard_world.ts";

/** An answer: its status and its body, parsed when JSON, else its text. */
export interface Answer {
  readonly status: number;
  // deno-lint-ignore no-explicit-any
  readonly body: any;
}

/**
 * t.call, tolerating answers that are no JSON (a CSV or PDF a refused caller must never get):
 * their body is the text.
 */
export async function send(
  t: TestEnv,
  method: string,
  path: string,
  as: { key?: string; bearer?: string },
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (as.key) headers["X-Business-API-Key"] = as.key;
  if (as.bearer) headers["Authorization"] = `Bearer ${as.bearer}`;
  const withBody = method !== "GET" && method !== "DELETE";
  if (withBody) headers["Content-Type"] = "application/json";
  const res = await t.app.request(`/api${path}`, {
    method,
    headers,
    ...(withBody ? { body: JSON.stringify(bodyFor(path)) } : {}),
  });
  const text = await res.text();
  try {
    return { status: res.status, body: text ? JSON.parse(text) : null };
  } catch {
    return { status: res.status, body: text };
  }
}

export interface Operation {
  readonly method: string;
  readonly path: string;
  /** Each enum path parameter's values (an action). */
  readonly enums: Record<string, string[]>;
  /** What the document says answers 403. */
  readonly forbidden: string;
}

export async function operations(t: TestEnv): Promise<Operation[]> {
  const doc = await t.call("GET", "/api-docs/openapi.json");
  assert.equal(doc.status, 200);
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.body.paths as Record<string, object>)) {
    for (const [method, op] of Object.entries(methods as Record<string, Record<string, unknown>>)) {
      const enums: Record<string, string[]> = {};
      for (
        const p of (op.parameters ?? []) as {
          in: string;
          name: string;
          schema?: { enum?: string[] };
        }[]
      ) {
        if (p.in === "path" && p.schema?.enum) enums[p.name] = p.schema.enum;
      }
      const responses = (op.responses ?? {}) as Record<string, { description?: string }>;
      ops.push({
        method: method.toUpperCase(),
        path,
        enums,
        forbidden: responses["403"]?.description ?? "",
      });
    }
  }
  return ops;
}

/** Every concrete path of an operation: one per value of each enum parameter. */
export function expand(op: Operation, ids: Record<string, string>): string[] {
  let paths = [op.path];
  for (const [name, values] of Object.entries(op.enums)) {
    paths = paths.flatMap((p) => values.map((v) => p.replace(`{${name}}`, v)));
  }
  return paths.map((p) =>
    p.replace(/\{(\w+)\}/g, (_, name: string) => {
      const id = ids[`${op.path}:${name}`] ?? ids[name];
      assert.ok(id, `no identifier for {${name}} in ${op.path}: add one to this test`);
      return id;
    })
  );
}

/**
 * One body most endpoints take as valid (unknown fields are ignored), so a refusal is the
 * endpoint's authority check, not its validation. It claims every role and scope: that must
 * change nothing (courier 1.5).
 */
export const BODY = {
  role: "owner",
  portal_role: "admin",
  principal: "owner",
  scopes: [...COURIER_SCOPES],
  api_key_scopes: [...COURIER_SCOPES],
  reason: "sweep",
  resolution: "sweep",
  evidence: "photo.jpg",
  to: "ops",
  state: "acknowledged",
  external_reference: "EXT-1",
  amount: "10",
  currency: "BWP",
  payer: "client",
  reference: "REF-SWEEP-1",
  entry_reference: "REF-SWEEP-1",
  period: "2026-01",
  customs_reference: "CUS-1",
  action: "hold",
  documents: [{ name: "invoice" }],
  decision: "accept",
  outcome: "approved",
  value: 5,
  unit: "C",
  source: "probe",
  device: "dev-1",
  at: "2026-01-05T10:00:00+02:00",
  time: "2026-01-05T10:00:00+02:00",
  key: "invoice",
  item: "invoice",
  items: [{ key: "invoice", label: "Invoice" }],
  idempotency_key: "sweep-1",
  driver_id: null,
  order: [],
  waybills: [],
  note: "sweep",
  kind: "deliver",
  event: "scan",
  waybill: "WB9999999999999",
  rate: "1.5",
  sample_type: "blood",
  address: "Plot 9, Gaborone",
  name: "sweep",
  code: "SWEEP",
  filters: {},
  effective_from: "2027-01-01T00:00:00+02:00",
  base_charge: 1,
  packet_code: "PKT-1",
};

/** BODY, but a shopper's line takes its own outcome (shopping 3), not a claim's. */
function bodyFor(path: string): typeof BODY {
  return /\/shopping(-orders)?\/[^/]+\/stores\//.test(path) ? { ...BODY, outcome: "found" } : BODY;
}

/** Courier A's things, each with an identifier of its own. */
export async function ownedByA(t: TestEnv, a: Courier, client: Client) {
  const key = a.business.api_key;
  const post = async (path: string, body: unknown) => {
    const r = await t.call("POST", path, { key, body });
    assert.ok(r.status < 300, `${path}: ${JSON.stringify(r.body)}`);
    return r.body.data;
  };
  await topUp(t, a, client, "2000");
  const domestic = await bookShipment(t, client, { client_order_reference: "A-ORDER-1" });
  const abroad = await bookShipment(t, client, { to_country: "ZA" });
  const driver = await newDriver(t, a.business.id);
  const run = await post("/business/network-runs", {
    facility_id: "GBE-HUB",
    kind: "linehaul",
    countries: ["BW"],
    capacity: { kg: 100, m3: 2, pieces: 10, cold_slots: 0 },
    driver_id: driver.id,
  });
  const withStop = await post(`/business/network-runs/${run.id}/stops`, {
    kind: "deliver",
    waybill: domestic.waybill,
  });
  // A run with a stop and no driver raises leg_unassigned: an alert of A's.
  const lonely = await post("/business/network-runs", {
    facility_id: "GBE-HUB",
    kind: "linehaul",
    countries: ["BW"],
    capacity: { kg: 100, m3: 2, pieces: 10, cold_slots: 0 },
  });
  await post(`/business/network-runs/${lonely.id}/stops`, {
    kind: "deliver",
    waybill: abroad.waybill,
  });
  const customs = await t.call("GET", `/business/shipments/${abroad.waybill}/customs`, { key });
  assert.equal(customs.status, 200, JSON.stringify(customs.body));
  const crossing = customs.body.data.crossings[0].id as string;
  const claim = await post("/business/courier/claims", {
    waybill: domestic.waybill,
    kind: "damage",
    amount: 10,
    description: "box crushed",
  });
  const store = await post(`/business/courier/clients/${client.id}/stores`, {
    code: "A-STORE",
    name: "A's store",
    address: "Plot 9, Gaborone",
  });
  await post("/business/compliance-checklists", {
    code: "A-LIST",
    name: "A's list",
    supplier: "clearing_agent",
    items: [{ key: "invoice", label: "Commercial invoice" }],
  });
  await post("/business/courier/operations/views", { name: "a-view", filters: {} });
  await t.settle();
  const alerts = await t.call("GET", "/business/courier/alerts", { key });
  const alert = alerts.body.data[0]?.id as string;
  assert.ok(alert, `an alert of A's: ${JSON.stringify(alerts.body)}`);
  const events = await t.call("GET", "/business/courier/billing/events", { key });
  const event = events.body.data[0]?.event_id as string;
  assert.ok(event, JSON.stringify(events.body));
  const person = await inviteCoordinator(t, a);
  const business = await businessThingsOf(t, a.business.id, a.business.api_key, "A");
  const { delivery, order, subscription, batch, checkout } = business;
  const trip = business.trip.reference;
  return {
    driver,
    ids: {
      client: client.id,
      card: a.rateCardId,
      version: "1",
      event_id: event,
      sha256: "0".repeat(64),
      waybill: domestic.waybill,
      reference: domestic.waybill,
      run: run.id as string,
      stop: withStop.stops[0].id as string,
      crossing,
      "/business/courier/alerts/{id}:id": alert,
      "/business/courier/alerts/{id}/assign:id": alert,
      "/business/courier/alerts/{id}/acknowledge:id": alert,
      "/business/courier/alerts/{id}/resolve:id": alert,
      "/business/courier/alerts/{id}/evidence:id": alert,
      "/business/courier/claims/{id}:id": claim.id as string,
      "/business/courier/claims/{id}/decide:id": claim.id as string,
      "/business/people/{id}:id": person.id,
      "/business/trips/{id}:id": trip,
      // Business API 4.2: A's batch.
      "/business/batches/{id}:id": batch,
      "/business/batches/{id}/packing-slips:id": batch,
      "/business/trips/{id}/cancel:id": trip,
      "/business/trips/{id}/label:id": trip,
      "/business/trips/{id}/waybill:id": trip,
      "/business/trips/{id}/receipt:id": trip,
      "/business/trips/{id}/pick-list:id": trip,
      "/business/trips/{id}/packing-slip:id": trip,
      "/business/trips/{id}/proof/{file}:id": trip,
      "/business/trip/{reference}/ready:reference": trip,
      "/business/sandbox/trips/{reference}/{step}:reference": trip,
      // Business API 2.4, 3.1: the tracking link of a trip, a dispatch offer of it.
      trip,
      offer: newOfferId(a.business.id, trip),
      "/business/webhook-deliveries/{id}:id": delivery,
      "/business/webhook-deliveries/{id}/requeue:id": delivery,
      // Shopping 4: A's shopping order.
      "/business/shopping-orders/{reference}:reference": order,
      // Shopping 3, 4: its decision, its shopper's driver app and sandbox steps, store F1, line I1.
      "/business/shopping-orders/{reference}/items/{external_item_id}/decision:reference": order,
      ...Object.fromEntries(SHOPPER_PATHS.map((p) => [`${p}:reference`, order])),
      external_fulfilment_id: "F1",
      external_item_id: "I1",
      // Business API 4.2: A's recurring delivery.
      "/business/subscriptions/{id}:id": subscription,
      "/business/subscriptions/{id}/pause:id": subscription,
      "/business/subscriptions/{id}/resume:id": subscription,
      "/business/subscriptions/{id}/cancel:id": subscription,
      "/business/checkouts/{reference}:reference": checkout,
      "/business/checkouts/{reference}/cancel:reference": checkout,
      code: "A-LIST",
      name: "a-view",
      store: store.id as string,
    } as Record<string, string>,
  };
}

/** Shopping 3: the shopper's paths of a shopping order (driver app and sandbox). */
export const SHOPPER_PATHS = [
  "/driver/shopping/{reference}",
  "/business/sandbox/shopping-orders/{reference}",
]
  .flatMap((base) => [
    `${base}/stores/{external_fulfilment_id}/items/{external_item_id}`,
    `${base}/stores/{external_fulfilment_id}/collect`,
    `${base}/stores/{external_fulfilment_id}/unavailable`,
  ]).concat(
    "/business/sandbox/shopping-orders/{reference}/items/{external_item_id}/close_decision_window",
  );

/**
 * The Business API's driver app (its pool drivers, another credential than a courier's run
 * driver): swept by tests/http/guard_isolation_test.ts with pool drivers as strangers.
 */
export const POOL_DRIVER_PATH = /^\/driver\/(shift|me|positions|offers|trips|shopping)(\/|$)/;

/** Identifiers nobody holds, of the same shapes. */
export const NOBODYS: Record<string, string> = {
  client: "cli_nobody000000000000000",
  card: "rc_nobody0000000000000000",
  version: "1",
  event_id: "evt_nobody000000000000000",
  sha256: "0".repeat(64),
  waybill: "WB9999999999999",
  reference: "WB9999999999999",
  run: "run_nobody000000000000000",
  stop: "stop_nobody00000000000000",
  crossing: "cx_nobody0000000000000000",
  id: "alr_nobody000000000000000",
  code: "NOBODY-LIST",
  name: "nobody-view",
  store: "sto_nobody000000000000000",
  trip: "BK-NOBODY0000000",
  "/business/checkouts/{reference}:reference": "CO-NOBODY0000000",
  "/business/checkouts/{reference}/cancel:reference": "CO-NOBODY0000000",
  offer: newOfferId("biz_nobody000000000000000", "BK-NOBODY0000000"),
  // Shopping 3, 4: a store and a line of an order nobody holds (the reference names nobody's).
  external_fulfilment_id: "F1",
  external_item_id: "I1",
};

/** What courier A reads of its own things: none may change when others call. */
export async function snapshotOfA(t: TestEnv, a: Courier, ids: Record<string, string>) {
  const key = a.business.api_key;
  const paths = [
    `/business/courier/operations/${ids.waybill}`,
    `/business/network-runs/${ids.run}`,
    `/business/shipments/${ids.reference}/customs`,
    `/business/courier/alerts/${ids["/business/courier/alerts/{id}:id"]}`,
    `/business/courier/claims/${ids["/business/courier/claims/{id}:id"]}`,
    `/business/courier/clients/${ids.client}`,
    `/business/courier/clients/${ids.client}/billing`,
    `/business/courier/rate-cards/${ids.card}`,
    `/business/courier/billing/events/${ids.event_id}`,
    `/business/compliance-checklists/${ids.code}`,
    `/business/courier/operations/views`,
    `/business/courier/clients/${ids.client}/stores`,
    `/business/trips/${ids["/business/trips/{id}:id"]}`,
    `/business/batches/${ids["/business/batches/{id}:id"]}`,
    `/business/checkouts/${ids["/business/checkouts/{reference}:reference"]}`,
    `/business/webhook-deliveries/${ids["/business/webhook-deliveries/{id}:id"]}`,
    `/business/shopping-orders/${ids["/business/shopping-orders/{reference}:reference"]}`,
    `/business/subscriptions/${ids["/business/subscriptions/{id}:id"]}`,
  ];
  const out: Record<string, unknown> = {};
  for (const p of paths) {
    const r = await t.call("GET", p, { key });
    assert.equal(r.status, 200, `${p}: ${JSON.stringify(r.body)}`);
    out[p] = r.body;
  }
  return out;
}

/** The answer with the identifiers in the path written as `<id>`, to compare two answers. */
export function shape(r: Answer, ids: readonly string[]) {
  let message = String(r.body?.message ?? "");
  for (const id of ids) message = message.replaceAll(id, "<id>");
  return { status: r.status, code: r.body?.code, message };
}

export function idsIn(path: string, ids: Record<string, string>): string[] {
  return Object.values(ids).filter((id) => id.length > 3 && path.includes(id))
    .sort((x, y) => y.length - x.length);
}

// Public or static: not a courier's resource (the board page and the tracking link).
export const NOT_RESOURCES = ["/business/courier/board/{file}", "/s/{token}"];

/** A portal sign-in; answers the session token. */
export async function login(t: TestEnv, email: string, password: string): Promise<string> {
  const r = await t.call("POST", "/business/login", { body: { email, password } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.token as string;
}

/** The courier's owner signs in; answers the owner's session token. */
export function ownerOf(t: TestEnv, courier: Courier): Promise<string> {
  return login(t, courier.business.owner.email, courier.business.owner.password);
}

/** The owner invites a coordinator; answers the coordinator's id and invitation. */
export async function inviteCoordinator(t: TestEnv, courier: Courier) {
  const owner = await ownerOf(t, courier);
  const email = `coordinator.${crypto.randomUUID().slice(0, 8)}@example.com`;
  const r = await t.call("POST", "/business/people", {
    key: owner,
    body: { name: "Coordinator", email, portal_role: "coordinator" },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.data as { id: string; email: string; password: string };
}

/** The owner signs in and invites a coordinator; answers the coordinator's session token. */
export async function coordinatorOf(t: TestEnv, courier: Courier): Promise<string> {
  const invited = await inviteCoordinator(t, courier);
  return await login(t, invited.email, invited.password);
}
