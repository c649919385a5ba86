/**
 * Business API 4.4: the sandbox's simulation steps, POST /business/sandbox/trips/{reference}/
 * {step}: the driver app's commands given by the trip's simulated driver, answering the trip and
 * the webhooks the step sent.
 */
import { sandboxStep } from "../../src/business/flows/sandbox_steps.ts";
import { SANDBOX_STEPS } from "../../src/business/rules/sandbox_steps.ts";
import { type Api, okBeside } from "../../src/http/app.ts";
import { define, z } from "../../src/http/route.ts";
import { PlainText } from "../../src/http/schemas.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { TripAnswer, tripView } from "./answers/trips.ts";

const tag = "Sandbox";

const StepBody = z.object({
  reason: PlainText(500, { lines: true }).min(1).optional().openapi({
    description: "fail_delivery, id_refused, cancel_by_driver: why (a simulated reason if absent)",
  }),
  cod_collected_amount: z.union([z.number(), z.string().trim().min(1).max(24)]).optional()
    .openapi({
      description: "deliver: the COD taken, a decimal; the declared COD amount if absent",
    }),
});

/**
 * spec: business 4.4: "Answer: 200 `{success, environment: sandbox, step, trip {reference,
 * status, returning, ...}, webhooks[{event, event_id, status}]}`": at the top level as written,
 * and under `data` too.
 */
const StepFields = z.object({
  step: z.enum(SANDBOX_STEPS),
  trip: TripAnswer,
  webhooks: z.array(
    z.object({
      event: z.string(),
      event_id: z.string().openapi({ description: "The webhook's id (its X-Service-Delivery)" }),
      status: z.enum(["pending", "delivered", "failed", "not_sent"]).openapi({
        description:
          "As now known: pending until its first attempt is answered 2xx (delivered) or " +
          "its retries run out (failed); not_sent when the business has no webhook URL",
      }),
    }).openapi("SandboxStepWebhook"),
  ),
});

const StepAnswer = StepFields.extend({
  environment: z.literal("sandbox"),
}).openapi("SandboxStepResult");

export function sandboxStepsRoutes(api: Api): void {
  define(api, {
    method: "post",
    path: "/business/sandbox/trips/{reference}/{step}",
    summary: "Sandbox: move a trip one step as its simulated driver (assign_driver, " +
      "arrive_pickup, pick_up, arrive_dropoff, deliver, fail_delivery, id_refused, " +
      "complete_return, cancel_by_driver)",
    description: "Sandbox base only (on live: 404 not_found). `reference` is the trip's " +
      "reference, its integer id or your external_reference. assign_driver offers the trip to a " +
      "simulated driver of its own, who accepts it as the driver app does; every other step is " +
      "the driver app's action by that driver, refused as a real driver's would be. pick_up " +
      "overrides the bag scan with a recorded reason; deliver gives the trip's delivery code, " +
      "checks the ID of an age-restricted trip, attaches a proof photo and signature and the COD " +
      "(cod_collected_amount, else the declared amount); cancel_by_driver ends the trip " +
      "cancelled by the driver (no other driver takes it in the sandbox). `webhooks` are the " +
      "events the step's own change added to the trip's webhooks (never another request's on " +
      "the same trip), with their delivery status as now known. " +
      "`step`, `trip` and `webhooks` are answered at the top level, as the Business API writes " +
      "the answer, and the same under `data` (with `environment`): read either.",
    tag,
    security: "business",
    middleware: [business()],
    params: z.object({
      reference: z.string().min(1).max(80).openapi({
        description: "The trip's reference, integer id or your external_reference",
      }),
      step: z.enum(SANDBOX_STEPS).openapi({ description: "An unknown step is 422" }),
    }),
    body: StepBody,
    response: StepAnswer,
    beside: StepFields,
    refusals: {
      not_found: "no trip of yours by this reference, id or external_reference; or called on " +
        "live (the sandbox endpoints are on the sandbox base)",
      driver_not_assigned: "a step before assign_driver (or after the driver gave the trip back)",
      no_return_in_progress: "complete_return without a failed delivery or a refused ID",
      invalid_transition: "the step does not follow from the trip's status",
      already_accepted: "assign_driver: another driver holds the trip",
      offer_waiting: "assign_driver: an offer to another driver is waiting for their answer",
      offer_expired: "assign_driver: the simulated driver's offer ended unanswered",
      driver_excluded: "assign_driver: the simulated driver already let the trip go",
      awaiting_handover: "pick_up before the store marked a handover_required order ready",
      cod_amount_mismatch: "deliver: cod_collected_amount differs from the COD amount, or is " +
        "given (above 0) on a trip without COD",
      outside_service_area: "assign_driver: no zone serves the trip's pickup",
      validation_failed: "step is none of the nine, or a field is invalid: each is named",
    },
  }, async (c, { params, body }) => {
    const { env, tenant } = businessCall(c);
    const r = await sandboxStep(env, tenant, params.reference, params.step, body);
    const fields = { step: r.step, trip: tripView(c, r.trip), webhooks: [...r.webhooks] };
    return okBeside(c, { environment: "sandbox" as const, ...fields }, fields);
  });
}
