/**
 * A courier's saved operations-board filters (actors/courier/operations_views.ts; courier 4.4
 * "GET, POST /business/courier/operations/views", "DELETE .../views/{name}"): saved by name,
 * replaced by the same name, at most VIEWS_MAX.
 */
import assert from "node:assert/strict";
import {
  operationsViewsActor,
  type OperationsViewsCommand,
  type OperationsViewsEvent,
  type OperationsViewsState,
  VIEWS_MAX,
} from "../../../actors/courier/operations_views.ts";
import { ActorHarness } from "../../helpers/actor.ts";

const T0 = Date.parse("2026-11-02T08:00:00Z");

type Views = ActorHarness<
  OperationsViewsState,
  OperationsViewsCommand,
  OperationsViewsEvent,
  OperationsViewsState
>;

function save(h: Views, name: string, filters: Record<string, string> = { health: "late" }) {
  return h.must({ kind: "save", view: { name, filters, by: "staff:usr_1" } });
}

Deno.test("operations views: a view is saved with when, and listed by name", () => {
  const h = new ActorHarness(operationsViewsActor, { now: T0 });
  const step = save(h, "late");
  assert.deepEqual(step.events, [{
    kind: "view_saved",
    view: { name: "late", filters: { health: "late" }, by: "staff:usr_1", saved_at: T0 },
  }]);
  save(h, "customs", { health: "waiting_customs" });
  save(h, "alerts", { open_alerts: "1" });
  assert.deepEqual(h.must({ kind: "get" }).reply?.views.map((v) => v.name), [
    "alerts",
    "customs",
    "late",
  ]);
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("operations views: saving a name again replaces that view", () => {
  const h = new ActorHarness(operationsViewsActor, { now: T0 });
  save(h, "late");
  h.now = T0 + 1_000;
  save(h, "late", { health: "late", client_id: "cli_1" });
  assert.deepEqual(h.state.views, [{
    name: "late",
    filters: { health: "late", client_id: "cli_1" },
    by: "staff:usr_1",
    saved_at: T0 + 1_000,
  }]);
});

Deno.test("operations views: at most VIEWS_MAX are kept; a full set still takes a replacement", () => {
  const h = new ActorHarness(operationsViewsActor, { now: T0 });
  for (let i = 0; i < VIEWS_MAX; i++) save(h, `view ${String(i).padStart(2, "0")}`);
  h.refused(
    { kind: "save", view: { name: "one more", filters: {}, by: "x" } },
    "views_full",
    `a courier keeps at most ${VIEWS_MAX} saved views`,
  );
  save(h, "view 00", { q: "WB1" });
  assert.equal(h.state.views.length, VIEWS_MAX);
  h.must({ kind: "delete", name: "view 01" });
  save(h, "one more");
  assert.equal(h.state.views.length, VIEWS_MAX);
});

Deno.test("operations views: delete removes a named view; an unknown name is not_found", () => {
  const h = new ActorHarness(operationsViewsActor, { now: T0 });
  save(h, "late");
  const step = h.must({ kind: "delete", name: "late" });
  assert.deepEqual(step.events, [{ kind: "view_deleted", name: "late" }]);
  assert.deepEqual(h.state.views, []);
  h.refused({ kind: "delete", name: "late" }, "not_found", "no saved view named late");
  assert.deepEqual(h.fire("x").events, []);
});
