/**
 * The driver actor (actors/platform/driver.ts; CONTRACT operator API "POST
 * /operator/businesses/{id}/drivers"): created once, found by the hash of its bearer token, and
 * never shows that token to projections.
 */
import assert from "node:assert/strict";
import { type Driver, driverActor } from "../../../actors/platform/driver.ts";
import { ActorHarness, kinds } from "../../helpers/actor.ts";

const DRIVER: Driver = {
  id: "drv_1",
  business_id: "biz_1",
  name: "Kagiso Molefe",
  phone: "+26771234567",
  vehicle_type_id: 3,
  token: { hash: "a".repeat(64), hint: "wxyz", created_at: 1_000 },
};

function created() {
  const h = new ActorHarness(driverActor, { now: 1_000 });
  h.must({ kind: "create", driver: DRIVER });
  return h;
}

Deno.test("driver actor: create records the driver once and answers it", () => {
  const h = new ActorHarness(driverActor);
  const step = h.must({ kind: "create", driver: DRIVER });
  assert.deepEqual(kinds(step.events), ["driver_created"]);
  assert.deepEqual(step.reply, DRIVER);
  assert.deepEqual(h.state, DRIVER);
  assert.deepEqual(h.replayed(), DRIVER);
  h.refused(
    { kind: "create", driver: { ...DRIVER, name: "Someone else" } },
    "already_exists",
    "driver exists: drv_1",
  );
});

Deno.test("driver actor: authenticate accepts only the token's hash, and changes nothing", () => {
  const h = created();
  const ok = h.must({ kind: "authenticate", hash: DRIVER.token.hash });
  assert.deepEqual(ok.events, []);
  assert.deepEqual(ok.reply, DRIVER);
  h.refused(
    { kind: "authenticate", hash: "b".repeat(64) },
    "unauthenticated",
    "unknown driver token",
  );
  h.refused({ kind: "authenticate", hash: "" }, "unauthenticated");
  // Before the driver exists every token is unknown: the same answer, nothing told.
  new ActorHarness(driverActor).refused(
    { kind: "authenticate", hash: DRIVER.token.hash },
    "unauthenticated",
    "unknown driver token",
  );
});

Deno.test("driver actor: get answers the driver, or not_found before it exists", () => {
  assert.deepEqual(created().must({ kind: "get" }).reply, DRIVER);
  new ActorHarness(driverActor).refused({ kind: "get" }, "not_found", "driver not found");
});

Deno.test("driver actor: a timer does nothing", () => {
  const h = created();
  assert.deepEqual(h.fire("anything").events, []);
  assert.deepEqual(h.state, DRIVER);
});

Deno.test("driver actor: found under its token hash; the projection never carries the token", () => {
  const h = created();
  assert.deepEqual(h.indexes(), [{ index: "credential", key: DRIVER.token.hash }]);
  assert.deepEqual(driverActor.indexes!(null), []);
  const projected = driverActor.project!(h.state) as Record<string, unknown>;
  assert.equal(projected.token, undefined);
  assert.ok(!JSON.stringify(projected).includes(DRIVER.token.hash));
  assert.equal(projected.name, DRIVER.name);
  assert.equal(driverActor.project!(null), null);
});

Deno.test("driver actor: rotate_token replaces the token: only the new hash authenticates and indexes it", () => {
  const h = created();
  const token = { hash: "c".repeat(64), hint: "abcd", created_at: 2_000 };
  const replaces = DRIVER.token.hash;
  const step = h.must({ kind: "rotate_token", token, replaces });
  assert.deepEqual(step.events, [{ kind: "token_rotated", token }]);
  assert.deepEqual(h.state, { ...DRIVER, token });
  assert.deepEqual(h.replayed(), { ...DRIVER, token });
  h.refused({ kind: "authenticate", hash: DRIVER.token.hash }, "unauthenticated");
  assert.deepEqual(h.must({ kind: "authenticate", hash: token.hash }).reply, { ...DRIVER, token });
  assert.deepEqual(h.indexes(), [{ index: "credential", key: token.hash }]);
  // No driver (or another business's, which the runtime asks as if missing): not found.
  new ActorHarness(driverActor).refused(
    { kind: "rotate_token", token, replaces },
    "not_found",
    "driver not found",
  );
  // Replacing the token replaced meanwhile (another replacement won): refused, nothing changes.
  const other = { hash: "d".repeat(64), hint: "efgh", created_at: 3_000 };
  h.refused({ kind: "rotate_token", token: other, replaces }, "key_already_rotated");
  assert.deepEqual(h.state, { ...DRIVER, token });
});
