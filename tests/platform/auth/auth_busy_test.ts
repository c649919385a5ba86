/**
 * A credential whose check its actor could not answer now (a full mailbox) is answered 503
 * actor_busy, never 401: a valid key must not be told it is invalid. Its next call, the actor
 * free, is let in.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { commandKind, whileFlaky } from "../../helpers/faults.ts";
import { clientKey, newClient, newCourier } from "../../helpers/courier.ts";
import { businessActor } from "../../../actors/platform/business/mod.ts";
import { driverActor } from "../../../actors/platform/driver.ts";
import { courierClientActor } from "../../../actors/courier/courier_client.ts";
import { driver } from "../../../src/platform/auth/auth.ts";
import type { Api } from "../../../src/http/app.ts";
import { ok } from "../../../src/http/app.ts";
import { define } from "../../../src/http/route.ts";

function probes(api: Api): void {
  define(api, {
    method: "get",
    path: "/driver/probe",
    summary: "probe",
    tag: "Probe",
    security: "driver",
    middleware: [driver],
  }, (c) => ok(c, { reached: true }));
}

interface Answer {
  readonly status: number;
  readonly body: { readonly code?: string };
}

Deno.test("auth: a key, a driver token or a client key whose check meets a busy actor answers 503 actor_busy, not 401; then it is let in", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    const b = courier.business;
    const d = await t.call("POST", `/operator/businesses/${b.id}/drivers`, {
      operator: true,
      body: { name: "Neo", phone: "+26771234567", vehicle_type_id: 1 },
    });
    assert.equal(d.status, 201, JSON.stringify(d.body));
    const calls: [string, string, () => Promise<Answer>][] = [
      [
        businessActor.type,
        "authenticate_key",
        () => t.call("GET", "/business/profile", { key: b.api_key }),
      ],
      [
        driverActor.type,
        "authenticate",
        () => t.call("GET", "/driver/probe", { bearer: d.body.data.token }),
      ],
      [
        courierClientActor.type,
        "authenticate_key",
        () => t.call("GET", "/client/account", { headers: clientKey(client) }),
      ],
    ];
    for (const [type, kind, call] of calls) {
      let busy: Answer = { status: 0, body: {} };
      const failed = await whileFlaky(
        t.env,
        { fails: commandKind(kind, type), refuse: true },
        async () => {
          busy = await call();
        },
      );
      assert.equal(failed, 1, type);
      assert.equal(busy.status, 503, `${type}: ${JSON.stringify(busy.body)}`);
      assert.equal(busy.body.code, "actor_busy", type);
      const again = await call();
      assert.equal(again.status, 200, `${type}: ${JSON.stringify(again.body)}`);
    }
  }, { routers: [probes] }));

Deno.test("auth: a portal or client sign-in whose lookup of the person meets a busy actor answers 503 actor_busy, not 'password is wrong'; then it signs in", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    const b = courier.business as unknown as { owner: { email: string; password: string } };
    const calls: [string, string, () => Promise<Answer>][] = [
      [
        businessActor.type,
        "staff_for_login",
        () => t.call("POST", "/business/login", { body: b.owner }),
      ],
      [
        courierClientActor.type,
        "user_for_login",
        () => t.call("POST", "/client/login", { body: client.user }),
      ],
    ];
    for (const [type, kind, call] of calls) {
      let busy: Answer = { status: 0, body: {} };
      const failed = await whileFlaky(
        t.env,
        { fails: commandKind(kind, type), refuse: true },
        async () => {
          busy = await call();
        },
      );
      assert.equal(failed, 1, type);
      assert.equal(busy.status, 503, `${type}: ${JSON.stringify(busy.body)}`);
      assert.equal(busy.body.code, "actor_busy", type);
      const again = await call();
      assert.equal(again.status, 200, `${type}: ${JSON.stringify(again.body)}`);
    }
  }));
