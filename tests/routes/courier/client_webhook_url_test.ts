/**
 * A client's webhook URL (courier 8): public HTTPS only, and what is kept (the checked URL, not
 * the text as sent) is what the answer and every read name.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { clientKey, newClient, newCourier } from "../../helpers/courier.ts";

Deno.test("client webhook: a host name that cannot be public is refused with 422 naming url, and nothing is set", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    // spec: courier 8: public HTTPS only.
    for (
      const url of [
        "https://intranet/h",
        "https://foo.internal/h",
        "https://host.docker.internal/h",
        "https://kubernetes.default.svc/h",
        "https://ip6-localhost/h",
        "https://foo.local/h",
        "https://printer.home.arpa/h",
      ]
    ) {
      const r = await t.call("POST", "/client/webhook", {
        headers: clientKey(client),
        body: { url },
      });
      assert.equal(r.status, 422, `${url}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "validation_failed");
      assert.equal(r.body.errors[0].path, "url");
      assert.match(r.body.message, /not a public host name/);
    }
    const me = await t.call("GET", "/business/courier/clients/" + client.id, {
      key: courier.business.api_key,
    });
    assert.equal(me.body.data.webhook_url, null);
  }));

Deno.test("client webhook: the answer names the URL as kept, the same as the client's read", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    const r = await t.call("POST", "/client/webhook", {
      headers: clientKey(client),
      body: { url: "HTTPS://EXAMPLE.COM:443/A B" },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.data.url, "https://example.com/A%20B");
    const me = await t.call("GET", "/business/courier/clients/" + client.id, {
      key: courier.business.api_key,
    });
    assert.equal(me.body.data.webhook_url, r.body.data.url);
  }));
