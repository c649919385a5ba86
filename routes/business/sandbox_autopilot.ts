/**
 * Business API 4.4: the sandbox autopilot, PUT and GET /business/sandbox/autopilot: the scenario
 * each trip booked afterwards runs on durable timers, the trips it moves and those it gave up on.
 */
import {
  autopilotOf,
  type AutopilotView,
  setAutopilot,
} from "../../src/business/flows/sandbox_autopilot.ts";
import {
  AUTOPILOT_SCENARIOS,
  AUTOPILOT_TRIES_MAX,
  SANDBOX_STEPS,
  SCENARIO_STEPS,
  STEP_SECONDS_DEFAULT,
  STEP_SECONDS_MAX,
  STEP_SECONDS_MIN,
} from "../../src/business/rules/sandbox_steps.ts";
import { iso } from "../../src/domain/iso.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { define, z } from "../../src/http/route.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import type { AutopilotTrip } from "../../actors/business/sandbox_autopilot.ts";

const tag = "Sandbox";
const NOT_FOUND = "called on live: the sandbox endpoints are on the sandbox base";

const AutopilotBody = z.object({
  scenario: z.enum(AUTOPILOT_SCENARIOS).openapi({
    description: "delivered, failed_delivery, id_refused (age-restricted orders), " +
      "cancel_by_driver; off stops it for trips booked afterwards",
  }),
  step_seconds: z.number().int().min(STEP_SECONDS_MIN).max(STEP_SECONDS_MAX)
    .default(STEP_SECONDS_DEFAULT)
    .openapi({ description: "Seconds between two steps, 1 to 60 (default 5)" }),
});

const AutopilotTripAnswer = z.object({
  reference: z.string(),
  scenario: z.string(),
  step_seconds: z.number(),
  next_step: z.enum(SANDBOX_STEPS).nullable().openapi({
    description: "The step it runs next; on a trip given up, the step refused",
  }),
  tries: z.number().openapi({ description: "Refusals of that step so far" }),
  started_at: z.string(),
  refusal: z.object({
    step: z.enum(SANDBOX_STEPS),
    code: z.string(),
    message: z.string(),
    at: z.string(),
  }).nullable().openapi({
    description: "The last refusal of the trip's rules, as a driver gets it",
  }),
});

const AutopilotAnswer = z.object({
  environment: z.literal("sandbox"),
  scenario: z.enum(AUTOPILOT_SCENARIOS),
  step_seconds: z.number(),
  updated_at: z.string().nullable(),
  moving: z.array(AutopilotTripAnswer).openapi({
    description: "Trips the autopilot is moving (at most 100)",
  }),
  gave_up: z.array(AutopilotTripAnswer).openapi({
    description: `Trips left for manual moves after a step was refused ${AUTOPILOT_TRIES_MAX} ` +
      "times, with the refusal (at most 100)",
  }),
}).openapi("SandboxAutopilot");

function tripAnswer(t: AutopilotTrip): z.infer<typeof AutopilotTripAnswer> {
  return {
    reference: t.reference,
    scenario: t.scenario,
    step_seconds: t.step_seconds,
    next_step: SCENARIO_STEPS[t.scenario][t.next] ?? null,
    tries: t.tries,
    started_at: iso(t.started_at)!,
    refusal: t.refusal && { ...t.refusal, at: iso(t.refusal.at)! },
  };
}

function view(v: AutopilotView): z.infer<typeof AutopilotAnswer> {
  return {
    environment: "sandbox",
    scenario: v.setting.scenario,
    step_seconds: v.setting.step_seconds,
    updated_at: iso(v.setting.updated_at),
    moving: v.moving.map(tripAnswer),
    gave_up: v.gave_up.map(tripAnswer),
  };
}

const DESCRIPTION = "Sandbox base only (on live: 404 not_found). With a scenario on, each trip " +
  "booked afterwards runs its steps (delivered: assign_driver, arrive_pickup, pick_up, " +
  "arrive_dropoff, deliver; failed_delivery and id_refused end with complete_return; " +
  "cancel_by_driver: assign_driver, arrive_pickup, cancel_by_driver), one every step_seconds, " +
  "on durable timers: a restart resumes them, and the operator's clock advance moves them. " +
  "assign_driver comes a step after live dispatch would offer the trip: at once, a prep order " +
  "at booking + prep_minutes - prep_offer_lead_minutes or when marked ready, a scheduled trip " +
  "schedule_offer_lead_minutes before scheduled_at. The setting in force at booking decides. A " +
  "booking's own sandbox_scenario runs for that booking instead. A step the trip's rules refuse " +
  `is tried ${AUTOPILOT_TRIES_MAX} times, then the trip is left for manual moves (gave_up, with ` +
  "the refusal). off stops it: trips the setting started stop before their next step; a " +
  "booking's own sandbox_scenario runs to its end. A trip that ends otherwise (cancelled, or " +
  "finished by hand after it was given up) leaves both lists.";

export function sandboxAutopilotRoutes(api: Api): void {
  define(api, {
    method: "put",
    path: "/business/sandbox/autopilot",
    summary: "Sandbox: set the autopilot scenario and step_seconds",
    description: DESCRIPTION,
    tag,
    security: "business",
    middleware: [business()],
    body: AutopilotBody,
    response: AutopilotAnswer,
    refusals: { not_found: NOT_FOUND },
  }, async (c, { body }) => {
    const { env, tenant } = businessCall(c);
    return ok(c, view(await setAutopilot(env, tenant, body)));
  });

  define(api, {
    method: "get",
    path: "/business/sandbox/autopilot",
    summary: "Sandbox: the autopilot setting, the trips it moves and those it gave up on",
    description: DESCRIPTION,
    tag,
    security: "business",
    middleware: [business()],
    response: AutopilotAnswer,
    refusals: { not_found: NOT_FOUND },
  }, async (c) => {
    const { env, tenant } = businessCall(c);
    return ok(c, view(await autopilotOf(env, tenant)));
  });
}
