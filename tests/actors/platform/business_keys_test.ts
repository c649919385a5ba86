/**
 * The business account's keys (actors/platform/business/keys.ts; Business API 4.3, 5.2, 5.5):
 * held as hashes and found by them; a rotation replaces the key it names, once; a legacy key ends
 * with it; the webhook secret's previous one kept for its grace period; partner keys revocable
 * alone.
 */
import assert from "node:assert/strict";
import { asBusiness, auditDetail } from "../../../actors/platform/business/mod.ts";
import { WEBHOOK_SECRET_GRACE_MS } from "../../../src/limits.ts";
import { kinds } from "../../helpers/actor.ts";
import { authenticated, created, key, secret, T0 } from "./business_fixtures.ts";

Deno.test("business actor: rotating the API key invalidates the old one and a legacy key at once", () => {
  const h = created();
  h.must({ kind: "import_legacy_key", key: key("l"), by: "operator" });
  const legacy = authenticated(h, key("l").hash);
  assert.deepEqual(legacy.principal, {
    as: "business_key",
    legacy: true,
    scopes: [],
    webhook_key_id: "whk_1",
  });
  assert.deepEqual(authenticated(h, key("a").hash).principal, {
    as: "business_key",
    legacy: false,
    scopes: [],
    webhook_key_id: "whk_1",
  });
  // Rotated through the legacy key: it is a key the business holds.
  const rotated = h.must({
    kind: "rotate_api_key",
    key: key("b"),
    replaces: key("l").hash,
    by: "api_key",
  });
  assert.deepEqual(kinds(rotated.events), ["api_key_rotated"]);
  assert.deepEqual(auditDetail(rotated.events[0]!), { by: "api_key", detail: { hint: "bbbb" } });
  for (const old of [key("a").hash, key("l").hash]) {
    h.refused(
      { kind: "authenticate_key", hash: old },
      "unauthenticated",
      "unknown or revoked credential",
    );
  }
  authenticated(h, key("b").hash);
  assert.deepEqual(h.indexes().filter((i) => i.index === "credential"), [
    { index: "credential", key: key("b").hash },
  ]);
});

Deno.test("business actor: a rotation of a key another rotation replaced is refused key_already_rotated and changes nothing", () => {
  const h = created();
  h.must({ kind: "rotate_api_key", key: key("b"), replaces: key("a").hash, by: "api_key" });
  const before = h.state;
  h.refused(
    { kind: "rotate_api_key", key: key("c"), replaces: key("a").hash, by: "api_key" },
    "key_already_rotated",
  );
  assert.deepEqual(h.state, before);
  authenticated(h, key("b").hash);
});

Deno.test("business actor: the business key carries the scopes the operator stored", () => {
  const h = created();
  h.must({
    kind: "change_settings",
    changes: { api_key_scopes: ["customs:approve", "runs:override"] },
    by: "operator",
  });
  assert.deepEqual(authenticated(h, key("a").hash).principal, {
    as: "business_key",
    legacy: false,
    scopes: ["customs:approve", "runs:override"],
    webhook_key_id: "whk_1",
  });
});

Deno.test("business actor: a rotated webhook secret keeps the old one for the grace period", () => {
  const h = created();
  const rotatedAt = T0 + 5_000;
  const step = h.must({
    kind: "rotate_webhook_secret",
    secret: secret("whk_2", rotatedAt),
    replaces: "whk_1",
    by: "api_key",
  });
  assert.deepEqual(auditDetail(step.events[0]!), { by: "api_key", detail: { key_id: "whk_2" } });
  const b = asBusiness(step.reply);
  assert.deepEqual(b.webhook_secret, secret("whk_2", rotatedAt));
  assert.deepEqual(b.webhook_secret_previous, {
    ...secret("whk_1"),
    expires_at: rotatedAt + WEBHOOK_SECRET_GRACE_MS,
  });
  // spec: business 5.6: a rotation naming the secret replaced meanwhile is refused, the grace
  // of the secret before kept.
  const again = { secret: secret("whk_3", rotatedAt + 1), replaces: "whk_1", by: "api_key" };
  h.refused({ kind: "rotate_webhook_secret", ...again }, "key_already_rotated");
  assert.equal(h.state!.webhook_secret.key_id, "whk_2");
  assert.equal(h.state!.webhook_secret_previous?.key_id, "whk_1");
});

Deno.test("business actor: a partner key authenticates with its own scopes until revoked, alone", () => {
  const h = created();
  const issued = h.must({
    kind: "issue_partner_key",
    key: { ...key("p"), id: "pk_1", partner: "Acme POS", scopes: ["deliveries"] },
    by: "operator",
  });
  assert.deepEqual(auditDetail(issued.events[0]!).detail, {
    id: "pk_1",
    partner: "Acme POS",
    scopes: ["deliveries"],
  });
  assert.deepEqual(authenticated(h, key("p").hash).principal, {
    as: "partner",
    partner_key_id: "pk_1",
    partner: "Acme POS",
    scopes: ["deliveries"],
  });
  h.now = T0 + 60_000;
  const revoked = h.must({ kind: "revoke_partner_key", id: "pk_1", by: "operator" });
  assert.deepEqual(revoked.events, [{
    kind: "partner_key_revoked",
    id: "pk_1",
    at: T0 + 60_000,
    by: "operator",
  }]);
  h.refused({ kind: "authenticate_key", hash: key("p").hash }, "unauthenticated");
  authenticated(h, key("a").hash); // spec: business 5.5: revocable without affecting the business
  assert.deepEqual(h.must({ kind: "revoke_partner_key", id: "pk_1", by: "operator" }).events, []);
  h.refused(
    { kind: "revoke_partner_key", id: "pk_9", by: "operator" },
    "not_found",
    "partner key not found: pk_9",
  );
  // A revoked key is no longer found as a credential, but still by its id.
  assert.ok(!h.indexes().some((i) => i.key === key("p").hash));
  assert.ok(h.indexes().some((i) => i.index === "partner_key" && i.key === "pk_1"));
});
