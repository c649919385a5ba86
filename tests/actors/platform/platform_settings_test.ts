/**
 * The operator's settings (actors/platform/platform_settings.ts; CONTRACT "PUT
 * /operator/settings"; courier 2.2 rule 2, 8: prices are held 30 minutes by default; Business API
 * 8: prep orders are offered 12 minutes before ready).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type PlatformSettings,
  platformSettingsActor,
} from "../../../actors/platform/platform_settings.ts";
import { ActorHarness, kinds } from "../../helpers/actor.ts";

/** The dispatch settings' defaults (CONTRACT: PUT /operator/settings). */
const DISPATCH = {
  dispatch_offer_seconds: 30,
  dispatch_window_minutes: 15,
  schedule_offer_lead_minutes: 15,
  position_fresh_seconds: 60,
};

Deno.test("platform settings: the defaults are the documents' (price hold 30, prep offer lead 12)", () => {
  const h = new ActorHarness(platformSettingsActor);
  const got = h.must({ kind: "get" });
  assert.deepEqual(got.events, []);
  assert.deepEqual(got.reply, {
    price_hold_minutes: 30,
    prep_offer_lead_minutes: 12,
    webhook_ports: [],
    ...DISPATCH,
  });
});

Deno.test("platform settings: a change records what changed and by whom, and keeps the rest", () => {
  const h = new ActorHarness(platformSettingsActor);
  const step = h.must({ kind: "change", changes: { price_hold_minutes: 45 }, by: "operator" });
  assert.deepEqual(step.events, [{
    kind: "platform_settings_changed",
    changes: { price_hold_minutes: 45 },
    by: "operator",
  }]);
  assert.deepEqual(step.reply, {
    price_hold_minutes: 45,
    prep_offer_lead_minutes: 12,
    webhook_ports: [],
    ...DISPATCH,
  });
  h.must({ kind: "change", changes: { prep_offer_lead_minutes: 0 }, by: "operator" });
  h.must({ kind: "change", changes: { webhook_ports: [8443] }, by: "operator" });
  assert.deepEqual(h.state, {
    price_hold_minutes: 45,
    prep_offer_lead_minutes: 0,
    webhook_ports: [8443],
    ...DISPATCH,
  });
  assert.deepEqual(platformSettingsActor.project!(h.state), h.state);
  assert.deepEqual(kinds(h.log), [
    "platform_settings_changed",
    "platform_settings_changed",
    "platform_settings_changed",
  ]);
});

Deno.test("platform settings: settings stored before webhook_ports existed load with none allowed", () => {
  const stored = { price_hold_minutes: 45, prep_offer_lead_minutes: 5 };
  assert.deepEqual(platformSettingsActor.load!(stored, 1), {
    ...stored,
    webhook_ports: [],
    ...DISPATCH,
  });
});

Deno.test("platform settings: the state is the defaults overlaid by every change in order", () => {
  const change = fc.record(
    {
      price_hold_minutes: fc.integer({ min: 1, max: 1_440 }),
      prep_offer_lead_minutes: fc.integer({ min: 0, max: 1_440 }),
      webhook_ports: fc.array(fc.integer({ min: 1024, max: 65_535 }), { maxLength: 3 }),
    },
    { requiredKeys: [] },
  );
  fc.assert(fc.property(fc.array(change, { maxLength: 20 }), (changes) => {
    const h = new ActorHarness(platformSettingsActor);
    let expected: PlatformSettings = platformSettingsActor.initial;
    for (const c of changes) {
      h.must({ kind: "change", changes: c, by: "operator" });
      expected = { ...expected, ...c };
    }
    assert.deepEqual(h.state, expected);
    assert.deepEqual(h.replayed(), expected);
  }));
});

Deno.test("platform settings: a timer changes nothing", () => {
  const h = new ActorHarness(platformSettingsActor);
  assert.deepEqual(h.fire("x").events, []);
  assert.equal(h.state, platformSettingsActor.initial);
});

Deno.test("platform settings: a dispatch window shorter than one offer is refused, whichever part changes, and nothing changes", () => {
  const h = new ActorHarness(platformSettingsActor);
  // One at a time each within bounds, together they would end a trip inside its first offer.
  h.must({ kind: "change", changes: { dispatch_window_minutes: 1 }, by: "operator" });
  const longer = h.refused(
    { kind: "change", changes: { dispatch_offer_seconds: 61 }, by: "operator" },
    "validation_failed",
    /dispatch_window_minutes.*at least one offer/,
  );
  assert.deepEqual(longer.details, {
    errors: [{
      path: "dispatch_window_minutes",
      message: "the dispatch window (1 min) must last at least one offer " +
        "(dispatch_offer_seconds 61)",
    }],
  });
  h.must({ kind: "change", changes: { dispatch_offer_seconds: 60 }, by: "operator" });
  // Both parts in one change are judged together.
  h.must({
    kind: "change",
    changes: { dispatch_window_minutes: 10, dispatch_offer_seconds: 600 },
    by: "operator",
  });
  h.refused(
    { kind: "change", changes: { dispatch_window_minutes: 9 }, by: "operator" },
    "validation_failed",
  );
  assert.equal(h.state.dispatch_window_minutes, 10);
  assert.equal(h.state.dispatch_offer_seconds, 600);
});
