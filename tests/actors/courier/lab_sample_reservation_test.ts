/**
 * A profile sent under a cold-slot reservation (actors/courier/lab_sample/profile.ts; courier
 * 2.10: a run's cold slots): once the reservation lapsed, a profile that would make the sample
 * cold is refused and changes nothing; one not cold, or a sample cold already, is not.
 */
import assert from "node:assert/strict";
import { labSampleActor, type LabSampleCommand } from "../../../actors/courier/lab_sample/mod.ts";
import { ActorHarness, kinds } from "../../helpers/actor.ts";
import { profileCommand, profiled, T0 } from "./lab_sample_fixtures.ts";

/** The profile command sent under a reservation holding until `until`. */
function reserved(c: LabSampleCommand, until: number): LabSampleCommand {
  assert.equal(c.kind, "profile");
  return c.kind === "profile" ? { ...c, reserved_until: until } : c;
}

Deno.test("lab sample: a cold profile whose slots' reservation lapsed is refused, changing nothing", () => {
  const h = new ActorHarness(labSampleActor, { now: T0 });
  const lapsed = reserved(profileCommand(), T0);
  h.refused(lapsed, "cold_reservation_lapsed");
  h.refused({ kind: "get" }, "not_found");
  // Before it lapses, the profile is set.
  const inTime = reserved(profileCommand(), T0 + 1);
  assert.deepEqual(kinds(h.must(inTime).events), ["profiled", "charge_due"]);
});

Deno.test("lab sample: a lapsed reservation refuses nothing a cold sample or a warm profile needs", () => {
  const warm = new ActorHarness(labSampleActor, { now: T0 });
  const noRange = profileCommand({ min_temp_c: null, max_temp_c: null });
  assert.deepEqual(kinds(warm.must(reserved(noRange, T0)).events), ["profiled"]);
  // A sample cold already keeps its slots: the sweep never gives them back.
  const cold = profiled();
  const replaced = reserved(profileCommand({ max_temp_c: 6 }), T0);
  assert.deepEqual(kinds(cold.must(replaced).events), ["profiled"]);
});
