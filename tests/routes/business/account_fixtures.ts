/** Signing in and inviting the business's people, for the account tests. */
import assert from "node:assert/strict";
import type { TestEnv } from "../../helpers/test_env.ts";

export async function login(t: TestEnv, email: string, password: string): Promise<string> {
  const r = await t.call("POST", "/business/login", { body: { email, password } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.match(r.body.data.token, /^st_/);
  return r.body.data.token;
}

/** The owner invites a person with a role; answers the person (and its temporary password). */
export async function invited(t: TestEnv, ownerToken: string, role: "admin" | "coordinator") {
  const email = `${role}.${crypto.randomUUID().slice(0, 8)}@example.com`;
  const r = await t.call("POST", "/business/people", {
    key: ownerToken,
    body: { name: role, email, portal_role: role },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.data as { id: string; email: string; password: string };
}

/** The owner invites a person with a role; answers that person's session token. */
export async function invite(t: TestEnv, ownerToken: string, role: "admin" | "coordinator") {
  const person = await invited(t, ownerToken, role);
  return await login(t, person.email, person.password);
}
