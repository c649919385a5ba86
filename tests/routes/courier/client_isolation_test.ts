/**
 * Courier 4.6 isolation, walked from the OpenAPI document so a new client endpoint is covered
 * the day it is added: a client sees only its own shipments, paper, people and money (another
 * client's identifiers answer 404, its rows never appear), and every client call is refused while
 * the courier platform is switched off.
 */
import assert from "node:assert/strict";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { until } from "../../helpers/receiver.ts";
import {
  bookShipment,
  type Client,
  clientKey,
  type Courier,
  DOMESTIC,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";

interface Operation {
  readonly method: string;
  readonly path: string;
}

async function clientOperations(t: TestEnv): Promise<Operation[]> {
  const doc = await t.call("GET", "/api-docs/openapi.json");
  assert.equal(doc.status, 200);
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.body.paths as Record<string, object>)) {
    if (!path.startsWith("/client/")) continue;
    for (const method of Object.keys(methods)) ops.push({ method: method.toUpperCase(), path });
  }
  return ops;
}

/** Everything client B owns that has an identifier of its own. */
async function ownedByB(t: TestEnv, courier: Courier, b: Client) {
  const shipment = await bookShipment(t, b, { client_order_reference: "B-ORDER-1" });
  const store = await t.call("POST", `/business/courier/clients/${b.id}/stores`, {
    key: courier.business.api_key,
    body: { code: "B-STORE", name: "B's store", address: "Plot 9, Gaborone" },
  });
  assert.ok(store.status < 300, JSON.stringify(store.body));
  const quote = await t.call("POST", "/client/quotes", { headers: clientKey(b), body: DOMESTIC });
  assert.ok(quote.status < 300, JSON.stringify(quote.body));
  const prices = await t.call("POST", "/client/prices", { headers: clientKey(b), body: DOMESTIC });
  assert.equal(prices.status, 200, JSON.stringify(prices.body));
  const claim = await t.call("POST", "/business/courier/claims", {
    key: courier.business.api_key,
    body: {
      waybill: shipment.waybill,
      kind: "damage",
      amount: 10,
      description: "box crushed",
    },
  });
  assert.ok(claim.status < 300, JSON.stringify(claim.body));
  const address = await t.call("POST", "/client/addresses", {
    headers: clientKey(b),
    body: { label: "b-home", name: "B Person", address: "Plot 1, Maun", country: "BW" },
  });
  assert.ok(address.status < 300, JSON.stringify(address.body));
  const user = await t.call("POST", "/client/users", {
    headers: clientKey(b),
    body: {
      email: `b-user-${crypto.randomUUID()}@example.com`,
      name: "B User",
      role: "client_user",
    },
  });
  assert.equal(user.status, 201, JSON.stringify(user.body));
  return {
    waybill: shipment.waybill as string,
    store: store.body.data.id as string,
    quote: (quote.body.data.quote_reference ?? quote.body.data.prices_reference) as string,
    prices: prices.body.data.prices_reference as string,
    claim: claim.body.data.id as string,
    user: user.body.data.id as string,
  };
}

function fill(path: string, ids: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const id = ids[name];
    assert.ok(id, `no identifier of client B for {${name}} in ${path}: add one to this test`);
    return id;
  });
}

Deno.test("client isolation: every client endpoint with another client's identifiers answers 404, and lists leave its rows out", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const a = await newClient(t, courier);
    const b = await newClient(t, courier);
    await topUp(t, courier, a, "500");
    await topUp(t, courier, b, "500");
    const mine = await bookShipment(t, a, { client_order_reference: "A-ORDER-1" });
    const theirs = await ownedByB(t, courier, b);
    const ids = {
      waybill: theirs.waybill,
      store: theirs.store,
      reference: theirs.quote,
      action: "stock",
    };
    const ops = await clientOperations(t);
    const withIds = ops.filter((o) => o.path.includes("{"));
    assert.ok(withIds.length >= 6, `client endpoints with identifiers: ${withIds.length}`);
    for (const op of withIds) {
      const r = await t.call(op.method, fill(op.path, ids), {
        headers: clientKey(a),
        ...(op.method === "GET"
          ? {}
          : { body: { packet_code: "PKT-A-1", service_level: "express" } }),
      });
      assert.equal(r.status, 404, `${op.method} ${op.path}: ${JSON.stringify(r.body)}`);
    }
    // Booking B's prices or quote is as if they did not exist, word for word: references follow
    // one sequence, so any difference would tell A which are another client's.
    const answer = async (path: string, reference: string) => {
      const r = await t.call("POST", path.replace("<ref>", reference), {
        headers: clientKey(a),
        body: { prices_reference: reference, service_level: "express" },
      });
      assert.equal(r.status, 404, JSON.stringify(r.body));
      return { code: r.body.code, message: String(r.body.message).replaceAll(reference, "<ref>") };
    };
    for (
      const [path, reference] of [
        ["/client/book", theirs.prices],
        ["/client/book", theirs.quote],
        ["/client/quotes/<ref>/book", theirs.quote],
      ]
    ) {
      assert.deepEqual(await answer(path!, reference!), await answer(path!, "prc_W9999999999999"));
    }

    // The lists A reads hold A's rows only (the query side settles first).
    await until(t, async () => {
      await t.settle();
      const own = await t.call("GET", "/client/shipments", { headers: clientKey(a) });
      return own.body.data.some((s: { waybill: string }) => s.waybill === mine.waybill);
    }, "A's shipment listed");
    const lists = ops.filter((o) => o.method === "GET" && !o.path.includes("{"));
    for (const op of lists) {
      // The CSV template is the same text for every client.
      if (op.path.endsWith("/csv/template")) continue;
      const r = await t.call("GET", op.path, { headers: clientKey(a) });
      assert.equal(r.status, 200, `${op.path}: ${JSON.stringify(r.body)}`);
      const text = JSON.stringify(r.body);
      for (const [what, id] of Object.entries(theirs)) {
        assert.ok(!text.includes(id), `GET ${op.path} shows client B's ${what} ${id}`);
      }
      assert.ok(!text.includes("B-ORDER-1") && !text.includes(b.id), `GET ${op.path} shows B`);
    }
    const search = await t.call("GET", "/client/shipments?reference=B-ORDER-1", {
      headers: clientKey(a),
    });
    assert.deepEqual(search.body.data, []);
  }));

Deno.test("client isolation: every client call is refused while the courier platform is off", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const a = await newClient(t, courier);
    const ops = await clientOperations(t);
    const off = await t.call("PATCH", `/operator/businesses/${courier.business.id}`, {
      operator: true,
      body: { courier_platform_enabled: false },
    });
    assert.equal(off.status, 200);
    for (const op of ops) {
      const path = fill(op.path, {
        waybill: "WB000000000000",
        store: "sto_x",
        reference: "q",
        action: "stock",
      });
      const body = op.path === "/client/login"
        ? { email: a.user.email, password: a.user.password }
        : {};
      const r = await t.call(op.method, path, {
        headers: clientKey(a),
        ...(op.method === "GET" ? {} : { body }),
      });
      assert.equal(r.status, 403, `${op.method} ${op.path}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "courier_platform_disabled", `${op.method} ${op.path}`);
    }
  }));

Deno.test("client isolation: a session on a password that was sent is refused 403 password_change_required everywhere but POST /client/password", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const a = await newClient(t, courier);
    const signIn = await t.call("POST", "/client/login", {
      body: { email: a.user.email, password: a.user.password },
    });
    assert.equal(signIn.status, 200, JSON.stringify(signIn.body));
    const headers = { "X-Client-API-Key": signIn.body.data.token as string };
    const ops = await clientOperations(t);
    for (const op of ops) {
      // Sign-in takes no credential; changing the password is the one thing the session may do.
      if (op.path === "/client/login" || op.path === "/client/password") continue;
      const path = fill(op.path, {
        waybill: "WB000000000000",
        store: "sto_x",
        reference: "q",
        action: "stock",
      });
      const r = await t.call(op.method, path, {
        headers,
        ...(op.method === "GET" ? {} : { body: {} }),
      });
      assert.equal(r.status, 403, `${op.method} ${op.path}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "password_change_required", `${op.method} ${op.path}`);
    }
    // Still signed in (nothing above ended the session): the password change goes through.
    const changed = await t.call("POST", "/client/password", {
      headers,
      body: { current_password: a.user.password, new_password: "Quiet-Lantern-Harbour-27" },
    });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
  }));
