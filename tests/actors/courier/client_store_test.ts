/**
 * A client's store in the retail packet programme (actors/courier/client_store.ts; courier 4.6
 * `GET /client/stores`): registered once per client and code, found again by the same code.
 */
import assert from "node:assert/strict";
import {
  asStore,
  type ClientStore,
  clientStoreActor,
  STORE_CODE_PATTERN,
  storeIdOf,
} from "../../../actors/courier/client_store.ts";
import { ActorHarness } from "../../helpers/actor.ts";

const T0 = Date.parse("2026-11-02T08:00:00Z");
const STORE: Omit<ClientStore, "created_at" | "created_by"> = {
  id: storeIdOf("biz_1", "cli_1", "GAB-01"),
  courier_id: "biz_1",
  client_id: "cli_1",
  code: "GAB-01",
  name: "Game City",
  address: "Game City Mall, Gaborone",
};

Deno.test("client store: register records the store with who and when, and says it created it", () => {
  const h = new ActorHarness(clientStoreActor, { now: T0 });
  const step = h.must({ kind: "register", store: STORE, by: "staff:usr_1" });
  const stored = { ...STORE, created_at: T0, created_by: "staff:usr_1" };
  assert.deepEqual(step.events, [{ kind: "store_registered", store: stored }]);
  assert.deepEqual(step.reply, { store: stored, created: true });
  assert.deepEqual(asStore(step.reply!), stored);
  assert.deepEqual(h.must({ kind: "get" }).reply, stored);
  assert.deepEqual(asStore(h.must({ kind: "get" }).reply!), stored);
  assert.deepEqual(clientStoreActor.project!(h.state), stored);
  assert.equal(clientStoreActor.project!(null), undefined);
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("client store: the same store sent again is found, not created; another under its code is refused", () => {
  const h = new ActorHarness(clientStoreActor, { now: T0 });
  h.must({ kind: "register", store: STORE, by: "staff:usr_1" });
  h.now = T0 + 1_000;
  const again = h.must({ kind: "register", store: STORE, by: "staff:usr_2" });
  assert.deepEqual(again.events, []);
  assert.deepEqual(again.reply, {
    store: { ...STORE, created_at: T0, created_by: "staff:usr_1" },
    created: false,
  });
  for (const other of [{ name: "Riverwalk" }, { address: "Elsewhere" }]) {
    h.refused(
      { kind: "register", store: { ...STORE, ...other }, by: "x" },
      "already_exists",
      "the client already has a store with this code: GAB-01",
    );
  }
});

Deno.test("client store: the code is 1 to 40 letters, digits, dot, dash or underscore", () => {
  for (const code of ["", "has space", "x".repeat(41), "ünï", "a/b"]) {
    new ActorHarness(clientStoreActor).refused(
      { kind: "register", store: { ...STORE, code }, by: "x" },
      "validation_failed",
      `code: 1 to 40 letters, digits, dot, dash: ${code}`,
    );
  }
  for (const code of ["A", "x".repeat(40), "a.b-c_d"]) {
    assert.ok(STORE_CODE_PATTERN.test(code));
    new ActorHarness(clientStoreActor).must({
      kind: "register",
      store: { ...STORE, code },
      by: "x",
    });
  }
});

Deno.test("client store: a store needs a name and an address", () => {
  for (const blank of [{ name: "  " }, { address: "" }]) {
    new ActorHarness(clientStoreActor).refused(
      { kind: "register", store: { ...STORE, ...blank }, by: "x" },
      "validation_failed",
      "a store needs a name and an address",
    );
  }
});

Deno.test("client store: get before registration is not_found; the id names courier, client and code", () => {
  new ActorHarness(clientStoreActor).refused({ kind: "get" }, "not_found", "store not found");
  assert.equal(storeIdOf("biz_1", "cli_1", "GAB-01"), STORE.id);
  assert.match(STORE.id, /^sto_[0-9a-f]{24}$/);
  assert.notEqual(storeIdOf("biz_1", "cli_2", "GAB-01"), STORE.id, "another client's code");
  assert.notEqual(storeIdOf("biz_2", "cli_1", "GAB-01"), STORE.id, "another courier's");
});
