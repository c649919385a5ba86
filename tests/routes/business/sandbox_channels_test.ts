/**
 * POST /channel/{source}/events (Business API 5.9, 6 last line): a storefront channel's order
 * event books a trip in the sandbox, authenticated only by its channel token (a JWT verified on
 * the injected clock); every fault of the token is 401 with its own code.
 */
import assert from "node:assert/strict";
import { SignJWT } from "jose";
import type { TestEnv } from "../../helpers/test_env.ts";
import { credentials, withTwins } from "./sandbox_twin_fixtures.ts";
import { commandKind, whileFlaky } from "../../helpers/faults.ts";

interface Grant {
  readonly source: string;
  readonly signing_key: string;
  readonly subject: string;
}

/** A channel token as an integrator signs one: HS256 with the grant's key, exp 5 minutes on. */
function token(sandbox: TestEnv, g: Grant, claims: { aud?: string; key?: string } = {}) {
  const now = Math.floor(sandbox.clock.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: "HS256" })
    .setIssuer(g.source)
    .setSubject(g.subject)
    .setAudience(claims.aud ?? "service-sandbox")
    .setIssuedAt(now)
    .setExpirationTime(now + 300)
    .sign(new TextEncoder().encode(claims.key ?? g.signing_key));
}

function order(external_reference: string) {
  return {
    type: "order.created",
    id: `evt-${external_reference}`,
    order: {
      external_reference,
      pickup: { address: "Main Mall, Gaborone", lat: -24.6545, lng: 25.9086 },
      dropoff: { address: "Plot 9, Block 8", lat: -24.6019, lng: 25.935 },
      recipient: { name: "Neo Kgosi", phone: "+26771234567" },
      items: [{ name: "Bread", qty: 2 }],
    },
  };
}

function post(env: TestEnv, source: string, bearer: string, body: unknown = order("SF-1")) {
  return env.call("POST", `/channel/${source}/events`, { bearer, body });
}

Deno.test("channel events: an order books one trip for the channel's business; the same event again answers it", () =>
  withTwins(async ({ live, sandbox }) => {
    const b = await live.createBusiness();
    const c = await credentials(live, b.api_key);
    const g: Grant = c.storefront;
    const first = await post(sandbox, g.source, await token(sandbox, g));
    assert.equal(first.status, 202, JSON.stringify(first.body));
    assert.equal(first.body.data.event_id, "evt-SF-1");
    assert.equal(first.body.data.replayed, false);
    assert.equal(first.body.data.trip.external_reference, "SF-1");
    const again = await post(sandbox, g.source, await token(sandbox, g));
    assert.equal(again.status, 202, JSON.stringify(again.body));
    assert.equal(again.body.data.replayed, true);
    assert.equal(again.body.data.trip.reference, first.body.data.trip.reference);
    const trip = await sandbox.call("GET", `/business/trips/${first.body.data.trip.reference}`, {
      key: c.api_key,
    });
    assert.equal(trip.status, 200, JSON.stringify(trip.body));
    assert.equal(trip.body.data.id, 1);
    assert.equal(trip.body.data.passenger_name, "Neo Kgosi");
    // The next order is the business's second trip: the repeat made none.
    const next = await post(sandbox, g.source, await token(sandbox, g), order("SF-2"));
    assert.equal(next.body.data.trip.id, 2);
  }));

Deno.test("channel events: expired, wrong audience, wrong key and no token are 401 with their codes; nothing booked", () =>
  withTwins(async ({ live, sandbox }) => {
    const b = await live.createBusiness();
    const c = await credentials(live, b.api_key);
    const g: Grant = c.storefront;
    const expiring = await token(sandbox, g);
    sandbox.clock.advanceBy(301_000);
    const cases: [string, string][] = [
      [expiring, "channel_token_expired"],
      [await token(sandbox, g, { aud: "service-live" }), "channel_token_wrong_audience"],
      [
        await token(sandbox, g, { key: "chk_not_the_channels_key_0123456789abcdef" }),
        "channel_token_invalid",
      ],
      ["", "channel_token_invalid"],
    ];
    for (const [bearer, code] of cases) {
      const r = await post(sandbox, g.source, bearer);
      assert.equal(r.status, 401, `${code}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, code);
    }
    const ok = await post(sandbox, g.source, await token(sandbox, g));
    assert.equal(ok.body.data.trip.id, 1, "the refused events booked nothing");
  }));

Deno.test("channel events: another business's channel cannot book into this business", () =>
  withTwins(async ({ live, sandbox }) => {
    const a = await credentials(live, (await live.createBusiness()).api_key);
    const b = await credentials(live, (await live.createBusiness()).api_key);
    const ga: Grant = a.storefront, gb: Grant = b.storefront;
    // b's own token on a's channel; b's key claiming a's channel and business.
    for (
      const bearer of [
        await token(sandbox, gb),
        await token(sandbox, { ...ga, signing_key: gb.signing_key }),
      ]
    ) {
      const r = await post(sandbox, ga.source, bearer);
      assert.equal(r.status, 401, JSON.stringify(r.body));
      assert.equal(r.body.code, "channel_token_invalid");
    }
    // a's key naming b's business as its subject: the channel books for its own business only.
    const r = await post(sandbox, ga.source, await token(sandbox, { ...ga, subject: gb.subject }));
    assert.equal(r.status, 401);
    assert.equal(r.body.code, "channel_token_invalid");
    const mine = await post(sandbox, gb.source, await token(sandbox, gb));
    assert.equal(mine.status, 202);
    const seen = await sandbox.call("GET", `/business/trips/${mine.body.data.trip.reference}`, {
      key: a.api_key,
    });
    assert.equal(seen.status, 404, "b's trip is not a's");
  }));

Deno.test("channel events: an unknown event type is 422; an order event without its order 422", () =>
  withTwins(async ({ live, sandbox }) => {
    const c = await credentials(live, (await live.createBusiness()).api_key);
    const g: Grant = c.storefront;
    const unknown = await post(sandbox, g.source, await token(sandbox, g), {
      type: "order.refunded",
      id: "evt-9",
    });
    assert.equal(unknown.status, 422);
    assert.equal(unknown.body.code, "unknown_event_type");
    const bare = await post(sandbox, g.source, await token(sandbox, g), {
      type: "order.created",
      id: "evt-10",
    });
    assert.equal(bare.status, 422);
    assert.equal(bare.body.code, "validation_failed");
  }));

Deno.test("channel events: on live the route answers 404 naming the sandbox base", () =>
  withTwins(async ({ live, sandbox }) => {
    const c = await credentials(live, (await live.createBusiness()).api_key);
    const g: Grant = c.storefront;
    const r = await post(live, g.source, await token(sandbox, g));
    assert.equal(r.status, 404);
    assert.equal(r.body.code, "not_found");
    assert.match(r.body.message, /sandbox base/);
  }));

Deno.test("channel events: a channel whose read meets a busy actor answers 503 actor_busy, not 'no channel'; then it books", () =>
  withTwins(async ({ live, sandbox }) => {
    const b = await live.createBusiness();
    const c = await credentials(live, b.api_key);
    const g: Grant = c.storefront;
    const bearer = await token(sandbox, g);
    let busy = { status: 0, body: {} as { code?: string } };
    const failed = await whileFlaky(sandbox.env, {
      fails: commandKind("get", "storefront_channel"),
      refuse: true,
    }, async () => {
      busy = await post(sandbox, g.source, bearer);
    });
    assert.equal(failed, 1);
    assert.equal(busy.status, 503, JSON.stringify(busy.body));
    assert.equal(busy.body.code, "actor_busy");
    assert.equal((await post(sandbox, g.source, bearer)).status, 202);
  }));
