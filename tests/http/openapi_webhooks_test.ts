/**
 * The OpenAPI document's `webhooks` say what is sent: a business webhook and a client webhook
 * really delivered carry exactly the headers their webhook documents (the optional ones aside)
 * and a body its schema accepts.
 */
import assert from "node:assert/strict";
import { clientKey, DOMESTIC, hookedClient } from "../helpers/courier.ts";
import { type Doc, schemaChecker } from "../helpers/openapi_schemas.ts";
import { type Delivery, startReceiver, until } from "../helpers/receiver.ts";
import { withTestEnv } from "../helpers/test_env.ts";
import { book, hooked, PARCEL } from "../routes/business/trips_fixtures.ts";

/** The signed headers a delivery carries: the service's own, and the idempotency key. */
function sentHeaders(d: Delivery): string[] {
  return [...d.headers.keys()].filter((h) => /^x-service-|^idempotency-key$/i.test(h)).sort();
}

/** Checks one delivery against the webhook `name` of the document. */
function conforms(doc: Doc, name: string, d: Delivery): void {
  const op = doc.webhooks[name].post;
  const params = op.parameters.filter((p: { in: string }) => p.in === "header");
  const documented = params.map((p: { name: string }) => p.name.toLowerCase());
  const required = params.filter((p: { required?: boolean }) => p.required)
    .map((p: { name: string }) => p.name.toLowerCase()).sort();
  const sent = sentHeaders(d);
  for (const h of sent) assert.ok(documented.includes(h), `${name}: ${h} sent, not documented`);
  for (const h of required) assert.ok(sent.includes(h), `${name}: ${h} documented, not sent`);
  const checker = schemaChecker(doc);
  const valid = checker.compile(op.requestBody.content["application/json"].schema);
  assert.ok(valid(JSON.parse(d.body)), `${name}: ${checker.errorsText(valid.errors)}`);
}

Deno.test("openapi webhooks: the four streams, each delivery's headers and body as documented", async () => {
  const receiver = startReceiver();
  try {
    await withTestEnv(async (t) => {
      const doc = (await t.call("GET", "/api-docs/openapi.json")).body as Doc;
      assert.deepEqual(Object.keys(doc.webhooks).sort(), [
        "billingEvent",
        "businessEvent",
        "clientShipmentEvent",
        "shoppingEvent",
      ]);
      const b = await hooked(t, receiver);
      assert.equal((await book(t, b.api_key, PARCEL)).status, 201);
      await until(t, () => receiver.deliveries.length >= 1, "the business webhook");
      conforms(doc, "businessEvent", receiver.deliveries[0]!);

      const { client } = await hookedClient(t, receiver.url);
      const booked = await t.call("POST", "/client/shipments", {
        headers: clientKey(client),
        body: { ...DOMESTIC, service_level: "express", dangerous_goods_confirmed: false },
      });
      assert.equal(booked.status, 201, JSON.stringify(booked.body));
      await until(t, () => receiver.deliveries.length >= 2, "the client webhook");
      conforms(doc, "clientShipmentEvent", receiver.deliveries[1]!);
    });
  } finally {
    await receiver.close();
  }
});
