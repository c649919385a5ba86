/**
 * Business API 5.6: a changed API key, webhook secret or webhook address is recorded and e-mailed
 * to the account owner: one e-mail per change, never the key or the secret, none for a request
 * that changes nothing, and one however many times (or instances) the change is heard; the
 * shopping webhook's address and `shf_` secret (shopping 2.1, 4) likewise.
 */
import assert from "node:assert/strict";
import { mailMessageActor } from "../../../actors/platform/mail_message.ts";
import { OwnerNotices } from "../../../src/platform/reactors/owner_notices.ts";
import { egressPolicyOf } from "../../../src/outbound/egress.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { shoppingBusiness } from "../../routes/shopping/shopping_fixtures.ts";
import { courierWithScopes } from "../../helpers/courier.ts";

interface Mail {
  readonly id: string;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly cause: string;
  readonly channel: string;
  readonly disposition: { readonly status: string; readonly reason?: string };
}

/** The business's outbox, oldest first, once every change so far has been heard. */
async function outbox(t: TestEnv, businessId: string): Promise<Mail[]> {
  await t.env.bus.flush();
  await t.settle();
  const rows = await t.env.db.selectFrom("snapshots").select("data")
    .where("type", "=", mailMessageActor.type)
    .where("tenant", "=", businessId)
    .execute();
  // Ids end in the place of the change in the business's log.
  const seq = (m: Mail) => Number(m.id.split(":").at(-1));
  return rows.map((r) => r.data as Mail).sort((x, y) => seq(x) - seq(y));
}

async function login(t: TestEnv, email: string, password: string): Promise<string> {
  const r = await t.call("POST", "/business/login", { body: { email, password } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.token;
}

Deno.test("owner notices: a new API key, webhook secret and webhook address are each e-mailed to the owner once, without the secret", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness({ name: "Kgalagadi Couriers" });
    const owner = await login(t, b.owner.email, b.owner.password);
    assert.deepEqual(await outbox(t, b.id), [], "creating the business e-mails nothing");

    const key = await t.call("POST", "/business/api-key/regenerate", { key: b.api_key });
    assert.equal(key.status, 201, JSON.stringify(key.body));
    const secret = await t.call("POST", "/business/webhook-secret/regenerate", { key: owner });
    assert.equal(secret.status, 201, JSON.stringify(secret.body));
    const hook = await t.call("PATCH", "/business/profile", {
      key: key.body.data.api_key,
      body: { webhook_url: "https://hooks.example.com/k" },
    });
    assert.equal(hook.status, 200, JSON.stringify(hook.body));

    const mails = await outbox(t, b.id);
    assert.deepEqual(mails.map((m) => [m.cause, m.to]), [
      ["api_key_rotated", b.owner.email],
      ["webhook_secret_rotated", b.owner.email],
      ["profile_changed", b.owner.email],
    ]);
    const [keyMail, secretMail, hookMail] = mails;
    assert.match(keyMail!.subject, /API key was changed/);
    assert.match(keyMail!.text, /integration API key/);
    assert.ok(keyMail!.text.includes(key.body.data.hint));
    assert.match(secretMail!.subject, /webhook signing secret was changed/);
    assert.ok(secretMail!.text.includes(secret.body.data.key_id));
    assert.ok(secretMail!.text.includes(b.owner.email), "names the person who changed it");
    assert.match(hookMail!.subject, /webhook address was changed/);
    assert.ok(hookMail!.text.includes("https://hooks.example.com/k"));
    assert.deepEqual(mails.map((m) => [m.channel, m.disposition]), [
      ["email", { status: "queued" }],
      ["email", { status: "queued" }],
      ["email", { status: "queued" }],
    ]);
    const all = JSON.stringify(mails);
    for (const shown of [key.body.data.api_key, secret.body.data.webhook_secret, b.api_key]) {
      assert.ok(!all.includes(shown), "never a key or a secret");
    }
  }));

Deno.test("owner notices: a request that changes no webhook address e-mails nothing", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const patch = (body: Record<string, unknown>) =>
      t.call("PATCH", "/business/profile", { key: b.api_key, body });
    assert.equal((await patch({ webhook_url: "https://hooks.example.com/a" })).status, 200);
    // The same request again, and changes to other fields, are no change of the address.
    assert.equal((await patch({ webhook_url: "https://hooks.example.com/a" })).status, 200);
    assert.equal((await patch({ low_balance_threshold: 50 })).status, 200);
    assert.equal((await patch({ webhook_url: null })).status, 200);
    assert.equal((await patch({ webhook_url: "" })).status, 200);
    const mails = await outbox(t, b.id);
    assert.equal(mails.length, 2, JSON.stringify(mails));
    assert.match(mails[1]!.text, /webhook address was removed/);
    const audit = await t.call("GET", "/business/audit-log", { key: b.api_key });
    assert.deepEqual(
      audit.body.data.entries.map((e: { detail: unknown }) => e.detail).slice(1),
      [
        { changes: { webhook_url: "https://hooks.example.com/a" } },
        { changes: { low_balance_threshold: 50 } },
        { changes: { webhook_url: null } },
      ],
      "a change that changes nothing is not recorded either",
    );
  }));

Deno.test("owner notices: a new billing endpoint is e-mailed to the owner as a new webhook address is; the same again, nothing", () =>
  withTestEnv(async (t) => {
    const b = await courierWithScopes(t, ["billing:administer"]);
    const put = (url: string | null) =>
      t.call("PUT", "/business/courier/billing/endpoint", { key: b.api_key, body: { url } });
    assert.equal((await put("https://billing.example.com/events")).status, 200);
    assert.equal((await put("https://billing.example.com/events")).status, 200);
    assert.equal((await put(null)).status, 200);
    const mails = await outbox(t, b.id);
    assert.deepEqual(mails.map((m) => [m.cause, m.to, m.channel]), [
      ["profile_changed", b.owner.email, "email"],
      ["profile_changed", b.owner.email, "email"],
    ]);
    const [set, cleared] = mails;
    assert.match(set!.subject, /billing endpoint was changed/);
    assert.ok(set!.text.includes("https://billing.example.com/events"));
    assert.match(set!.text, /integration API key/, "names who changed it");
    assert.match(cleared!.text, /billing endpoint was removed/);
  }));

Deno.test("owner notices: a change heard twice (a second instance on the bus) is e-mailed once", () =>
  withTestEnv(async (t) => {
    const second = new OwnerNotices({
      runtime: t.env.runtime,
      bus: t.env.bus,
      egress: egressPolicyOf("live"),
    });
    try {
      const b = await t.createBusiness();
      const r = await t.call("POST", "/business/api-key/regenerate", { key: b.api_key });
      assert.equal(r.status, 201);
      const mails = await outbox(t, b.id);
      assert.deepEqual(mails.map((m) => m.cause), ["api_key_rotated"]);
    } finally {
      await second.close();
    }
  }));

Deno.test("owner notices: in the sandbox the e-mail is kept, refused at the sender with why", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const r = await t.call("POST", "/business/api-key/regenerate", { key: b.api_key });
    assert.equal(r.status, 201);
    const mails = await outbox(t, b.id);
    assert.deepEqual(mails.map((m) => [m.cause, m.channel, m.disposition.status]), [
      ["api_key_rotated", "email", "refused"],
    ]);
    assert.match(mails[0]!.disposition.reason!, /^email refused: the sandbox reaches no real/);
  }, { name: "sandbox" }));

Deno.test("owner notices: a new shopping webhook address and shf_ secret are each e-mailed to the owner once, without the secret", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const settings = "/business/shopping-fulfilment";
    const put = (body: Record<string, unknown>) =>
      t.call("PUT", settings, { key: b.api_key, body });
    assert.equal((await put({ webhook_url: "https://shop.example.com/hook" })).status, 200);
    // The same address again, and another setting alone, are no change of the address.
    assert.equal((await put({ webhook_url: "https://shop.example.com/hook" })).status, 200);
    assert.equal((await put({ ask_timeout_minutes: 7 })).status, 200);
    const rotated = await t.call("POST", `${settings}/secret/rotate`, { key: b.api_key });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    assert.equal((await put({ webhook_url: null })).status, 200);

    const mails = await outbox(t, b.id);
    assert.deepEqual(mails.map((m) => [m.cause, m.to, m.channel]), [
      ["shopping_webhook_url_changed", b.owner.email, "email"],
      ["shopping_webhook_secret_rotated", b.owner.email, "email"],
      ["shopping_webhook_url_changed", b.owner.email, "email"],
    ]);
    const [hookMail, secretMail, clearedMail] = mails;
    assert.match(hookMail!.subject, /shopping webhook address was changed/);
    assert.ok(hookMail!.text.includes("https://shop.example.com/hook"));
    assert.match(hookMail!.text, /integration API key/, "names who changed it");
    assert.match(secretMail!.subject, /shopping webhook signing secret was changed/);
    assert.match(secretMail!.text, /key id is shk_/);
    assert.match(clearedMail!.text, /shopping webhook address was removed/);
    const secret = rotated.body.data.webhook_secret as string;
    assert.match(secret, /^shf_/);
    const all = JSON.stringify(mails);
    assert.ok(!all.includes(secret) && !all.includes(secret.slice(4)), "never the secret");
  }));
