/**
 * The account's flows without HTTP (Business API 4.3, 5.2, 5.6; CONTRACT "Sign-in and people"):
 * sign-in, password changes, people, the profile and the audit trail.
 */
import assert from "node:assert/strict";
import { businessActor } from "../../../actors/platform/business/mod.ts";
import { SESSION_TENANT, sessionActor } from "../../../actors/platform/session.ts";
import { hashSecret } from "../../../src/domain/secrets.ts";
import { auditTrail } from "../../../src/platform/flows/audit.ts";
import { businessOf } from "../../../src/platform/flows/businesses.ts";
import { rotateApiKey, rotateWebhookSecret } from "../../../src/platform/flows/keys.ts";
import { changePerson, invitePerson, removePerson } from "../../../src/platform/flows/people.ts";
import { changeProfile } from "../../../src/platform/flows/profile.ts";
import { changePassword, signIn } from "../../../src/platform/flows/sign_in.ts";
import {
  countedAttempt,
  keyCaller,
  newBusiness,
  type PlatformDeps,
  refusedAs,
  staffCaller,
  withPlatform,
} from "./platform_deps.ts";

/** Whether the session of `token` is open and its person still signs in with it. */
async function signedIn(deps: PlatformDeps, token: string): Promise<boolean> {
  const hash = await hashSecret(token);
  const s = await deps.runtime.read(sessionActor, SESSION_TENANT, hash, { kind: "check" });
  if (!s.ok || !s.reply) return false;
  const r = await deps.runtime.read(businessActor, s.reply.business_id, s.reply.business_id, {
    kind: "authenticate_staff",
    staff_id: s.reply.user_id,
    session_epoch: s.reply.session_epoch,
    session_hash: hash,
  });
  return r.ok;
}

Deno.test("signIn: a wrong e-mail and a wrong password are one refusal, counted; the right one opens a session", () =>
  withPlatform(async (deps) => {
    const { created } = await newBusiness(deps);
    const { email, password } = created.owner;
    for (
      const input of [{ email, password: "wrong password" }, { email: "x@example.com", password }]
    ) {
      const attempt = countedAttempt();
      await assert.rejects(signIn(deps, input, () => attempt), refusedAs("unauthenticated"));
      assert.deepEqual(attempt.said, ["failed"]);
    }
    const attempt = countedAttempt();
    const session = await signIn(deps, { email, password }, () => attempt);
    assert.deepEqual(attempt.said, ["succeeded"]);
    assert.match(session.token, /^st_/);
    assert.ok(await signedIn(deps, session.token));
  }));

Deno.test("signIn: the sandbox refuses portal sign-in before anything is counted", () =>
  withPlatform(async (deps) => {
    const { created } = await newBusiness(deps);
    let begun = false;
    await assert.rejects(
      signIn(deps, created.owner, () => {
        begun = true;
        return countedAttempt();
      }),
      refusedAs("live_key_on_sandbox"),
    );
    assert.equal(begun, false);
  }, "sandbox"));

Deno.test("changePassword: a person signed in only; the current password must match, a weak one is refused; other sessions end, the caller's stays", () =>
  withPlatform(async (deps) => {
    const { created, business } = await newBusiness(deps);
    const begin = () => countedAttempt();
    const strong = "a long and new passphrase";
    await assert.rejects(
      changePassword(deps, keyCaller(business), {
        current_password: created.owner.password,
        new_password: strong,
        token: "",
      }, begin),
      refusedAs("signed_in_admin_only"),
    );
    const mine = await signIn(deps, created.owner, begin);
    const owner = { ...staffCaller(business), session_hash: await hashSecret(mine.token) };
    const wrong = countedAttempt();
    await assert.rejects(
      changePassword(
        deps,
        owner,
        { current_password: "not it", new_password: strong, token: mine.token },
        () => wrong,
      ),
      refusedAs("validation_failed", (r) => r.message.includes("current_password")),
    );
    assert.deepEqual(wrong.said, ["failed"]);
    await assert.rejects(
      changePassword(deps, owner, {
        current_password: created.owner.password,
        new_password: "password123",
        token: mine.token,
      }, begin),
      refusedAs("validation_failed", (r) => r.message.includes("new_password")),
    );
    const other = await signIn(deps, created.owner, begin);
    const kept = await changePassword(deps, owner, {
      current_password: created.owner.password,
      new_password: strong,
      token: mine.token,
    }, begin);
    assert.equal(await signedIn(deps, other.token), false, "the other device is signed out");
    // spec: business 4.3: "other devices": the caller's own session stays, its token answered.
    assert.equal(kept.token, mine.token);
    assert.ok(await signedIn(deps, mine.token));
  }));

Deno.test("people: invited within the plan, e-mail once; the owner keeps role and place, only they change their name", () =>
  withPlatform(async (deps) => {
    const { created, business } = await newBusiness(deps);
    const owner = staffCaller(business);
    const admin = await invitePerson(deps, owner, {
      name: "Mpho",
      email: "mpho@example.com",
      portal_role: "admin",
    });
    await assert.rejects(
      invitePerson(deps, owner, { name: "M", email: "mpho@example.com", portal_role: "admin" }),
      refusedAs("email_taken"),
    );
    const asAdmin = staffCaller(await businessOf(deps.runtime, created.id), admin.id);
    const ownerId = owner.staff_id;
    await assert.rejects(
      changePerson(deps, asAdmin, ownerId, { name: "X" }),
      refusedAs("owner_protected"),
    );
    await assert.rejects(
      changePerson(deps, owner, ownerId, { portal_role: "admin" }),
      refusedAs("owner_protected"),
    );
    assert.equal((await changePerson(deps, owner, ownerId, { name: "Boss" })).name, "Boss");
    await assert.rejects(removePerson(deps, asAdmin, ownerId), refusedAs("owner_protected"));
    const changed = await changePerson(deps, owner, admin.id, { portal_role: "coordinator" });
    assert.equal(changed.role, "coordinator");
    await removePerson(deps, owner, admin.id);
    await assert.rejects(removePerson(deps, owner, admin.id), refusedAs("not_found"));
    // The Starter plan allows five employee accounts, the owner's among them.
    for (let i = 0; i < 4; i++) {
      await invitePerson(deps, owner, {
        name: `P${i}`,
        email: `p${i}@example.com`,
        portal_role: "coordinator",
      });
    }
    await assert.rejects(
      invitePerson(deps, owner, { name: "P5", email: "p5@example.com", portal_role: "admin" }),
      refusedAs("employee_limit_reached"),
    );
  }));

Deno.test("people: a person of another business is not found", () =>
  withPlatform(async (deps) => {
    const one = await newBusiness(deps);
    const other = await newBusiness(deps);
    const stranger = other.business.staff[0]!.id;
    await assert.rejects(
      changePerson(deps, staffCaller(one.business), stranger, { name: "X" }),
      refusedAs("not_found"),
    );
    await assert.rejects(
      removePerson(deps, staffCaller(one.business), stranger),
      refusedAs("not_found"),
    );
  }));

Deno.test("changeProfile: the key manages the webhook only; the address is public HTTPS; the threshold is exact money", () =>
  withPlatform(async (deps) => {
    const { business } = await newBusiness(deps);
    const key = keyCaller(business);
    await assert.rejects(
      changeProfile(deps, key, { name: "New" }),
      refusedAs("signed_in_admin_only"),
    );
    await assert.rejects(
      changeProfile(deps, key, { billing_contact: null }),
      refusedAs("signed_in_admin_only"),
    );
    await assert.rejects(
      changeProfile(deps, key, { webhook_url: "http://127.0.0.1/hook" }),
      refusedAs("validation_failed", (r) => r.message.startsWith("invalid request: webhook_url")),
    );
    const hooked = await changeProfile(deps, key, { webhook_url: "https://hooks.example.com/a" });
    assert.equal(hooked.profile.webhook_url, "https://hooks.example.com/a");
    const owner = staffCaller(business);
    for (const value of ["1.234", -1]) {
      await assert.rejects(
        changeProfile(deps, owner, { low_balance_threshold: value }),
        refusedAs("validation_failed", (r) => r.message.includes("low_balance_threshold")),
      );
    }
    const b = await changeProfile(deps, owner, { name: "Renamed", low_balance_threshold: 50 });
    assert.deepEqual([b.profile.name, b.profile.low_balance_threshold], ["Renamed", "50.00"]);
  }));

Deno.test("auditTrail: every change, oldest first, who made it, never a key; paged by seq", () =>
  withPlatform(async (deps) => {
    const { created, business } = await newBusiness(deps);
    const rotated = await rotateApiKey(deps, keyCaller(business));
    await changeProfile(deps, staffCaller(business), { name: "Renamed" });
    const all = await auditTrail(deps, created.id, 0);
    assert.deepEqual(all.map((e) => [e.seq, e.action, e.by]), [
      [1, "business_created", "operator"],
      [2, "api_key_rotated", "api_key"],
      [3, "profile_changed", `staff:${business.staff[0]!.id}`],
    ]);
    assert.deepEqual(all[1]!.detail, { hint: rotated.hint });
    assert.ok(!JSON.stringify(all).includes(rotated.api_key));
    assert.deepEqual((await auditTrail(deps, created.id, 2)).map((e) => e.seq), [3]);
  }));

Deno.test("rotateApiKey: a request authenticated with a key rotated meanwhile gets no new key (a leaked key's holder racing the owner's rotation)", () =>
  withPlatform(async (deps) => {
    const { business } = await newBusiness(deps);
    // Authenticated with the key before the owner rotated it; its rotation arrives after.
    const leaked = keyCaller(business);
    const owners = await rotateApiKey(deps, staffCaller(business));
    await assert.rejects(rotateApiKey(deps, leaked), refusedAs("key_already_rotated"));
    const now = await businessOf(deps.runtime, business.id);
    assert.equal(now.api_key.hint, owners.hint, "the owner's key stands");
  }));

Deno.test("rotateWebhookSecret: two rotations of the secret at once are one: the later is refused key_already_rotated and the secret before keeps its grace", () =>
  withPlatform(async (deps) => {
    const { business } = await newBusiness(deps);
    const before = business.webhook_secret.key_id;
    // Both authenticated before either rotation reached the account.
    const [first, second] = [keyCaller(business), staffCaller(business)];
    const won = await rotateWebhookSecret(deps, first);
    await assert.rejects(rotateWebhookSecret(deps, second), refusedAs("key_already_rotated"));
    const now = await businessOf(deps.runtime, business.id);
    assert.equal(now.webhook_secret.key_id, won.key_id, "the secret shown is the one that signs");
    assert.equal(now.webhook_secret_previous?.key_id, before, "the secret before keeps its grace");
    // One after the other both stand: the second replaces the secret the first made.
    const after = await rotateWebhookSecret(deps, staffCaller(now));
    assert.equal((await businessOf(deps.runtime, business.id)).webhook_secret.key_id, after.key_id);
  }));
