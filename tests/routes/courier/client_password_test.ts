/**
 * A client user's password (courier 5; CONTRACT "Sign-in and people"): a change signs the
 * person's other sessions out, so of two changes at once only one can stand.
 */
import assert from "node:assert/strict";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { newClient, newCourier } from "../../helpers/courier.ts";

function session(token: string): Record<string, string> {
  return { "X-Client-API-Key": token };
}

async function login(t: TestEnv, email: string, password: string) {
  return await t.call("POST", "/client/login", { body: { email, password } });
}

Deno.test("client password: two sessions of one person changing it at once: one change stands and its new session works; the other is refused 401 and changes nothing", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    const { email, password } = client.user;
    const a = (await login(t, email, password)).body.data.token;
    const b = (await login(t, email, password)).body.data.token;
    const wanted = ["first-new-pass-71", "second-new-pass-72"];
    const answers = await Promise.all(
      [a, b].map((token, i) =>
        t.call("POST", "/client/password", {
          headers: session(token),
          body: { current_password: password, new_password: wanted[i] },
        })
      ),
    );
    const won = answers.findIndex((r) => r.status === 200);
    assert.notEqual(won, -1, JSON.stringify(answers.map((r) => r.body)));
    const lost = 1 - won;
    // spec: courier 5: the change ends the other sessions; the one that lost was one of them.
    assert.equal(answers[lost]!.status, 401, JSON.stringify(answers[lost]!.body));
    assert.equal(answers[lost]!.body.code, "unauthenticated");
    const me = await t.call("GET", "/client/me", {
      headers: session(answers[won]!.body.data.token),
    });
    assert.equal(me.status, 200, "the session answered with the change works");
    assert.equal((await login(t, email, wanted[won]!)).status, 200, "the change answered stands");
    assert.equal((await login(t, email, wanted[lost]!)).status, 401, "the refused one set nothing");
  }));
