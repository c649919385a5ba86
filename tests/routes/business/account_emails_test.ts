/**
 * Portal e-mails (CONTRACT "Sign-in and people"): an e-mail signs in to one portal user with the
 * password alone, so it is unique across businesses, exactly: creates at once give it to one.
 * Refused, it tells nothing of the business holding it; sign-in answers alike whether it exists.
 */
import assert from "node:assert/strict";
import { type Answer, type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { login } from "./account_fixtures.ts";

const AT_ONCE = 50;

/** The refusal as a caller sees it: status and body (the request id aside). */
const refusal = (a: Answer) => ({ status: a.status, body: a.body });

/** Business snapshots in the query side, once it holds everything committed. */
async function businessesProjected(t: TestEnv): Promise<string[]> {
  await t.settle();
  const rows = await t.env.db.selectFrom("snapshots").select("id")
    .where("type", "=", "business").execute();
  return rows.map((r) => r.id);
}

Deno.test("portal e-mails: 50 businesses created at once with one owner e-mail: one is made, the rest refused alike, nothing else left", () =>
  withTestEnv(async (t) => {
    const email = "twin.owner@example.com";
    const answers = await Promise.all(
      Array.from({ length: AT_ONCE }, (_, i) =>
        t.call("POST", "/operator/businesses", {
          operator: true,
          body: {
            name: `Twin ${i}`,
            plan: "business",
            currency: "BWP",
            country: "BW",
            owner_email: email,
          },
        })),
    );
    const made = answers.filter((a) => a.status === 201);
    assert.equal(made.length, 1, JSON.stringify(answers.map((a) => a.status)));
    const refused = answers.filter((a) => a.status !== 201).map(refusal);
    assert.equal(refused.length, AT_ONCE - 1);
    for (const r of refused) {
      assert.deepEqual(r, {
        status: 409,
        body: {
          success: false,
          code: "email_taken",
          message: `a portal user already has this e-mail: ${email}`,
        },
      });
    }
    // No business (with its key and owner) was made for a refused create.
    const winner = made[0]!.body.data;
    assert.deepEqual(await businessesProjected(t), [winner.id]);
    await login(t, email, winner.owner.password);
  }));

Deno.test("portal e-mails: 50 invites at once of one e-mail from two businesses: one person is made, the rest refused alike", () =>
  withTestEnv(async (t) => {
    const [a, b] = [await t.createBusiness(), await t.createBusiness()];
    const owners = [
      await login(t, a.owner.email, a.owner.password),
      await login(t, b.owner.email, b.owner.password),
    ];
    const email = "twin.person@example.com";
    const answers = await Promise.all(
      Array.from({ length: AT_ONCE }, (_, i) =>
        t.call("POST", "/business/people", {
          key: owners[i % 2]!,
          body: { name: `Twin ${i}`, email, portal_role: "coordinator" },
        })),
    );
    const made = answers.filter((r) => r.status === 201);
    assert.equal(made.length, 1, JSON.stringify(answers.map((r) => r.status)));
    // The same words whether the other invite won in the caller's business or the other one.
    const refused = new Set(
      answers.filter((r) => r.status !== 201).map((r) => JSON.stringify(refusal(r))),
    );
    assert.deepEqual([...refused], [JSON.stringify({
      status: 409,
      body: {
        success: false,
        code: "email_taken",
        message: `a portal user already has this e-mail: ${email}`,
      },
    })]);
    // One person holds the address, in one business; no other was added anywhere.
    const people = await Promise.all(
      owners.map((key) => t.call("GET", "/business/people", { key })),
    );
    const holders = people.flatMap((p) => p.body.data).filter((p: { email: string }) =>
      p.email === email
    );
    assert.equal(holders.length, 1);
    assert.deepEqual(people.map((p) => p.body.data.length).sort(), [1, 2]);
    await login(t, email, made[0]!.body.data.password);
  }));

Deno.test("portal e-mails: an address held in the caller's own business or in another is refused word for word alike, naming no business", () =>
  withTestEnv(async (t) => {
    const a = await t.createBusiness({ name: "Kgalagadi Couriers" });
    const b = await t.createBusiness({ name: "Okavango Express" });
    const [ownerA, ownerB] = [
      await login(t, a.owner.email, a.owner.password),
      await login(t, b.owner.email, b.owner.password),
    ];
    const invite = (key: string, email: string) =>
      t.call("POST", "/business/people", {
        key,
        body: { name: "Neo", email, portal_role: "admin" },
      });
    const email = "neo@example.com";
    assert.equal((await invite(ownerA, email)).status, 201);
    const own = await invite(ownerA, email);
    const other = await invite(ownerB, email);
    assert.equal(own.status, 409);
    assert.deepEqual(refusal(other), refusal(own));
    // The owner's own address, and another business's owner's, alike too.
    const ownOwner = await invite(ownerB, b.owner.email);
    const otherOwner = await invite(ownerB, a.owner.email);
    assert.deepEqual(
      refusal(ownOwner).body.message.replace(b.owner.email, "x"),
      refusal(otherOwner).body.message.replace(a.owner.email, "x"),
    );
    assert.deepEqual(Object.keys(otherOwner.body).sort(), Object.keys(ownOwner.body).sort());
    for (const r of [other, otherOwner]) {
      const text = JSON.stringify(r.body);
      for (const told of [a.id, "Kgalagadi"]) assert.ok(!text.includes(told), text);
    }
  }));

Deno.test("portal sign-in: an unknown address and a wrong password answer alike, also once throttled", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const attempt = (email: string) =>
      t.call("POST", "/business/login", { body: { email, password: "not the password" } });
    // Past the free failures each address waits: the answers stay alike all along.
    for (let i = 0; i < 7; i++) {
      const [known, unknown] = [await attempt(b.owner.email), await attempt("nobody@example.com")];
      assert.deepEqual(refusal(unknown), refusal(known), `attempt ${i + 1}`);
      assert.ok([401, 429].includes(known.status));
      if (known.status === 429) {
        assert.equal(unknown.headers.get("Retry-After"), known.headers.get("Retry-After"));
      }
    }
    const first = await attempt("someone.else@example.com");
    assert.deepEqual(refusal(first), {
      status: 401,
      body: { success: false, code: "unauthenticated", message: "e-mail or password is wrong" },
    });
  }));
