/**
 * Client codes and client user e-mails (courier 2.5, 4.6, 5; CONTRACT "Sign-in and people"): a
 * code names one client of a courier; an e-mail signs in to one client user with the password
 * alone, so it is unique across couriers. Exact: creates at once give each to one, and the rest
 * leave nothing behind. Refused, an e-mail tells nothing of the tenant holding it.
 */
import assert from "node:assert/strict";
import { type Answer, type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  type Client,
  clientKey,
  type Courier,
  newClient,
  newCourier,
  postClient,
} from "../../helpers/courier.ts";

const AT_ONCE = 50;

/** The refusal as a caller sees it: status and body (the request id aside). */
const refusal = (a: Answer) => JSON.stringify({ status: a.status, body: a.body });

/** Ids of the client snapshots in the query side, once it holds everything committed. */
async function clientsProjected(t: TestEnv): Promise<string[]> {
  await t.settle();
  const rows = await t.env.db.selectFrom("snapshots").select("id")
    .where("type", "=", "courier_client").execute();
  return rows.map((r) => r.id).sort();
}

/** The one 201 among `answers`, after checking the rest are all `expected`, word for word. */
function oneMade(answers: readonly Answer[], expected: { code: string; message: string }) {
  const made = answers.filter((a) => a.status === 201);
  assert.equal(made.length, 1, JSON.stringify(answers.map((a) => [a.status, a.body.code])));
  const refused = new Set(answers.filter((a) => a.status !== 201).map(refusal));
  assert.deepEqual([...refused], [
    JSON.stringify({ status: 409, body: { success: false, ...expected } }),
  ]);
  return made[0]!.body.data;
}

Deno.test("courier clients: 50 created at once with one code: one is made, the rest refused alike, leaving no client, key or user", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const answers = await Promise.all(
      Array.from(
        { length: AT_ONCE },
        (_, i) => postClient(t, courier, "TWIN", { email: `twin${i}@example.com` }),
      ),
    );
    const made = oneMade(answers, {
      code: "already_exists",
      message: "a client already has this code: TWIN",
    });
    assert.deepEqual(await clientsProjected(t), [made.id]);
    // The refused creates' e-mails are free: no client user was left holding one.
    const loser = answers.find((a) => a.status !== 201)!;
    const email = `twin${answers.indexOf(loser)}@example.com`;
    const again = await postClient(t, courier, "TWIN2", { email });
    assert.equal(again.status, 201, JSON.stringify(again.body));
  }));

Deno.test("courier clients: 50 created at once with one e-mail by two couriers: one is made, the rest refused alike", () =>
  withTestEnv(async (t) => {
    const couriers = [await newCourier(t), await newCourier(t)];
    const email = "twin.client@example.com";
    const answers = await Promise.all(
      Array.from(
        { length: AT_ONCE },
        (_, i) => postClient(t, couriers[i % 2]!, `TWIN${i}`, { email }),
      ),
    );
    const made = oneMade(answers, {
      code: "email_taken",
      message: `a client user already has this e-mail: ${email}`,
    });
    assert.deepEqual(await clientsProjected(t), [made.id]);
    // A refused create's code is free: no client was left holding it.
    const i = answers.findIndex((a) => a.status !== 201);
    const again = await postClient(t, couriers[i % 2]!, `TWIN${i}`, { email: "other@example.com" });
    assert.equal(again.status, 201, JSON.stringify(again.body));
    const login = await t.call("POST", "/client/login", {
      body: { email, password: made.user.password },
    });
    assert.equal(login.status, 200);
  }));

function invite(t: TestEnv, client: Client, email: string, name: string) {
  return t.call("POST", "/client/users", {
    headers: clientKey(client),
    body: { email, name, role: "client_user" },
  });
}

async function users(t: TestEnv, client: Client): Promise<{ email: string }[]> {
  return (await t.call("GET", "/client/users", { headers: clientKey(client) })).body.data;
}

Deno.test("client users: 50 invites at once of one e-mail from clients of two couriers: one user is made, the rest refused alike", () =>
  withTestEnv(async (t) => {
    const couriers: Courier[] = [await newCourier(t), await newCourier(t)];
    const clients = [await newClient(t, couriers[0]!), await newClient(t, couriers[1]!)];
    const email = "twin.user@example.com";
    // Two clients: a race inside one client (its own check) and one between clients (the index).
    const answers = await Promise.all(
      Array.from({ length: AT_ONCE }, (_, i) => invite(t, clients[i % 2]!, email, `Twin ${i}`)),
    );
    oneMade(answers, {
      code: "email_taken",
      message: `a client user already has this e-mail: ${email}`,
    });
    const listed = await Promise.all(clients.map((c) => users(t, c)));
    assert.deepEqual(listed.map((l) => l.length).sort(), [1, 2]);
    assert.equal(listed.flat().filter((u) => u.email === email).length, 1);
  }));

Deno.test("client e-mails: held by the caller's own client, another client or another courier's, refused word for word alike", () =>
  withTestEnv(async (t) => {
    const [mine, theirs] = [await newCourier(t), await newCourier(t)];
    const [a, b] = [await newClient(t, mine), await newClient(t, mine)];
    const far = await newClient(t, theirs);
    const email = "held@example.com";
    assert.equal((await invite(t, far, email, "Held")).status, 201);
    const fromOtherCourier = await invite(t, a, email, "Again");
    assert.equal(
      (await t.call("POST", "/client/users", {
        headers: clientKey(a),
        body: { email: "mine@example.com", name: "Mine", role: "client_user" },
      })).status,
      201,
    );
    const own = await invite(t, a, "mine@example.com", "Again");
    const sameCourier = await invite(t, b, "mine@example.com", "Again");
    assert.equal(own.status, 409);
    const words = (r: Answer, address: string) => refusal(r).replace(address, "<e-mail>");
    assert.equal(words(fromOtherCourier, email), words(own, "mine@example.com"));
    assert.equal(refusal(sameCourier), refusal(own));
    // A courier creating a client with another courier's client user's e-mail: alike too.
    const create = await postClient(t, mine, "NEWONE", { email });
    const createOwn = await postClient(t, mine, "NEWTWO", { email: "mine@example.com" });
    assert.equal(words(create, email), words(createOwn, "mine@example.com"));
    assert.ok(!JSON.stringify(create.body).includes(theirs.business.id));
  }));

Deno.test("client sign-in: an unknown address and a wrong password answer alike, also once throttled", () =>
  withTestEnv(async (t) => {
    const client = await newClient(t, await newCourier(t));
    const attempt = (email: string) =>
      t.call("POST", "/client/login", { body: { email, password: "not the password" } });
    for (let i = 0; i < 7; i++) {
      const [known, unknown] = [
        await attempt(client.user.email),
        await attempt("nobody@example.com"),
      ];
      assert.equal(refusal(unknown), refusal(known), `attempt ${i + 1}`);
      assert.equal(unknown.headers.get("Retry-After"), known.headers.get("Retry-After"));
    }
    assert.equal(
      refusal(await attempt("someone.else@example.com")),
      JSON.stringify({
        status: 401,
        body: { success: false, code: "unauthenticated", message: "e-mail or password is wrong" },
      }),
    );
  }));
