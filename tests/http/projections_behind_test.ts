/**
 * Issue 36 item 1: the projections' lag is bounded. A projection of the test's own, whose writes
 * wait on a gate, stands for a query side that has stopped keeping up: past the bound, a request
 * that would write is refused 503 `projections_behind` with Retry-After and changes nothing, a
 * read is answered, and once the projection has caught up the same request goes through.
 */
import assert from "node:assert/strict";
import type { Feature, FeatureDeps } from "../../src/feature.ts";
import { FEATURES } from "../../src/features.ts";
import { BusProjection } from "../../src/db/bus_projection.ts";
import type { ActorChange } from "../../src/bus/bus.ts";
import { type TestEnv, withTestEnv } from "../helpers/test_env.ts";

/** A projection that takes every change and writes none while its gate is shut. */
class GatedProjection {
  #shut: PromiseWithResolvers<void> | null = null;
  #entered: PromiseWithResolvers<void> | null = null;
  projection: BusProjection<ActorChange> | null = null;

  start(deps: FeatureDeps): BusProjection<ActorChange> {
    this.projection = new BusProjection<ActorChange>({
      bus: deps.bus,
      db: deps.db,
      env: deps.busPrefix,
    }, {
      name: "read_tables",
      type: "*",
      limits: { itemsMax: 100 },
      take: (change) => change,
      write: async () => {
        this.#entered?.resolve();
        await this.#shut?.promise;
      },
      parked: (item) => item,
      unparked: (value) => value as ActorChange,
    });
    return this.projection;
  }

  /** Shuts the gate; resolves once a write is held at it. */
  shut(): Promise<void> {
    this.#shut = Promise.withResolvers();
    this.#entered = Promise.withResolvers();
    return this.#entered.promise;
  }

  open(): void {
    this.#shut?.resolve();
    this.#shut = null;
  }
}

function gatedFeature(gated: GatedProjection): Feature {
  return {
    name: "test_gated_projection",
    actors: [],
    routers: [],
    start: (deps) => ({ projections: { test_gated: gated.start(deps) } }),
  };
}

const business = (email: string) => ({
  name: "Tlokweng Parcels",
  plan: "business",
  currency: "BWP",
  country: "BW",
  owner_email: email,
});

Deno.test("a projection past its bound: writes answer 503 projections_behind and change nothing, reads go on, and writes resume once it catches up", async () => {
  const gated = new GatedProjection();
  await withTestEnv(async (t) => {
    try {
      await behindThenCaughtUp(t, gated);
    } finally {
      gated.open(); // never left shut: the environment's close waits for its writes
    }
  }, { features: [...FEATURES, gatedFeature(gated)], projectionBacklogMax: 0 });
});

async function behindThenCaughtUp(t: TestEnv, gated: GatedProjection): Promise<void> {
  const first = await t.createBusiness();
  await t.settle();
  const held = gated.shut();
  const second = await t.createBusiness();
  await held;
  assert.ok(gated.projection!.backlog().changes > 0, "the change is held, not written");

  const email = `refused.${crypto.randomUUID().slice(0, 8)}@example.com`;
  const refused = await t.call("POST", "/operator/businesses", {
    operator: true,
    body: business(email),
  });
  assert.equal(refused.status, 503);
  assert.equal(refused.body.code, "projections_behind");
  // The first projection past the bound is named (on Postgres the snapshots may be too).
  assert.match(refused.body.message, /changes? behind \(\w+\); nothing was done/);
  assert.equal(refused.headers.get("Retry-After"), "1");

  const read = await t.call("GET", `/operator/businesses/${second.id}`, {
    operator: true,
  });
  assert.equal(read.status, 200, "reads are answered while the query side is behind");

  gated.open();
  await t.settle();
  assert.equal(gated.projection!.backlog().changes, 0);
  // The refused request stored nothing: its owner's e-mail is free.
  const again = await t.call("POST", "/operator/businesses", {
    operator: true,
    body: business(email),
  });
  assert.equal(again.status, 201, JSON.stringify(again.body));
  assert.notEqual(first.id, second.id);
}
