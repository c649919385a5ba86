/**
 * Webhook secrets, even sealed, stay in the business's and the client's state: the events logged,
 * put on the bus and kept in Postgres name the key id only, while events logged with the sealed
 * secret by earlier versions still evolve to the same state. Password, key and driver token
 * hashes likewise stay in the state: the events name a key by its hint, a person by id.
 */
import assert from "node:assert/strict";
import {
  businessActor,
  type BusinessEvent,
  type BusinessState,
} from "../../../actors/platform/business/mod.ts";
import {
  courierClientActor,
  type CourierClientEvent,
  type CourierClientState,
} from "../../../actors/courier/courier_client.ts";
import { driverActor } from "../../../actors/platform/driver.ts";
import { poolDriverActor } from "../../../actors/business/pool_driver.ts";
import { subjectPattern } from "../../../src/bus/bus.ts";
import { hashSecret } from "../../../src/domain/secrets.ts";
import { createPoolDriver } from "../../helpers/pool_drivers.ts";
import { clientKey, newClient, newCourier } from "../../helpers/courier.ts";
import { withTestEnv } from "../../helpers/test_env.ts";

Deno.test("business and client actors: the events logged, published and projected carry no sealed webhook secret", () =>
  withTestEnv(async (t) => {
    const published: string[] = [];
    const subscriptions = [businessActor.type, courierClientActor.type].map((type) =>
      t.env.bus.subscribe(subjectPattern(t.env.runtime.busPrefix, "*", type), (m) => {
        published.push(JSON.stringify(m.payload));
      })
    );
    try {
      const courier = await newCourier(t);
      const client = await newClient(t, courier);
      const key = courier.business.api_key;
      const rotated = await t.call("POST", "/business/webhook-secret/regenerate", { key });
      assert.equal(rotated.status, 201, JSON.stringify(rotated.body));
      const set = await t.call("POST", "/client/webhook", {
        headers: clientKey(client),
        body: { url: "http://127.0.0.1:9/hook" },
      });
      assert.equal(set.status, 201, JSON.stringify(set.body));
      await t.env.bus.flush();
      await t.settle();

      const tenant = courier.business.id;
      const b = await t.env.runtime.read(businessActor, tenant, tenant, { kind: "get" });
      assert.ok(b.ok && b.reply && "webhook_secret" in b.reply);
      const c = await t.env.runtime.read(courierClientActor, tenant, client.id, { kind: "get" });
      assert.ok(c.ok && c.reply && "settings" in c.reply && c.reply.webhook);
      // The state keeps every sealed form the attempts sign with.
      const sealed = [
        b.reply.webhook_secret,
        b.reply.webhook_secret_previous!,
        c.reply.webhook.secret,
      ];
      assert.ok(sealed.every((s) => s.data.length > 0 && s.iv.length > 0));

      const logged: string[] = [];
      for await (const e of t.env.runtime.events(businessActor, tenant)) {
        logged.push(JSON.stringify(e.event));
      }
      for await (const e of t.env.runtime.events(courierClientActor, client.id)) {
        logged.push(JSON.stringify(e.event));
      }
      const kinds = ["business_created", "webhook_secret_rotated", "webhook_set"];
      for (const kind of kinds) {
        for (const where of [logged, published]) {
          assert.ok(where.some((text) => text.includes(`"kind":"${kind}"`)), kind);
        }
      }
      for (const text of [...logged, ...published]) {
        for (const s of sealed) {
          assert.ok(!text.includes(s.data) && !text.includes(s.iv), text);
        }
      }
      // What the audit trail and the owner's notice name is still there.
      for (const s of sealed) {
        assert.ok(logged.some((text) => text.includes(s.key_id)), s.key_id);
      }
    } finally {
      for (const s of subscriptions) s.unsubscribe();
    }
  }));

Deno.test("business and client actors: the events logged, published and projected carry no password or key hash", () =>
  withTestEnv(async (t) => {
    const published: string[] = [];
    const subscriptions = [businessActor.type, courierClientActor.type].map((type) =>
      t.env.bus.subscribe(subjectPattern(t.env.runtime.busPrefix, "*", type), (m) => {
        published.push(JSON.stringify(m.payload));
      })
    );
    try {
      const courier = await newCourier(t);
      const b = courier.business;
      const signIn = await t.call("POST", "/business/login", { body: b.owner });
      assert.equal(signIn.status, 200, JSON.stringify(signIn.body));
      const owner = signIn.body.data.token;
      const invited = await t.call("POST", "/business/people", {
        key: owner,
        body: { name: "Dispatch", email: "dispatch@example.com", portal_role: "coordinator" },
      });
      assert.equal(invited.status, 201, JSON.stringify(invited.body));
      const changed = await t.call("POST", "/business/change-password", {
        key: owner,
        body: { current_password: b.owner.password, new_password: "a-new-password-1" },
      });
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      const partner = await t.call("POST", `/operator/businesses/${b.id}/partner-keys`, {
        operator: true,
        body: { partner: "Connector", scopes: ["deliveries"] },
      });
      assert.equal(partner.status, 201, JSON.stringify(partner.body));

      const client = await newClient(t, courier);
      const login = await t.call("POST", "/client/login", { body: client.user });
      assert.equal(login.status, 200, JSON.stringify(login.body));
      const own = await t.call("POST", "/client/password", {
        headers: { "X-Client-API-Key": login.body.data.token },
        body: { current_password: client.user.password, new_password: "a-new-password-1" },
      });
      assert.equal(own.status, 200, JSON.stringify(own.body));
      const user = await t.call("POST", "/client/users", {
        headers: clientKey(client),
        body: { email: "desk@example.com", name: "Desk", role: "client_user" },
      });
      assert.equal(user.status, 201, JSON.stringify(user.body));
      // Last: the client was made with the key as it was.
      const rotated = await t.call("POST", "/business/api-key/regenerate", { key: b.api_key });
      assert.equal(rotated.status, 201, JSON.stringify(rotated.body));
      await t.env.bus.flush();
      await t.settle();

      const tenant = b.id;
      const biz = await t.env.runtime.read(businessActor, tenant, tenant, { kind: "get" });
      assert.ok(biz.ok && biz.reply && "staff" in biz.reply);
      const cli = await t.env.runtime.read(courierClientActor, tenant, client.id, { kind: "get" });
      assert.ok(cli.ok && cli.reply && "users" in cli.reply);
      // The state keeps what signing in checks against.
      const hashes = [
        ...biz.reply.staff.map((s) => s.password_hash),
        biz.reply.api_key.hash,
        ...biz.reply.partner_keys.map((k) => k.hash),
        ...cli.reply.users.map((u) => u.password_hash),
        cli.reply.api_key.hash,
      ];
      assert.equal(hashes.length, 7);
      assert.ok(hashes.every((h) => h.length > 20));

      const logged: string[] = [];
      for await (const e of t.env.runtime.events(businessActor, tenant)) {
        logged.push(JSON.stringify(e.event));
      }
      for await (const e of t.env.runtime.events(courierClientActor, client.id)) {
        logged.push(JSON.stringify(e.event));
      }
      const rows = await t.env.db.selectFrom("snapshots").select("data")
        .where("tenant", "=", tenant).execute();
      const projected = rows.map((r) => JSON.stringify(r.data));
      const kinds = [
        "business_created",
        "staff_added",
        "password_changed",
        "partner_key_issued",
        "api_key_rotated",
        "client_created",
        "user_added",
      ];
      for (const kind of kinds) {
        for (const where of [logged, published]) {
          assert.ok(where.some((text) => text.includes(`"kind":"${kind}"`)), kind);
        }
      }
      for (const text of [...logged, ...published, ...projected]) {
        for (const h of hashes) assert.ok(!text.includes(h), text);
      }
      // What the audit trail names is still there: the person, the key's hint.
      assert.ok(logged.some((text) => text.includes("dispatch@example.com")));
      assert.ok(logged.some((text) => text.includes(rotated.body.data.hint)));
    } finally {
      for (const s of subscriptions) s.unsubscribe();
    }
  }));

Deno.test("business and client actors: events stored with the sealed secret by earlier versions replay to the same state", () => {
  const sealed = { iv: "aXYtb2xk", data: "c2VhbGVkLW9sZA" };
  const secret = { ...sealed, key_id: "whk_old", created_at: 1_000 };
  const rotatedTo = {
    iv: "aXYtbmV3",
    data: "c2VhbGVkLW5ldw",
    key_id: "whk_new",
    created_at: 2_000,
  };
  const decided = businessActor.decide(null, {
    kind: "create",
    id: "biz_old",
    name: "Old Couriers",
    plan: "business",
    currency: "BWP",
    country: "BW",
    owner: {
      id: "usr_owner",
      email: "owner@example.com",
      name: "Owner",
      role: "owner",
      password_hash: "pbkdf2$1$a$b",
    },
    api_key: { hash: "f".repeat(64), hint: "abcd", created_at: 1_000 },
    webhook_secret: secret,
  }, { now: 1_000, newId: (p) => `${p}_x` });
  assert.ok(decided.ok);
  // As an earlier version logged them: the whole events, sealed secrets included.
  const stored: BusinessEvent[] = [
    ...decided.events,
    { kind: "webhook_secret_rotated", secret: rotatedTo, by: "api_key" },
  ];
  let state: BusinessState = null;
  for (const e of JSON.parse(JSON.stringify(stored)) as BusinessEvent[]) {
    state = businessActor.evolve(state, e);
  }
  assert.deepEqual(state?.webhook_secret, rotatedTo);
  assert.deepEqual(state?.webhook_secret_previous, {
    ...secret,
    expires_at: state!.webhook_secret_previous!.expires_at,
  });
  assert.ok(!JSON.stringify(stored.map((e) => businessActor.logged!(e))).includes(sealed.data));

  const client = { kind: "webhook_set", url: "https://shop.example.com/hook", secret, by: "x" };
  const set = JSON.parse(JSON.stringify(client)) as CourierClientEvent;
  const before = { id: "cli_old", webhook: null } as unknown as CourierClientState;
  const after = courierClientActor.evolve(before, set);
  assert.deepEqual(after?.webhook, { url: client.url, secret, previous: null });
  assert.ok(!JSON.stringify(courierClientActor.logged!(set)).includes(sealed.data));
});

Deno.test("driver and pool driver actors: the events logged, published and projected carry no token hash", () =>
  withTestEnv(async (t) => {
    const published: string[] = [];
    const subscriptions = [driverActor.type, poolDriverActor.type].map((type) =>
      t.env.bus.subscribe(subjectPattern(t.env.runtime.busPrefix, "*", type), (m) => {
        published.push(JSON.stringify(m.payload));
      })
    );
    try {
      const b = await t.createBusiness();
      const run = await t.call("POST", `/operator/businesses/${b.id}/drivers`, {
        operator: true,
        body: { name: "Neo", phone: "+26771234567", vehicle_type_id: 1 },
      });
      assert.equal(run.status, 201, JSON.stringify(run.body));
      const runToken = await t.call(
        "POST",
        `/operator/businesses/${b.id}/drivers/${run.body.data.id}/token`,
        { operator: true },
      );
      assert.equal(runToken.status, 201, JSON.stringify(runToken.body));
      const pool = await createPoolDriver(t);
      const poolToken = await t.call("POST", `/operator/drivers/${pool.id}/token`, {
        operator: true,
      });
      assert.equal(poolToken.status, 201, JSON.stringify(poolToken.body));
      await t.env.bus.flush();
      await t.settle();

      const tokens = [run.body.data.token, runToken.body.data.token, pool.token];
      const hashes = await Promise.all([...tokens, poolToken.body.data.token].map(hashSecret));
      const logged: string[] = [];
      for await (const e of t.env.runtime.events(driverActor, run.body.data.id)) {
        logged.push(JSON.stringify(e.event));
      }
      for await (const e of t.env.runtime.events(poolDriverActor, pool.id)) {
        logged.push(JSON.stringify(e.event));
      }
      const rows = await t.env.db.selectFrom("snapshots").select("data")
        .where("type", "in", [driverActor.type, poolDriverActor.type]).execute();
      const projected = rows.map((r) => JSON.stringify(r.data));
      for (const kind of ["driver_created", "pool_driver_created", "token_rotated"]) {
        for (const where of [logged, published]) {
          assert.ok(where.some((text) => text.includes(`"kind":"${kind}"`)), kind);
        }
      }
      for (const text of [...logged, ...published, ...projected]) {
        for (const h of hashes) assert.ok(!text.includes(h), text);
      }
      // The token's hint still tells tokens apart.
      assert.ok(logged.some((text) => text.includes(tokens[1]!.slice(-4))));
    } finally {
      for (const s of subscriptions) s.unsubscribe();
    }
  }));
