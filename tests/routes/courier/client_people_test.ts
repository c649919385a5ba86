import assert from "node:assert/strict";
import { LOGIN_ATTEMPT_PENDING_MS } from "../../../src/limits.ts";
import { loginDelayMs, LoginThrottle } from "../../../src/http/login_throttle.ts";
import { ManualClock } from "../../../src/runtime/clock.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { clientKey, type Courier, newClient, newCourier } from "../../helpers/courier.ts";

const GOOD_PASSWORD = "a-new-password-1";

function session(token: string): Record<string, string> {
  return { "X-Client-API-Key": token };
}

async function login(t: TestEnv, email: string, password: string) {
  return await t.call("POST", "/client/login", { body: { email, password } });
}

/** Signs in with the sent password and sets a new one; answers the new session token. */
async function firstSignIn(t: TestEnv, email: string, sent: string): Promise<string> {
  const r = await login(t, email, sent);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const changed = await t.call("POST", "/client/password", {
    headers: session(r.body.data.token),
    body: { current_password: sent, new_password: GOOD_PASSWORD },
  });
  assert.equal(changed.status, 200, JSON.stringify(changed.body));
  return changed.body.data.token;
}

function invite(t: TestEnv, headers: Record<string, string>, body: Record<string, unknown>) {
  return t.call("POST", "/client/users", { headers, body });
}

Deno.test("client users: listed without hashes; the API key invites; the new user changes the password first", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    const list = await t.call("GET", "/client/users", { headers: clientKey(client) });
    assert.equal(list.status, 200);
    assert.equal(list.body.data.length, 1);
    assert.deepEqual(Object.keys(list.body.data[0]).sort(), [
      "created_at",
      "email",
      "id",
      "name",
      "password_change_required",
      "role",
    ]);
    assert.equal(list.body.data[0].role, "client_admin");
    assert.equal(list.body.data[0].password_change_required, true);

    const invited = await invite(t, clientKey(client), {
      email: "Dispatch@Example.com",
      name: "Dispatch desk",
      role: "client_user",
    });
    assert.equal(invited.status, 201, JSON.stringify(invited.body));
    assert.equal(invited.body.data.email, "dispatch@example.com");
    assert.equal(invited.body.data.password_change_required, true);
    assert.equal(invited.body.data.created_at, "2026-11-02T08:00:00.000Z");
    const sent = invited.body.data.password as string;
    assert.ok(sent.length >= 10);

    const duplicate = await invite(t, clientKey(client), {
      email: "dispatch@example.com",
      name: "Again",
      role: "client_user",
    });
    assert.equal(duplicate.status, 409);
    assert.equal(duplicate.body.code, "email_taken");
    const other = await newClient(t, courier);
    const elsewhere = await invite(t, clientKey(other), {
      email: "dispatch@example.com",
      name: "Elsewhere",
      role: "client_admin",
    });
    assert.equal(elsewhere.status, 409);
    const badRole = await invite(t, clientKey(client), {
      email: "x@example.com",
      name: "X",
      role: "owner",
    });
    assert.equal(badRole.status, 422);
    assert.equal(badRole.body.errors[0].path, "role");

    // The new user signs in (the client_email index has them) and must change the password.
    const signedIn = await login(t, "dispatch@example.com", sent);
    assert.equal(signedIn.status, 200);
    const blocked = await t.call("GET", "/client/users", {
      headers: session(signedIn.body.data.token),
    });
    assert.equal(blocked.status, 403);
    assert.equal(blocked.body.code, "password_change_required");
    const token = await firstSignIn(t, "dispatch@example.com", sent);
    const after = await t.call("GET", "/client/users", { headers: session(token) });
    assert.equal(after.status, 200);
    const me = after.body.data.find((u: { email: string }) => u.email === "dispatch@example.com");
    assert.equal(me.password_change_required, false);
    assert.equal(after.body.data.length, 2);
    const others = await t.call("GET", "/client/users", { headers: clientKey(other) });
    assert.equal(others.body.data.length, 1);
  }));

Deno.test("client e-mails: one longer than an address can be is refused naming email, and changes nothing", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    // RFC 5321 4.5.3.1: an address is at most 254 characters; a longer one is no address.
    const long = `${"a".repeat(3_000)}@example.com`;
    const answers = [
      await login(t, long, "wrong-password"),
      await invite(t, clientKey(client), { email: long, name: "Long", role: "client_user" }),
      await t.call("POST", "/business/courier/clients", {
        key: courier.business.api_key,
        body: {
          name: "Long",
          code: "LONG1",
          email: long,
          settlement_mode: "prepaid",
          billing_currency: "BWP",
        },
      }),
    ];
    for (const r of answers) {
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.equal(r.body.code, "validation_failed");
      assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), ["email"]);
    }
    const users = await t.call("GET", "/client/users", { headers: clientKey(client) });
    assert.equal(users.body.data.length, 1);
    // An address of the longest length is still one.
    const longest = `${"b".repeat(64)}@${"c".repeat(63)}.${"d".repeat(63)}.${"e".repeat(58)}.bw`;
    assert.equal(longest.length, 254);
    const fits = await invite(t, clientKey(client), {
      email: longest,
      name: "Longest",
      role: "client_user",
    });
    assert.equal(fits.status, 201, JSON.stringify(fits.body));
  }));

Deno.test("client users: only a client administrator invites; a client_user gets client_admin_only", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    const invited = await invite(t, clientKey(client), {
      email: "clerk@example.com",
      name: "Clerk",
      role: "client_user",
    });
    const clerk = await firstSignIn(t, "clerk@example.com", invited.body.data.password);
    const refused = await invite(t, session(clerk), {
      email: "friend@example.com",
      name: "Friend",
      role: "client_admin",
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, "client_admin_only");
    const users = await t.call("GET", "/client/users", { headers: clientKey(client) });
    assert.equal(users.body.data.length, 2);

    const admin = await firstSignIn(t, client.user.email, client.user.password);
    const byAdmin = await invite(t, session(admin), {
      email: "friend@example.com",
      name: "Friend",
      role: "client_admin",
    });
    assert.equal(byAdmin.status, 201);
    assert.equal(byAdmin.body.data.role, "client_admin");
  }));

Deno.test("client users: a client_user rotating the API key or setting the webhook gets client_admin_only, and changes nothing", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    const invited = await invite(t, clientKey(client), {
      email: "clerk@example.com",
      name: "Clerk",
      role: "client_user",
    });
    const clerk = await firstSignIn(t, "clerk@example.com", invited.body.data.password);
    // The same condition answers the same code on every client endpoint (CONTRACT: consistent).
    const rotate = await t.call("POST", "/client/api-key", { headers: session(clerk) });
    assert.equal(rotate.status, 403);
    assert.equal(rotate.body.code, "client_admin_only");
    const webhook = await t.call("POST", "/client/webhook", {
      headers: session(clerk),
      body: { url: "https://example.com/hooks" },
    });
    assert.equal(webhook.status, 403);
    assert.equal(webhook.body.code, "client_admin_only");
    // The key still works and no webhook was set.
    const me = await t.call("GET", "/business/courier/clients/" + client.id, {
      key: courier.business.api_key,
    });
    assert.equal(me.body.data.webhook_url, null);
    assert.equal((await t.call("GET", "/client/me", { headers: clientKey(client) })).status, 200);
  }));

Deno.test("client password: a weak new password is refused with 422 naming new_password, and changes nothing", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    const { email, password } = client.user;
    const signedIn = await login(t, email, password);
    assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
    const weak = [
      "short",
      "aaaaaaaaaaaa",
      "password123",
      "Password123",
      "QWERTYUIOP",
      email,
      email.toUpperCase(),
      "1234567890",
      "0987654321",
      "5678901234",
      "abcdefghijk",
      "ZYXWVUTSRQ",
    ];
    for (const new_password of weak) {
      const r = await t.call("POST", "/client/password", {
        headers: session(signedIn.body.data.token),
        body: { current_password: password, new_password },
      });
      assert.equal(r.status, 422, `${new_password}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "validation_failed");
      assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), ["new_password"]);
    }
    // Nothing changed: the sent password still signs in, and a sound one is taken.
    assert.equal((await login(t, email, password)).status, 200);
    const sound = await t.call("POST", "/client/password", {
      headers: session(signedIn.body.data.token),
      body: { current_password: password, new_password: GOOD_PASSWORD },
    });
    assert.equal(sound.status, 200, JSON.stringify(sound.body));
  }));

Deno.test("client password: wrong current_password guesses are throttled as sign-ins are (429, Retry-After); others' failed sign-ins never hold the change", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    const { email, password } = client.user;
    const token = (await login(t, email, password)).body.data.token;
    const change = (current_password: string) =>
      t.call("POST", "/client/password", {
        headers: session(token),
        body: { current_password, new_password: GOOD_PASSWORD },
      });
    for (let i = 0; i < 5; i++) {
      const r = await change(`wrong-guess-${i}`);
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.equal(r.body.errors[0].path, "current_password");
    }
    const held = await change(password);
    assert.equal(held.status, 429, JSON.stringify(held.body));
    assert.equal(held.body.code, "rate_limited");
    assert.equal(held.headers.get("Retry-After"), "30");
    t.clock.advanceBy(30_000);
    const changed = await change(password);
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
  }));

Deno.test("client password: someone failing sign-ins with the e-mail never stops the session's holder changing the password", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    const { email, password } = client.user;
    const token = (await login(t, email, password)).body.data.token;
    for (let i = 0; i < 6; i++) await login(t, email, `not-the-password-${i}`);
    assert.equal((await login(t, email, password)).status, 429, "sign-in waits");
    const changed = await t.call("POST", "/client/password", {
      headers: session(token),
      body: { current_password: password, new_password: GOOD_PASSWORD },
    });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
  }));

/** POST /client/login as if from `address` (the socket's address, as Deno.serve gives it). */
async function loginFrom(t: TestEnv, address: string, email: string, password: string) {
  const res = await t.app.request("/api/client/login", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, password }),
  }, { remoteAddr: { hostname: address, port: 40_000, transport: "tcp" } });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

Deno.test("login throttling: failures per account wait longer each time; a success clears them", () =>
  withTestEnv(async (t) => {
    const courier: Courier = await newCourier(t);
    const client = await newClient(t, courier);
    const email = client.user.email;
    for (let i = 0; i < 5; i++) {
      const r = await login(t, email, "wrong-password");
      assert.equal(r.status, 401);
    }
    const held = await login(t, email, client.user.password);
    assert.equal(held.status, 429);
    assert.equal(held.body.code, "rate_limited");
    assert.equal(held.headers.get("Retry-After"), "30");
    t.clock.advanceBy(30_000);
    assert.equal((await login(t, email, "wrong-password")).status, 401);
    const longer = await login(t, email, client.user.password);
    assert.equal(longer.status, 429);
    assert.equal(longer.headers.get("Retry-After"), "60");
    // Other accounts are not held up by this one.
    const other = await newClient(t, courier);
    assert.equal((await login(t, other.user.email, other.user.password)).status, 200);
    t.clock.advanceBy(60_000);
    const ok = await login(t, email, client.user.password);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    // The success cleared the account: five more failures before the next wait.
    for (let i = 0; i < 4; i++) assert.equal((await login(t, email, "wrong")).status, 401);
    assert.equal((await login(t, email, client.user.password)).status, 200);
  }));

Deno.test("login throttling: failures per address hold that address only, until the wait passes", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    const guesser = "203.0.113.9";
    for (let i = 0; i < 20; i++) {
      const r = await loginFrom(t, guesser, `nobody${i}@example.com`, "guess");
      assert.equal(r.status, 401);
    }
    const held = await loginFrom(t, guesser, client.user.email, client.user.password);
    assert.equal(held.status, 429);
    assert.equal(held.body.code, "rate_limited");
    assert.equal(held.headers.get("Retry-After"), "30");
    const elsewhere = await loginFrom(t, "198.51.100.7", client.user.email, client.user.password);
    assert.equal(elsewhere.status, 200);
    t.clock.advanceBy(30_000);
    const lifted = await loginFrom(t, guesser, client.user.email, client.user.password);
    assert.equal(lifted.status, 200);
  }));

Deno.test("login throttling: guesses sent all at once get no more tries than one after another", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    const email = client.user.email;
    // Thirty wrong passwords at once for one account: five are checked, the rest wait.
    const burst = await Promise.all(
      Array.from({ length: 30 }, (_, i) => login(t, email, `wrong-password-${i}`)),
    );
    const checked = burst.filter((r) => r.status === 401).length;
    const held = burst.filter((r) => r.status === 429);
    assert.equal(checked, 5, burst.map((r) => r.status).join(","));
    assert.equal(held.length, 25);
    for (const r of held) {
      assert.equal(r.body.code, "rate_limited");
      assert.ok(Number(r.headers.get("Retry-After")) >= 1);
    }
    // The five failures hold the account, as five in a row do.
    assert.equal((await login(t, email, client.user.password)).status, 429);
    t.clock.advanceBy(30_000);
    // Past the free failures, one guess at a time: two at once, one is checked.
    const pair = await Promise.all([login(t, email, "wrong-a"), login(t, email, "wrong-b")]);
    assert.deepEqual(pair.map((r) => r.status).sort(), [401, 429]);

    // Thirty at once from one address, each for another account: twenty are checked.
    const guesser = "203.0.113.77";
    const spread = await Promise.all(
      Array.from({ length: 30 }, (_, i) => loginFrom(t, guesser, `nobody${i}@example.com`, "x")),
    );
    assert.equal(spread.filter((r) => r.status === 401).length, 20);
    assert.equal(spread.filter((r) => r.status === 429).length, 10);
    // Sign-ins that succeed at once are not held by one another.
    const other = await newClient(t, courier);
    const together = await Promise.all(
      Array.from({ length: 3 }, () => login(t, other.user.email, other.user.password)),
    );
    assert.deepEqual(together.map((r) => r.status), [200, 200, 200]);
  }));

Deno.test("login throttling: the portal sign-in is throttled the same way", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    for (let i = 0; i < 5; i++) {
      const r = await t.call("POST", "/business/login", {
        body: { email: b.owner.email, password: "wrong-password" },
      });
      assert.equal(r.status, 401);
    }
    const held = await t.call("POST", "/business/login", {
      body: { email: b.owner.email, password: b.owner.password },
    });
    assert.equal(held.status, 429);
    t.clock.advanceBy(30_000);
    const ok = await t.call("POST", "/business/login", {
      body: { email: b.owner.email, password: b.owner.password },
    });
    assert.equal(ok.status, 200);
  }));

Deno.test("login throttle: waits double from the free failures on, capped; old failures are forgotten", () => {
  assert.equal(loginDelayMs(4, 5), 0);
  assert.equal(loginDelayMs(5, 5), 30_000);
  assert.equal(loginDelayMs(6, 5), 60_000);
  assert.equal(loginDelayMs(7, 5), 120_000);
  assert.equal(loginDelayMs(40, 5), 60 * 60 * 1000);
  const clock = new ManualClock();
  const throttle = new LoginThrottle(clock);
  for (let i = 0; i < 4; i++) throttle.fail("k", 5);
  assert.equal(throttle.waitSeconds("k"), 0);
  clock.advanceBy(16 * 60 * 1000);
  throttle.fail("k", 5);
  // The four earlier failures were outside the window: this is the first again.
  assert.equal(throttle.waitSeconds("k"), 0);
  assert.equal(throttle.size, 1);
  clock.advanceBy(16 * 60 * 1000);
  assert.equal(throttle.waitSeconds("k"), 0);
  assert.equal(throttle.size, 0);
});

Deno.test("login throttle: an attempt never reported (a crashed request) stops holding others after a while", () => {
  const clock = new ManualClock();
  const throttle = new LoginThrottle(clock);
  for (let i = 0; i < 5; i++) throttle.admit("k");
  assert.equal(throttle.waitSeconds("k", 5), 1);
  clock.advanceBy(LOGIN_ATTEMPT_PENDING_MS + 1);
  assert.equal(throttle.waitSeconds("k", 5), 0);
  assert.equal(throttle.size, 0);
});
