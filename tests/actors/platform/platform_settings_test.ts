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
