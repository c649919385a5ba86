/** Office booking (POST /business/shipments) for a client: settlement, replays, refusals. */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { DOMESTIC, newClient, newCourier, topUp } from "../../helpers/courier.ts";
import { account, office, ready } from "./booking_fixtures.ts";

Deno.test("office booking: priced on the client's card and settled by its mode; found by any reference", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const r = await t.call("POST", "/business/shipments", {
      key: courier.business.api_key,
      body: {
        ...DOMESTIC,
        courier_client_id: client.id,
        service_level: "express",
        external_customer_code: "CUST-77",
        external_billing_reference: "PO-2026-11",
      },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.data.total, 88.92);
    assert.equal((await account(t, client)).balance, 411.08);
    await t.settle();
    // A waybill typed or scanned in lower case is found too.
    const waybill: string = r.body.data.waybill;
    for (const q of [waybill, waybill.toLowerCase(), "CUST-77", "PO-2026-11"]) {
      const found = await t.call("GET", `/business/courier/shipments?q=${q}`, {
        key: courier.business.api_key,
      });
      assert.equal(found.status, 200);
      assert.deepEqual(found.body.data.map((s: { waybill: string }) => s.waybill), [waybill], q);
    }
    // The search finds by prefix in any case (issue 42); exact lookups stay exact elsewhere.
    const lower = await t.call("GET", "/business/courier/shipments?q=po-2026", {
      key: courier.business.api_key,
    });
    assert.deepEqual(lower.body.data.map((s: { waybill: string }) => s.waybill), [waybill]);
    const elsewhere = await newCourier(t);
    const none = await t.call("GET", "/business/courier/shipments?q=CUST-77", {
      key: elsewhere.business.api_key,
    });
    assert.deepEqual(none.body.data, []);
    const otherClient = await t.call("POST", "/business/shipments", {
      key: elsewhere.business.api_key,
      body: { ...DOMESTIC, courier_client_id: client.id },
    });
    assert.equal(otherClient.status, 404);
  }));

Deno.test("office booking: the same request again books once and answers already_booked", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, { unique_external_reference: true });
    await topUp(t, courier, client, "500.00");
    const row = { ...DOMESTIC, courier_client_id: client.id, service_level: "express" };
    const key = { "Idempotency-Key": "office-order-1" };
    const first = await office(t, courier, row, key);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.body.data.already_booked, false);
    const again = await office(t, courier, row, key);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.data.already_booked, true);
    assert.equal(again.body.data.waybill, first.body.data.waybill);
    // The same key with other details is refused and books nothing.
    const changed = await office(t, courier, { ...row, contents: "Books" }, key);
    assert.equal(changed.status, 409, JSON.stringify(changed.body));
    assert.equal(changed.body.code, "idempotency_key_reused");
    // The idempotency_key field works as the header does.
    const byField = { ...row, idempotency_key: "office-order-2" };
    const f1 = await office(t, courier, byField);
    const f2 = await office(t, courier, byField);
    assert.equal(f1.status, 201, JSON.stringify(f1.body));
    assert.equal(f2.status, 200, JSON.stringify(f2.body));
    assert.equal(f2.body.data.waybill, f1.body.data.waybill);
    // Under unique_external_reference the client_order_reference is the identity, as for the
    // client's own one-call booking: the same order again is already booked, not booked twice.
    const ordered = { ...row, client_order_reference: "SHOP-9" };
    const o1 = await office(t, courier, ordered);
    const o2 = await office(t, courier, ordered);
    assert.equal(o1.status, 201, JSON.stringify(o1.body));
    assert.equal(o2.status, 200, JSON.stringify(o2.body));
    assert.equal(o2.body.data.waybill, o1.body.data.waybill);
    const dup = await office(t, courier, { ...ordered, service_level: "economy" });
    assert.equal(dup.status, 409, JSON.stringify(dup.body));
    assert.equal(dup.body.code, "duplicate_order");
    // Without a chosen service the cheapest is booked, and the same request is still one booking.
    const cheapest = { ...DOMESTIC, courier_client_id: client.id, idempotency_key: "office-3" };
    const c1 = await office(t, courier, cheapest);
    const c2 = await office(t, courier, cheapest);
    assert.equal(c1.status, 201, JSON.stringify(c1.body));
    assert.equal(c1.body.data.service_level, "economy");
    assert.equal(c2.status, 200, JSON.stringify(c2.body));
    assert.equal(c2.body.data.waybill, c1.body.data.waybill);
    // Three express bookings of 88.92 and one economy booking, each charged once.
    assert.equal(
      (await account(t, client)).balance,
      Number((500 - 3 * 88.92 - c1.body.data.total).toFixed(2)),
    );
  }));

Deno.test("office booking: a body idempotency_key wins over the Idempotency-Key header, so a retry under a new header books nothing new", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const row = {
      ...DOMESTIC,
      courier_client_id: client.id,
      service_level: "express",
      idempotency_key: "office-order-9",
    };
    const first = await office(t, courier, row, { "Idempotency-Key": "try-1" });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    // spec: courier 4.1; business appendix 2: a body reference wins over the header.
    for (const headers of [{ "Idempotency-Key": "try-2" }, {}]) {
      const again = await office(t, courier, row, headers);
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.equal(again.body.data.waybill, first.body.data.waybill);
    }
    assert.equal((await account(t, client)).balance, 411.08);
  }));

Deno.test("office booking: a request booked under the office's Idempotency-Key before the body's idempotency_key won over it is answered, not booked again, when retried the same", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    await topUp(t, courier, client, "500.00");
    const row = { ...DOMESTIC, courier_client_id: client.id, service_level: "express" };
    const headers = { "Idempotency-Key": "office-try-1" };
    // As the code before stored it: the header named the request (the body's key is left out of
    // the fingerprint).
    const first = await office(t, courier, row, headers);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    // spec: courier 4.1: the same request again books nothing new.
    const again = await office(t, courier, { ...row, idempotency_key: "office-order-7" }, headers);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.data.waybill, first.body.data.waybill);
    assert.equal((await account(t, client)).balance, 411.08);
  }));

Deno.test("office booking: the office's Idempotency-Key sent again for another client is refused and books nothing", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const first = await newClient(t, courier);
    const second = await newClient(t, courier);
    await topUp(t, courier, first, "500.00");
    await topUp(t, courier, second, "500.00");
    const row = { ...DOMESTIC, service_level: "express" };
    const key = { "Idempotency-Key": "office-order-7" };
    const booked = await office(t, courier, { ...row, courier_client_id: first.id }, key);
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    // The key is the office's: the same key with another client is another request.
    const reused = await office(t, courier, { ...row, courier_client_id: second.id }, key);
    assert.equal(reused.status, 409, JSON.stringify(reused.body));
    assert.equal(reused.body.code, "idempotency_key_reused");
    assert.equal(reused.body.waybill, booked.body.data.waybill);
    assert.equal((await account(t, second)).balance, 500);
    // The same request again is still the one booking.
    const again = await office(t, courier, { ...row, courier_client_id: first.id }, key);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.data.waybill, booked.body.data.waybill);
    assert.equal((await account(t, first)).balance, 411.08);
  }));

Deno.test("office booking: settled by the client's mode; a refusal books and charges nothing", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const row = { ...DOMESTIC, service_level: "express" };
    const prepaid = await newClient(t, courier);
    await topUp(t, courier, prepaid, "100.00");
    const one = await office(t, courier, { ...row, courier_client_id: prepaid.id });
    assert.equal(one.status, 201, JSON.stringify(one.body));
    const short = await office(t, courier, { ...row, courier_client_id: prepaid.id });
    assert.equal(short.status, 422, JSON.stringify(short.body));
    assert.equal(short.body.code, "insufficient_balance");
    assert.equal((await account(t, prepaid)).balance, 11.08);

    const credit = await newClient(t, courier, { settlement_mode: "credit", credit_limit: 100 });
    assert.equal((await office(t, courier, { ...row, courier_client_id: credit.id })).status, 201);
    const over = await office(t, courier, { ...row, courier_client_id: credit.id });
    assert.equal(over.status, 422);
    assert.equal(over.body.code, "insufficient_balance");
    assert.equal((await account(t, credit)).credit_used, 88.92);

    const external = await newClient(t, courier, { settlement_mode: "external" });
    for (let i = 0; i < 2; i++) {
      const r = await office(t, courier, { ...row, courier_client_id: external.id });
      assert.equal(r.status, 201, JSON.stringify(r.body));
    }
    const ext = await account(t, external);
    assert.equal(ext.credit_used, null, "no credit line");
    assert.equal(ext.balance, 0);

    // An unknown client is named, and nothing is booked.
    const unknown = await office(t, courier, { ...row, courier_client_id: "cli_nobody" });
    assert.equal(unknown.status, 404, JSON.stringify(unknown.body));
    assert.equal(unknown.body.code, "not_found");
    assert.match(unknown.body.message, /courier_client_id not found: cli_nobody/);
    // Booking needs shipments:create (a partner key without it is refused).
    const partner = await t.call(
      "POST",
      `/operator/businesses/${courier.business.id}/partner-keys`,
      {
        operator: true,
        body: { partner: "viewer", scopes: ["shipments:view-own"] },
      },
    );
    assert.equal(partner.status, 201, JSON.stringify(partner.body));
    const refused = await t.call("POST", "/business/shipments", {
      key: partner.body.data.key,
      body: { ...row, courier_client_id: prepaid.id },
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, "scope_denied");
    assert.equal((await account(t, prepaid)).balance, 11.08);
  }));
