/**
 * The integrator's first day against the contract the service serves: the README's walkthrough
 * (every step, as written) and the Business API's and shopping's happy paths, in process, each
 * answer checked against the OpenAPI document (tests/helpers/openapi_answers.ts: the status one
 * the operation documents, the body its schema with success objects closed, and the headers its
 * response declares: X-Request-Id, X-Service-Environment, the rate headers, Retry-After).
 */
import assert from "node:assert/strict";
import { answerChecker } from "../helpers/openapi_answers.ts";
import { runSteps, shBlocks, stepsOf } from "../helpers/readme_steps.ts";
import {
  type Answer,
  type CallOptions,
  OPERATOR_TOKEN,
  type TestEnv,
  withTestEnv,
} from "../helpers/test_env.ts";
import { fundedBusiness, PARCEL } from "../routes/business/trips_fixtures.ts";
import { orderBody, shoppingBusiness } from "../routes/shopping/shopping_fixtures.ts";
import { onlineDriverAt } from "../helpers/pool_drivers.ts";
import { pngFile } from "../helpers/driver_trips.ts";

const README = new URL("../../README.md", import.meta.url);

/** Checks one answer against the document, noting what is wrong. */
type Check = (method: string, path: string, status: number, body: unknown, h: Headers) => void;

async function checking(t: TestEnv): Promise<{ check: Check; problems: string[] }> {
  const doc = (await t.call("GET", "/api-docs/openapi.json")).body;
  const against = answerChecker(doc);
  const problems: string[] = [];
  const check: Check = (method, path, status, body, h) => {
    const problem = against(method, path, status, body, h);
    if (problem) problems.push(problem);
  };
  return { check, problems };
}

/** `t.call`, each answer checked. */
function checkedCalls(t: TestEnv, check: Check) {
  return async (method: string, path: string, o: CallOptions = {}): Promise<Answer> => {
    const r = await t.call(method, path, o);
    check(method, path, r.status, r.body, r.headers);
    return r;
  };
}

Deno.test("walkthrough: every answer of the README's walkthrough is what the OpenAPI document says", () =>
  withTestEnv(async (t) => {
    const { check, problems } = await checking(t);
    const steps = shBlocks(await Deno.readTextFile(README)).flatMap(stepsOf);
    // The reader's curl to localhost:8080, answered by the app in process.
    const send = async (address: string, init: RequestInit) => {
      const url = new URL(address);
      const res = await t.app.request(url.pathname + url.search, init);
      const text = await res.clone().text();
      const json = res.headers.get("Content-Type")?.startsWith("application/json");
      const path = url.pathname.replace(/^\/api/, "") + url.search;
      check(init.method ?? "GET", path, res.status, json ? JSON.parse(text) : text, res.headers);
      return res;
    };
    const vars = new Map([["OPERATOR_TOKEN", OPERATOR_TOKEN]]);
    const ran = await runSteps(steps, "http://localhost:8080", vars, new Map(), send);
    const failed = ran.find((r) => r.status !== r.expected);
    assert.equal(failed, undefined, failed && `${failed.line}\nanswered ${failed.status}`);
    assert.equal(ran.length, steps.filter((s) => s.kind === "curl").length);
    assert.deepEqual(problems, []);

    // The check itself: a field the schema does not name, or one it requires missing, is caught.
    const profile = await t.call("GET", "/business/profile", { key: vars.get("KEY")! });
    const against = answerChecker((await t.call("GET", "/api-docs/openapi.json")).body);
    assert.equal(against("GET", "/business/profile", 200, profile.body), null);
    const extra = { ...profile.body, data: { ...profile.body.data, undocumented: 1 } };
    assert.match(against("GET", "/business/profile", 200, extra) ?? "", /undocumented/);
    const { success: _, ...lacking } = profile.body;
    assert.notEqual(against("GET", "/business/profile", 200, lacking), null);
    assert.equal(against("GET", "/business/profile", 200, profile.body, profile.headers), null);
    const bare = against("GET", "/business/profile", 200, profile.body, new Headers());
    assert.match(bare ?? "", /X-Request-Id,X-Service-Environment,X-RateLimit-Remaining/);
  }));

Deno.test("walkthrough: a business books, reads, tracks, cancels and sets its webhook as the OpenAPI document says", () =>
  withTestEnv(async (t) => {
    const { check, problems } = await checking(t);
    const call = checkedCalls(t, check);
    const { api_key: key } = await fundedBusiness(t);
    await call("PATCH", "/business/profile", {
      key,
      body: { webhook_url: "https://hooks.example.com/trips" },
    });
    for (const path of ["/business/vehicle-types", "/business/parcel-sizes", "/business/zones"]) {
      await call("GET", path, { key });
    }
    const { pickup_lat, pickup_lng, dest_lat, dest_lng } = PARCEL;
    await call(
      "GET",
      `/business/trip/fare-estimate?pickup_lat=${pickup_lat}&pickup_lng=${pickup_lng}` +
        `&dest_lat=${dest_lat}&dest_lng=${dest_lng}`,
      { key },
    );
    const body = { ...PARCEL, external_reference: "ORD-1001" };
    const booked = await call("POST", "/business/book", { key, body });
    assert.equal(booked.status, 201);
    assert.equal((await call("POST", "/business/book", { key, body })).body.data.replayed, true);
    const { reference, tracking_url, chat_token } = booked.body.data;
    await t.settle();
    await call("GET", "/business/trips", { key });
    await call("GET", "/business/trips/active", { key });
    await call("GET", `/business/trips/${reference}`, { key });
    const token = new URL(tracking_url).pathname.split("/").pop();
    await call("GET", `/trip-track/${token}`);
    await call("GET", `/trip-chat/${reference}?token=${chat_token}`);
    await call("POST", `/trip-chat/${reference}`, {
      body: { token: chat_token, message: "Gate 2" },
    });
    await call("POST", `/business/trips/${reference}/tracking-link/rotate`, { key });
    await call("POST", `/business/trips/${reference}/tracking-link/revoke`, { key });
    assert.equal((await call("GET", `/trip-track/${token}`)).status, 410);
    await call("POST", `/business/trips/${reference}/cancel`, { key, body: { reason: "moved" } });
    const again = await call("POST", `/business/trips/${reference}/cancel`, { key, body: {} });
    assert.equal(again.body.data.already_cancelled, true);
    await call("GET", "/business/wallet", { key });
    await call("GET", "/business/wallet/transactions", { key });
    await call("POST", "/business/webhook-test", { key });
    await call("GET", "/business/webhook-deliveries", { key });
    await call("GET", "/business/api-key", { key });
    await call("POST", "/business/webhook-secret/regenerate", { key });
    const rotated = await call("POST", "/business/api-key/regenerate", { key });
    // Business API 4.3: the previous key is invalid at once.
    assert.equal((await call("GET", "/business/profile", { key })).status, 401);
    await call("GET", "/business/profile", { key: rotated.body.data.api_key });
    // Business API 8: past the Starter plan's 30 a minute, 429 with Retry-After.
    const { api_key: starter } = await t.createBusiness({ plan: "starter" });
    const answers = [];
    for (let i = 0; i <= 30; i++) {
      answers.push(await call("GET", "/business/wallet", { key: starter }));
    }
    assert.equal(answers.at(-1)!.status, 429);
    assert.deepEqual(problems, []);
  }));

Deno.test("walkthrough: the sandbox moves trips and a shopping order with a decision as the OpenAPI document says", () =>
  withTestEnv(async (t) => {
    const { check, problems } = await checking(t);
    const call = checkedCalls(t, check);
    const { api_key: key } = await shoppingBusiness(t);
    await call("PUT", "/business/sandbox/wallet", {
      key,
      body: { currency: "BWP", balance: 5000 },
    });
    await call("POST", "/business/sandbox/inbox", { key });
    const scenarios = [
      ["assign_driver", "arrive_pickup", "pick_up", "arrive_dropoff", "deliver"],
      ["assign_driver", "arrive_pickup", "pick_up", "arrive_dropoff", "fail_delivery"],
      ["assign_driver", "cancel_by_driver"],
    ];
    for (const [i, steps] of scenarios.entries()) {
      const body = { ...PARCEL, external_reference: `SBX-${i}` };
      const { reference } = (await call("POST", "/business/book", { key, body })).body.data;
      for (const step of [...steps, ...(i === 1 ? ["complete_return"] : [])]) {
        const r = await call("POST", `/business/sandbox/trips/${reference}/${step}`, {
          key,
          body: { reason: "nobody home" },
        });
        assert.equal(r.status, 200, `${step}: ${JSON.stringify(r.body)}`);
      }
    }
    await call("PUT", "/business/sandbox/autopilot", { key, body: { scenario: "delivered" } });
    await call("GET", "/business/sandbox/autopilot", { key });
    await t.settle();
    await call("GET", "/business/sandbox/inbox?limit=5", { key });
    await call("GET", "/business/sandbox/readiness", { key });
    await call("GET", "/business/sandbox/messages", { key });

    await call("PUT", "/business/shopping-fulfilment", {
      key,
      body: { webhook_url: "https://hooks.example.com/shopping" },
    });
    await call("POST", "/business/shopping-fulfilment/secret/rotate", { key });
    const shopping = { substitution_preference: "ask" };
    const made = await call("POST", "/business/shopping-orders", {
      key,
      // A float with room for the dearer substitute (the till is held to the float).
      body: orderBody("ORD-SHOP", { stores: 1, lines: 2, shopping }, { purchase_amount: 60 }),
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const ref = made.body.data.reference as string;
    await call("POST", `/business/sandbox/trips/${ref}/assign_driver`, { key, body: {} });
    const at = `/business/sandbox/shopping-orders/${ref}/stores/F-0`;
    const found = { outcome: "found", qty_found: 2, unit_price_paid: 10 };
    await call("POST", `${at}/items/0-0`, { key, body: found });
    const substitute = {
      outcome: "substituted",
      qty_found: 2,
      unit_price_paid: 12,
      substitute: { name: "Brown bread" },
    };
    await call("POST", `${at}/items/0-1`, { key, body: substitute });
    const decided = await call("POST", `/business/shopping-orders/${ref}/items/0-1/decision`, {
      key,
      body: { decision: "accept" },
    });
    assert.equal(decided.status, 200, JSON.stringify(decided.body));
    assert.equal((await call("POST", `${at}/collect`, { key, body: {} })).status, 200);
    await t.settle();
    await call("GET", `/business/shopping-orders/${ref}`, { key });
    await call("GET", "/business/shopping-fulfilment/deliveries", { key });
    assert.deepEqual(problems, []);
  }, { name: "sandbox" }));

Deno.test("walkthrough: a platform driver takes, collects and brings a trip as the OpenAPI document says", () =>
  withTestEnv(async (t) => {
    const { check, problems } = await checking(t);
    const call = checkedCalls(t, check);
    const driver = await onlineDriverAt(t, -24.655, 25.909);
    const b = await fundedBusiness(t);
    await call("PATCH", `/operator/businesses/${b.id}`, {
      operator: true,
      body: { custody_scanning: true },
    });
    const body = {
      ...PARCEL,
      cod_amount: 20,
      stops: [{ address: "Game City", lat: -24.6282, lng: 25.9231 }],
    };
    const booked = await call("POST", "/business/book", { key: b.api_key, body });
    const { reference, scan_code } = booked.body.data;
    await t.env.runtime.outboxesIdle();
    const bearer = driver.token;
    await call("GET", "/driver/me", { bearer });
    const offer = (await call("GET", "/driver/offers", { bearer })).body.data.offer;
    const accept = { bearer, body: { idempotency_key: "accept-1" } };
    assert.equal(
      (await call("POST", `/driver/offers/${offer.offer_id}/accept`, accept)).status,
      200,
    );
    await call("GET", "/driver/trips", { bearer });
    await call("GET", `/driver/trips/${reference}`, { bearer });
    await call("POST", `/driver/trips/${reference}/chat`, {
      bearer,
      body: { message: "On my way" },
    });
    await call("GET", `/driver/trips/${reference}/chat`, { bearer });
    await call("GET", "/business/dispatch-board/state", { key: b.api_key });
    // The proof of delivery goes as multipart, its photo and signature as files.
    const proof = new FormData();
    for (const [k, v] of [["idempotency_key", "deliver"], ["cod_collected_amount", "20"]]) {
      proof.set(k!, v!);
    }
    proof.set("proof_photo", pngFile("door.png"));
    proof.set("signature", pngFile("signature.png"));
    const steps: [string, unknown][] = [
      ["arrive_pickup", { idempotency_key: "arrive_pickup" }],
      ["pick_up", { idempotency_key: "pick_up", scan_code }],
      ["arrive_dropoff", { idempotency_key: "arrive_dropoff" }],
      ["deliver", proof],
    ];
    for (const [action, sent] of steps) {
      const r = await call("POST", `/driver/trips/${reference}/${action}`, { bearer, body: sent });
      assert.equal(r.status, 200, `${action}: ${JSON.stringify(r.body)}`);
    }
    await call("GET", `/business/trips/${reference}`, { key: b.api_key });
    assert.deepEqual(problems, []);
  }));
