/**
 * The public tracking link (courier 2.11): a malformed, unknown, rate-limited or switched-off
 * link answers in the tracking error shape, and tracking_url follows PUBLIC_URL, not the Host.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { bookShipment, newClient, newCourier, topUp } from "../../helpers/courier.ts";
import { ANONYMOUS_RATE_LIMIT } from "../../../src/limits.ts";

Deno.test("tracking: a malformed, blank or over-long token is 404 in the tracking error shape", () =>
  withTestEnv(async (t) => {
    // CONTRACT "Errors": tracking endpoints answer {success: false, error, message}; a token that
    // cannot be one is as unknown as any other.
    const withNul = `${"a".repeat(20)}%00${"b".repeat(20)}`;
    const surrogate = `${"a".repeat(30)}%ED%A0%80`;
    for (
      const token of ["abc", "%20", "%20".repeat(12), "a".repeat(201), withNul, "%00", surrogate]
    ) {
      const r = await t.call("GET", `/s/${token}`);
      assert.equal(r.status, 404, `${token}: ${JSON.stringify(r.body)}`);
      assert.deepEqual(Object.keys(r.body).sort(), ["error", "message", "success"], token);
      assert.equal(r.body.success, false);
      assert.equal(r.body.error, "not_found");
    }
  }));

Deno.test("tracking: a rate-limited link answers 429 in the tracking error shape, with Retry-After", () =>
  withTestEnv(async (t) => {
    // CONTRACT "Errors": every error body of a tracking endpoint is {success: false, error,
    // message}, whoever refuses it: the address's rate limit (business 8) too.
    const path = `/s/${"a".repeat(32)}`;
    for (let i = 0; i < ANONYMOUS_RATE_LIMIT.perMinute; i++) {
      assert.equal((await t.call("GET", path)).status, 404);
    }
    const limited = await t.call("GET", path);
    assert.equal(limited.status, 429, JSON.stringify(limited.body));
    assert.deepEqual(Object.keys(limited.body).sort(), ["error", "message", "success"]);
    assert.equal(limited.body.success, false);
    assert.equal(limited.body.error, "rate_limited");
    assert.ok(Number(limited.headers.get("Retry-After")) >= 1);
    // The document says so (a minute later, when the address may call again).
    t.clock.advanceBy(60_000);
    const doc = await t.call("GET", "/api-docs/openapi.json");
    const answer = doc.body.paths["/s/{token}"].get.responses["429"];
    assert.deepEqual(answer.content["application/json"].schema.properties.error.enum, [
      "rate_limited",
    ]);
  }));

Deno.test("tracking: the link answers 403 while the courier platform is off, and again when on", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const { tracking_url } = await bookShipment(t, client);
    const path = `/s/${tracking_url.split("/").at(-1)!}`;
    const platform = (on: boolean) =>
      t.call("PATCH", `/operator/businesses/${courier.business.id}`, {
        operator: true,
        body: { courier_platform_enabled: on },
      });
    // spec: courier 1.2: every endpoint of the courier document, the tracking link included.
    assert.equal((await platform(false)).status, 200);
    const off = await t.call("GET", path);
    assert.equal(off.status, 403, JSON.stringify(off.body));
    assert.deepEqual(Object.keys(off.body).sort(), ["error", "message", "success"]);
    assert.equal(off.body.error, "courier_platform_disabled");
    assert.equal((await platform(true)).status, 200);
    assert.equal((await t.call("GET", path)).status, 200);
  }));

Deno.test("tracking: with PUBLIC_URL set, tracking_url and the OpenAPI servers ignore the caller's Host", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    // The test call goes to http://localhost; a caller could send any Host it likes.
    const { tracking_url } = await bookShipment(t, client);
    assert.match(
      tracking_url,
      /^https:\/\/track\.example\.com\/couriers\/api\/s\/[A-Za-z0-9_-]{20,}$/,
    );
    const doc = await t.app.request("/api/api-docs/openapi.json", {
      headers: { Host: "attacker.example" },
    });
    const servers = (await doc.json()).servers;
    assert.deepEqual(servers.map((s: { url: string }) => s.url), [
      "https://track.example.com/couriers/api",
    ]);
  }, { publicUrl: "https://track.example.com/couriers" }));

Deno.test("tracking: a link with a trailing slash, an empty token or another method answers in the tracking error shape", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    const { tracking_url } = await bookShipment(t, client);
    const token = tracking_url.split("/").at(-1)!;
    // CONTRACT "Errors": every error body of a tracking endpoint is {success: false, error,
    // message}: a link mangled in a mail client (a trailing slash, a cut-off token) is one.
    for (
      const [method, path, status] of [
        ["GET", `/s/${token}/`, 404],
        ["GET", `/s/${token}/extra`, 404],
        ["GET", "/s/", 404],
        ["POST", `/s/${token}`, 405],
      ] as const
    ) {
      const r = await t.call(method, path);
      assert.equal(r.status, status, `${method} ${path}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.success, false);
      assert.equal(r.body.code, undefined, `${method} ${path}: ${JSON.stringify(r.body)}`);
      assert.equal(typeof r.body.error, "string", `${method} ${path}: ${JSON.stringify(r.body)}`);
      assert.equal(typeof r.body.message, "string");
    }
  }));
