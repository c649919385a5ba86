/**
 * Going-live readiness (Business API appendix 3): which flows an integrator's receiver has
 * handled in the sandbox, judged from the webhooks its own endpoint answered 2xx. Pure: what one
 * delivered webhook is evidence of, and the report over the evidence found.
 */

/** spec: business appendix 3: the flows a receiver should have handled before going live. */
export const READINESS_FLOWS = [
  "delivery",
  "failed_delivery_and_return",
  "id_refusal",
  "driver_cancellation",
  "own_cancellation",
] as const;
export type ReadinessFlow = typeof READINESS_FLOWS[number];

/** What one delivered webhook shows the receiver handled (a step of a flow). */
export type ReadinessStep =
  | "delivered"
  | "delivery_failed"
  | "returned"
  | "id_refused"
  | "driver_cancelled"
  | "own_cancelled";

/** Who cancels that is not the business itself (spec: business 3.1). */
const NOT_OWN_CANCELLERS = new Set(["driver", "system"]);

/**
 * The step a delivered webhook's body shows, with its trip's reference; null for a webhook no
 * flow needs (trip.created, a sample) or a body not of a trip event.
 */
export function readinessStepOf(
  rawBody: string,
): { readonly step: ReadinessStep; readonly trip_reference: string } | null {
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    return null;
  }
  if (!isRecord(body) || !isRecord(body.data) || body.test === true) return null;
  const data = body.data;
  const reference = typeof data.reference === "string" ? data.reference : null;
  if (reference === null) return null;
  const step = stepOf(String(body.event), data);
  return step === null ? null : { step, trip_reference: reference };
}

function stepOf(event: string, data: Readonly<Record<string, unknown>>): ReadinessStep | null {
  switch (event) {
    case "trip.completed":
      return data.delivery_outcome === "returned" ? "returned" : "delivered";
    case "trip.delivery_failed":
      return "delivery_failed";
    case "trip.age_verification_failed":
      return "id_refused";
    case "trip.cancelled":
      return NOT_OWN_CANCELLERS.has(String(data.cancelled_by))
        ? (data.cancelled_by === "driver" ? "driver_cancelled" : null)
        : "own_cancelled";
    default:
      return null;
  }
}

/** A delivered webhook that shows a flow handled. */
export interface Evidence {
  readonly event_id: string;
  readonly trip_reference: string;
  readonly delivered_at: number;
}

/** The earliest evidence found for each flow (failed_delivery_and_return: the return's). */
export type EvidenceByFlow = Readonly<Partial<Record<ReadinessFlow, Evidence>>>;

export interface FlowReport {
  readonly flow: ReadinessFlow;
  readonly required: boolean;
  readonly done: boolean;
  readonly evidence: Evidence | null;
  readonly missing: string | null;
}

/** What a receiver still has to handle, in the words an integrator acts on. */
const MISSING: Readonly<Record<ReadinessFlow, string>> = {
  delivery: "a trip.completed with delivery_outcome delivered answered 2xx by your receiver",
  failed_delivery_and_return: "a trip.delivery_failed and then that trip's trip.completed " +
    "with delivery_outcome returned, both answered 2xx by your receiver",
  id_refusal: "a trip.age_verification_failed of an age-restricted trip answered 2xx by your " +
    "receiver",
  driver_cancellation: "a trip.cancelled with cancelled_by driver answered 2xx by your receiver",
  own_cancellation: "a trip.cancelled of your own cancellation (POST /business/trips/{trip}/" +
    "cancel) answered 2xx by your receiver",
};

/**
 * spec: business appendix 3: ready when every required flow is done; the ID refusal is required
 * only of a business that books age-restricted trips.
 */
export function readinessReport(
  evidence: EvidenceByFlow,
  sellsAgeRestricted: boolean,
): { readonly ready: boolean; readonly flows: readonly FlowReport[] } {
  const flows = READINESS_FLOWS.map((flow): FlowReport => {
    const found = evidence[flow] ?? null;
    return {
      flow,
      required: flow !== "id_refusal" || sellsAgeRestricted,
      done: found !== null,
      evidence: found,
      missing: found === null ? MISSING[flow] : null,
    };
  });
  return { ready: flows.every((f) => f.done || !f.required), flows };
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}
