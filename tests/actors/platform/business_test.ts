/**
 * The business account (actors/platform/business/mod.ts; Business API 4.3, 5, 8; CONTRACT operator
 * API): created with its owner and both features off; portal people bounded by the plan, the
 * owner kept; every change an event naming who made it. (Its keys are in business_keys_test.ts,
 * the webhook secret's logging in webhook_secret_log_test.ts.)
 */
import assert from "node:assert/strict";
import {
  asBusiness,
  auditDetail,
  businessActor,
  type BusinessCommand,
} from "../../../actors/platform/business/mod.ts";
import { PLAN_EMPLOYEES_MAX } from "../../../src/limits.ts";
import { ActorHarness, kinds } from "../../helpers/actor.ts";
import {
  authenticated,
  create,
  created,
  key,
  OWNER,
  secret,
  staffMember,
  T0,
} from "./business_fixtures.ts";

Deno.test("business actor: create opens the account with its owner, both features off and default settings", () => {
  const h = new ActorHarness(businessActor, { now: T0 });
  const step = h.must(create());
  assert.deepEqual(kinds(step.events), ["business_created"]);
  const b = asBusiness(step.reply);
  assert.equal(b.created_at, T0);
  assert.deepEqual(b.profile, {
    name: "Kalahari Couriers",
    billing_contact: null,
    webhook_url: null,
    low_balance_threshold: null,
  });
  // CONTRACT: a new business has the courier platform and shopping fulfilment switched off.
  assert.equal(b.settings.courier_platform_enabled, false);
  assert.equal(b.settings.shopping_fulfilment_enabled, false);
  assert.deepEqual(b.settings.api_key_scopes, []);
  assert.equal(b.settings.vehicle_upgrade_policy, "upgrade");
  assert.deepEqual([b.settings.rate_limit_per_minute, b.settings.rate_limit_per_day], [null, null]);
  assert.deepEqual(b.staff, [{ ...OWNER, session_epoch: 0, created_at: T0 }]);
  assert.deepEqual([b.partner_keys, b.legacy_api_key], [[], null]);
  // Its trips' references are keyed (bookingReference); an account stored before has no flag.
  assert.equal(b.references_keyed, true);
  h.refused(create(), "already_exists", "business exists: biz_1");
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("business actor: every command but create is not_found before the account exists", () => {
  const h = new ActorHarness(businessActor, { now: T0 });
  const commands: BusinessCommand[] = [
    { kind: "get" },
    { kind: "authenticate_key", hash: key("a").hash },
    { kind: "staff_for_login", email: OWNER.email },
    { kind: "change_settings", changes: {}, by: "operator" },
    { kind: "revoke_partner_key", id: "pk_1", by: "operator" },
  ];
  for (const c of commands) h.refused(c, "not_found", "business not found");
  assert.throws(() =>
    businessActor.evolve(null, { kind: "api_key_rotated", key: key("b"), by: "x" })
  );
});

Deno.test("business actor: operator settings apply as given and are recorded with who changed them", () => {
  const h = created();
  const changes = {
    courier_platform_enabled: true,
    api_key_scopes: ["billing:administer" as const],
    vehicle_upgrade_policy: "refuse" as const,
  };
  const step = h.must({ kind: "change_settings", changes, by: "operator" });
  assert.deepEqual(step.events, [{ kind: "settings_changed", changes, by: "operator" }]);
  const b = asBusiness(step.reply);
  assert.equal(b.settings.courier_platform_enabled, true);
  assert.equal(b.settings.shopping_fulfilment_enabled, false, "the rest is kept");
  assert.equal(b.settings.vehicle_upgrade_policy, "refuse");
  assert.deepEqual(auditDetail(step.events[0]!), { by: "operator", detail: { changes } });
});

Deno.test("business actor: only an Enterprise plan business takes rate limits of its own", () => {
  for (const plan of ["starter", "business"] as const) {
    const h = created(plan);
    const refused = h.refused(
      {
        kind: "change_settings",
        changes: { rate_limit_per_minute: 500, rate_limit_per_day: 50_000 },
        by: "operator",
      },
      "validation_failed",
      `only an Enterprise plan business takes limits of its own; the ${plan} plan's apply: ` +
        "rate_limit_per_minute, rate_limit_per_day",
    );
    assert.deepEqual(
      (refused.details?.errors as { path: string }[]).map((e) => e.path),
      ["rate_limit_per_minute", "rate_limit_per_day"],
    );
    // Null is the plan's own: accepted.
    h.must({ kind: "change_settings", changes: { rate_limit_per_day: null }, by: "operator" });
  }
  const h = created("enterprise");
  h.must({ kind: "change_settings", changes: { rate_limit_per_minute: 9_000 }, by: "operator" });
  assert.equal(asBusiness(h.must({ kind: "get" }).reply).settings.rate_limit_per_minute, 9_000);
  const access = authenticated(h, key("a").hash).access;
  assert.deepEqual(access, {
    id: "biz_1",
    plan: "enterprise",
    courier_platform_enabled: false,
    shopping_fulfilment_enabled: false,
    rate_limit_per_minute: 9_000,
    rate_limit_per_day: null,
  });
});

Deno.test("business actor: a profile change records only what differs; the same again records nothing", () => {
  const h = created();
  const changes = { webhook_url: "https://shop.example/hook", billing_contact: null };
  const step = h.must({ kind: "change_profile", changes, by: "api_key" });
  assert.deepEqual(step.events, [{
    kind: "profile_changed",
    changes: { webhook_url: "https://shop.example/hook" },
    by: "api_key",
  }]);
  assert.deepEqual(h.must({ kind: "change_profile", changes, by: "api_key" }).events, []);
  const threshold = h.must({
    kind: "change_profile",
    changes: { low_balance_threshold: "50.00" },
    by: "staff:usr_owner",
  });
  // The audit trail shows the threshold as money (a number), kept as its decimal text.
  assert.deepEqual(auditDetail(threshold.events[0]!).detail, {
    changes: { low_balance_threshold: 50 },
  });
  assert.equal(asBusiness(threshold.reply).profile.low_balance_threshold, "50.00");
});

Deno.test("business actor: portal people are bounded by the plan and unique by e-mail", () => {
  const max = PLAN_EMPLOYEES_MAX.starter;
  assert.equal(max, 5); // spec: business 8: Starter up to 5
  const h = created("starter");
  for (let i = 1; i < max; i++) {
    const step = h.must({
      kind: "add_staff",
      staff: staffMember(`usr_${i}`),
      max,
      by: "staff:usr_owner",
    });
    assert.deepEqual(auditDetail(step.events[0]!).detail, {
      id: `usr_${i}`,
      email: `usr_${i}@example.com`,
      role: "coordinator",
    });
  }
  h.refused(
    { kind: "add_staff", staff: staffMember("usr_9"), max, by: "staff:usr_owner" },
    "employee_limit_reached",
    "the starter plan allows 5 employee accounts: 5 exist",
  );
  h.refused(
    { kind: "add_staff", staff: { ...staffMember("usr_9"), email: OWNER.email }, max: 50, by: "x" },
    "email_taken",
    `a portal user already has this e-mail: ${OWNER.email}`,
  );
  const b = asBusiness(h.must({ kind: "get" }).reply);
  assert.equal(b.staff.length, max);
  assert.ok(b.staff.every((s) => s.session_epoch === 0));
  assert.deepEqual(businessActor.uniqueIndexes, ["staff_email"]);
  assert.deepEqual(
    h.indexes().filter((i) => i.index === "staff_email").map((i) => i.key),
    b.staff.map((s) => s.email),
  );
});

Deno.test("business actor: sign-in finds a person by e-mail; a password change signs out older sessions", () => {
  const h = created();
  h.must({
    kind: "add_staff",
    staff: staffMember("usr_2", "admin"),
    max: 50,
    by: "staff:usr_owner",
  });
  assert.deepEqual(h.must({ kind: "staff_for_login", email: "usr_2@example.com" }).reply, {
    staff_id: "usr_2",
    password_hash: "hash-usr_2",
    session_epoch: 0,
  });
  h.refused({ kind: "staff_for_login", email: "nobody@example.com" }, "unauthenticated");
  const signedIn = h.must({ kind: "authenticate_staff", staff_id: "usr_2", session_epoch: 0 });
  assert.deepEqual((signedIn.reply as { principal: unknown }).principal, {
    as: "staff",
    staff_id: "usr_2",
    role: "admin",
    session_epoch: 0,
    api_key_hash: key("a").hash,
    webhook_key_id: "whk_1",
  });
  const changed = h.must({
    kind: "change_password",
    staff_id: "usr_2",
    password_hash: "hash-new",
    session_epoch: 0,
    by: "staff:usr_2",
  });
  assert.deepEqual(auditDetail(changed.events[0]!).detail, { staff_id: "usr_2" });
  assert.ok(!JSON.stringify(auditDetail(changed.events[0]!)).includes("hash-new"));
  h.refused({ kind: "authenticate_staff", staff_id: "usr_2", session_epoch: 0 }, "unauthenticated");
  h.must({ kind: "authenticate_staff", staff_id: "usr_2", session_epoch: 1 });
  // Checked under the epoch before that change (another session's, at the same time): refused,
  // the password just set kept.
  h.refused(
    {
      kind: "change_password",
      staff_id: "usr_2",
      password_hash: "hash-other",
      session_epoch: 0,
      by: "staff:usr_2",
    },
    "unauthenticated",
  );
  assert.equal(h.state!.staff.find((s) => s.id === "usr_2")!.password_hash, "hash-new");
  h.refused(
    { kind: "change_password", staff_id: "usr_9", password_hash: "x", session_epoch: 0, by: "x" },
    "unauthenticated",
    "the session was signed out: the person was removed",
  );
});

Deno.test("business actor: a person's name and role change; the owner's role never does", () => {
  const h = created();
  h.must({ kind: "add_staff", staff: staffMember("usr_2"), max: 50, by: "staff:usr_owner" });
  const step = h.must({
    kind: "change_staff",
    staff_id: "usr_2",
    changes: { name: "Mpho", role: "coordinator" },
    by: "staff:usr_owner",
  });
  assert.deepEqual(step.events, [{
    kind: "staff_changed",
    staff_id: "usr_2",
    changes: { name: "Mpho" },
    by: "staff:usr_owner",
  }]);
  assert.deepEqual(
    h.must({ kind: "change_staff", staff_id: "usr_2", changes: { name: "Mpho" }, by: "x" }).events,
    [],
    "the same again records nothing",
  );
  h.must({ kind: "change_staff", staff_id: "usr_2", changes: { role: "admin" }, by: "x" });
  h.refused(
    { kind: "change_staff", staff_id: OWNER.id, changes: { role: "admin" }, by: "x" },
    "owner_protected",
    "the business must keep its owner: the owner's role cannot change",
  );
  h.must({
    kind: "change_staff",
    staff_id: OWNER.id,
    changes: { name: "Neo", role: "owner" },
    by: "x",
  });
  h.refused(
    { kind: "change_staff", staff_id: "usr_9", changes: {}, by: "x" },
    "not_found",
    "portal user not found: usr_9",
  );
  const b = asBusiness(h.must({ kind: "get" }).reply);
  assert.deepEqual(b.staff.map((s) => [s.name, s.role]), [["Neo", "owner"], ["Mpho", "admin"]]);
});

Deno.test("business actor: removing a person signs them out and frees the e-mail; the owner stays", () => {
  const h = created();
  h.must({ kind: "add_staff", staff: staffMember("usr_2"), max: 50, by: "staff:usr_owner" });
  const removed = h.must({ kind: "remove_staff", staff_id: "usr_2", by: "staff:usr_owner" });
  assert.deepEqual(removed.events, [{
    kind: "staff_removed",
    staff_id: "usr_2",
    email: "usr_2@example.com",
    by: "staff:usr_owner",
  }]);
  h.refused({ kind: "authenticate_staff", staff_id: "usr_2", session_epoch: 0 }, "unauthenticated");
  assert.ok(!h.indexes().some((i) => i.key === "usr_2@example.com"));
  h.must({ kind: "add_staff", staff: staffMember("usr_2"), max: 50, by: "staff:usr_owner" });
  h.refused(
    { kind: "remove_staff", staff_id: OWNER.id, by: "x" },
    "owner_protected",
    "the business must keep its owner: the owner cannot be removed",
  );
  h.refused({ kind: "remove_staff", staff_id: "usr_9", by: "x" }, "not_found");
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("business actor: projections and the audit trail carry no hash and no sealed secret", () => {
  const h = created();
  h.must({ kind: "import_legacy_key", key: key("l"), by: "operator" });
  h.must({
    kind: "issue_partner_key",
    key: { ...key("p"), id: "pk_1", partner: "Acme", scopes: ["rewards"] },
    by: "operator",
  });
  h.must({
    kind: "rotate_webhook_secret",
    secret: secret("whk_2"),
    replaces: "whk_1",
    by: "api_key",
  });
  h.must({ kind: "add_staff", staff: staffMember("usr_2"), max: 50, by: "operator" });
  const view = JSON.stringify(businessActor.project!(h.state));
  const audit = JSON.stringify(h.log.map(auditDetail));
  for (const text of [view, audit]) {
    for (const c of ["a", "l", "p"]) assert.ok(!text.includes(key(c).hash), c);
    assert.ok(!text.includes("sealed-") && !text.includes("pbkdf2") && !text.includes("hash-"));
  }
  assert.deepEqual(JSON.parse(view).created_at, "2026-11-02T08:00:00.000Z");
  assert.equal(businessActor.project!(null), null);
  assert.throws(() => asBusiness(undefined));
  assert.deepEqual(h.fire("x").events, []);
});

Deno.test("business actor: a change sent by a person removed or made coordinator meanwhile is refused; their own password aside", () => {
  const h = created();
  h.must({
    kind: "add_staff",
    staff: staffMember("usr_2", "admin"),
    max: 50,
    by: "staff:usr_owner",
  });
  h.must({
    kind: "add_staff",
    staff: staffMember("usr_3", "admin"),
    max: 50,
    by: "staff:usr_owner",
  });
  h.must({ kind: "remove_staff", staff_id: "usr_2", by: "staff:usr_owner" });
  h.must({ kind: "change_staff", staff_id: "usr_3", changes: { role: "coordinator" }, by: "x" });
  // spec: business 5.6: people, credentials and the company record are for an admin; a removed
  // person's sessions, and a new role, hold at once: a request they sent before is refused.
  const sent = (by: string): BusinessCommand[] => [
    { kind: "add_staff", staff: staffMember("usr_9"), max: 50, by },
    { kind: "change_staff", staff_id: OWNER.id, changes: { name: "Mine" }, by },
    { kind: "remove_staff", staff_id: "usr_3", by },
    { kind: "rotate_api_key", key: key("n"), replaces: key("a").hash, by },
    { kind: "rotate_webhook_secret", secret: secret("whk_9"), replaces: "whk_1", by },
    { kind: "change_profile", changes: { webhook_url: "https://evil.example.com/" }, by },
  ];
  const before = h.state;
  for (const command of sent("staff:usr_2")) h.refused(command, "unauthenticated");
  for (const command of sent("staff:usr_3")) h.refused(command, "portal_admin_only");
  assert.deepEqual(h.state, before, "nothing changed");
  // A coordinator still changes their own password; the owner and the key change the rest.
  h.must({
    kind: "change_password",
    staff_id: "usr_3",
    password_hash: "hash-new",
    session_epoch: 0,
    by: "staff:usr_3",
  });
  for (const command of sent("staff:usr_owner")) h.must(command);
  h.must({ kind: "rotate_api_key", key: key("m"), replaces: key("n").hash, by: "api_key" });
});
