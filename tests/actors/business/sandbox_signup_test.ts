import assert from "node:assert/strict";
import { sandboxSignupActor } from "../../../actors/business/sandbox_signup.ts";
import {
  SANDBOX_CODE,
  SANDBOX_SIGNUP_CODE_VALID_MS,
  SANDBOX_SIGNUP_TRIES,
} from "../../../src/business/rules/sandbox.ts";
import { ActorHarness } from "../../helpers/actor.ts";

const details = { first_names: "Ann", surname: "Lee", company: "Lee Couriers" };
const request = { kind: "request" as const, ...details };

Deno.test("sandbox sign-up: the code verifies once, making a business id kept for later", () => {
  const h = new ActorHarness(sandboxSignupActor, { now: 1_000 });
  h.refused({ kind: "verify", code: SANDBOX_CODE }, "no_signup_pending");
  h.must(request);
  const first = h.must({ kind: "verify", code: SANDBOX_CODE }).reply;
  assert.deepEqual(first, { outcome: "verified", business_id: "biz_1", ...details });
  // Spent by its verify: a second one (sent at the same time) finds nothing pending.
  h.refused({ kind: "verify", code: SANDBOX_CODE }, "no_signup_pending");
  h.must(request);
  const again = h.must({ kind: "verify", code: SANDBOX_CODE }).reply;
  assert.equal(again?.outcome === "verified" && again.business_id, "biz_1");
});

Deno.test("sandbox sign-up: 5 wrong codes spend it; a new sign-up starts 5 tries again", () => {
  const h = new ActorHarness(sandboxSignupActor);
  h.must(request);
  for (let left = SANDBOX_SIGNUP_TRIES - 1; left >= 0; left--) {
    assert.deepEqual(h.must({ kind: "verify", code: "000000" }).reply, {
      outcome: "code_refused",
      tries_left: left,
    });
  }
  h.refused({ kind: "verify", code: SANDBOX_CODE }, "no_signup_pending");
  h.must(request);
  assert.equal(h.state.pending?.tries_left, SANDBOX_SIGNUP_TRIES);
  assert.equal(h.must({ kind: "verify", code: SANDBOX_CODE }).reply?.outcome, "verified");
});

Deno.test("sandbox sign-up: the code expires after 15 minutes; signing up again renews it", () => {
  const h = new ActorHarness(sandboxSignupActor, { now: 0 });
  h.must(request);
  h.now = SANDBOX_SIGNUP_CODE_VALID_MS - 1;
  h.must({ kind: "verify", code: "999999" });
  h.now = SANDBOX_SIGNUP_CODE_VALID_MS;
  h.refused({ kind: "verify", code: SANDBOX_CODE }, "signup_code_expired");
  h.must(request);
  assert.equal(h.must({ kind: "verify", code: SANDBOX_CODE }).reply?.outcome, "verified");
});
