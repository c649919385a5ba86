/** Bad input on booking: text Postgres cannot keep, bodies past the request cap. */
import assert from "node:assert/strict";
import { postChunked, withTestEnv } from "../../helpers/test_env.ts";
import { clientKey, DOMESTIC, newClient, newCourier, topUp } from "../../helpers/courier.ts";
import { priceOfferActor } from "../../../actors/courier/price_offer.ts";

Deno.test("bad input: text Postgres cannot keep (NUL, an unpaired surrogate) is refused 422 naming the field, and nothing is kept", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const key = courier.business.api_key;
    const refused = (
      r: { status: number; body: { code: string; errors?: { path: string }[] } },
    ) => {
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.equal(r.body.code, "validation_failed");
      return (r.body.errors ?? []).map((e) => e.path).sort();
    };
    // Accepted, such a booking was charged and then never reached the query side: the ledger
    // entry missing from statements and exports, the shipment from search.
    for (const path of ["/client/prices", "/client/quotes"]) {
      const r = await t.call("POST", path, {
        headers: clientKey(client),
        body: { ...DOMESTIC, contents: "Medicines\u0000", client_order_reference: "A-\ud800" },
      });
      assert.deepEqual(refused(r), ["client_order_reference", "contents"], path);
    }
    const office = await t.call("POST", "/business/shipments", {
      key,
      body: { ...DOMESTIC, courier_client_id: client.id, external_billing_reference: "B\u0000" },
    });
    assert.deepEqual(refused(office), ["external_billing_reference"]);
    const topped = await t.call("POST", `/business/courier/clients/${client.id}/billing/top-up`, {
      key,
      body: { amount: "1.00", currency: "BWP", reference: "EFT\u0000" },
    });
    assert.deepEqual(refused(topped), ["reference"]);
    // Searches and cursors answered 500.
    assert.deepEqual(
      refused(await t.call("GET", "/business/courier/shipments?q=WB%00", { key })),
      ["q"],
    );
    const cursor = btoa(JSON.stringify([1, "qt_\u0000"])).replaceAll("=", "");
    assert.deepEqual(
      refused(
        await t.call("GET", `/client/quotes?cursor=${cursor}`, { headers: clientKey(client) }),
      ),
      ["cursor"],
    );
    await t.settle();
    const account = await t.call("GET", "/client/account", { headers: clientKey(client) });
    assert.equal(account.body.data.balance, 500);
    const quotes = await t.call("GET", "/client/quotes", { headers: clientKey(client) });
    assert.deepEqual(quotes.body.data, []);
    const shipments = await t.call("GET", "/client/shipments", { headers: clientKey(client) });
    assert.deepEqual(shipments.body.data, []);
  }));

Deno.test("bad input: a JSON body past the request cap is refused 413 also when it declares no length (chunked), and nothing is priced", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    const bytes = new TextEncoder().encode(
      JSON.stringify({ ...DOMESTIC, contents: "Medicines", padding: "x".repeat(2_000_000) }),
    );
    const res = await postChunked(t, "/client/prices", {
      ...clientKey(client),
      "Content-Type": "application/json",
    }, bytes);
    const answer = await res.json();
    assert.equal(res.status, 413, JSON.stringify(answer).slice(0, 300));
    assert.equal(answer.code, "payload_too_large");
    await t.settle();
    const offers = await t.env.db.selectFrom("snapshots").select("id")
      .where("type", "=", priceOfferActor.type).where("tenant", "=", courier.business.id)
      .execute();
    assert.deepEqual(offers, []);
  }));
