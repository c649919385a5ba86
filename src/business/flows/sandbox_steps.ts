/**
 * The sandbox's simulation steps (Business API 4.4): POST /business/sandbox/trips/{reference}/
 * {step}. A step is the driver app's command given by the trip's simulated driver, never a second
 * implementation: assign_driver is the offer and its acceptance (sandbox_driver.ts), the other
 * eight are driverTripAction as that driver, so every refusal a real driver meets is met here.
 * The answer names the webhooks the step's own commit added to the trip's outbox: never those of
 * another commit on the trip around it (a concurrent step, the business's cancellation).
 */
import { outboundEventActor } from "../../../actors/platform/outbound_event/mod.ts";
import {
  type Trip,
  TRIP_NUMBER_INDEX,
  tripActor,
  type TripCommit,
  type TripEvent,
} from "../../../actors/business/trip/mod.ts";
import { formatMinor } from "../../domain/money.ts";
import type { Deps } from "../../environment.ts";
import { businessOf } from "../../platform/flows/businesses.ts";
import { foundOrNull, refuse } from "../../runtime/actor.ts";
import { newId } from "../../runtime/ids.ts";
import { bookingReference } from "../rules/booking.ts";
import { proofRequired } from "../rules/driver_actions.ts";
import { refuseUnlessSandbox } from "../rules/sandbox.ts";
import { TRIP_STATUS_FLAGS } from "../rules/trip_status.ts";
import {
  type SandboxStep,
  SIMULATED_REASONS,
  SIMULATED_SCAN_REASON,
} from "../rules/sandbox_steps.ts";
import { webhookEventId } from "../rules/webhook_envelope.ts";
import { BUSINESS_WEBHOOK_OUTBOX, type BusinessWebhookItem } from "../rules/webhook_events.ts";
import {
  driverActionCommit,
  type DriverActionInput,
  driverTripAction,
  keptDriverAction,
  type ProofUpload,
} from "./driver_trips.ts";
import { assignSimulatedDriver, simulatedDriverId } from "./sandbox_driver.ts";

type D = Pick<Deps, "runtime" | "clock" | "name" | "requestId" | "referenceKey">;

export interface StepInput {
  readonly reason?: string | undefined;
  /** deliver: the COD taken, a decimal; the declared amount when absent. */
  readonly cod_collected_amount?: number | string | undefined;
  /** The same key answers the first answer (the autopilot's retry after a crash); else new. */
  readonly idempotency_key?: string | undefined;
}

/** A webhook's delivery as now known; `not_sent` when the business has no webhook URL. */
export type StepWebhookStatus = "pending" | "delivered" | "failed" | "not_sent";

export interface StepWebhook {
  readonly event: string;
  readonly event_id: string;
  readonly status: StepWebhookStatus;
}

export interface StepOutcome {
  readonly step: SandboxStep;
  readonly trip: Trip;
  readonly webhooks: readonly StepWebhook[];
}

/** spec: business 4.4: one simulation step on the caller's trip. */
export async function sandboxStep(
  deps: D,
  business: string,
  reference: string,
  step: SandboxStep,
  input: StepInput,
): Promise<StepOutcome> {
  refuseUnlessSandbox(deps.name, "POST /business/sandbox/trips/{reference}/{step}");
  const before = await sandboxTrip(deps, business, reference);
  const key = stepKey(input.idempotency_key);
  const trip = await takeStep(deps, before, step, input, key);
  const commit = await stepCommit(deps, { before, trip, step, key });
  return { step, trip, webhooks: commit === null ? [] : await stepWebhooks(deps, trip, commit) };
}

/** The step alone, without its webhooks: the autopilot's (its trip found by its reference). */
export async function moveSandboxTrip(
  deps: D,
  business: string,
  reference: string,
  step: SandboxStep,
  input: StepInput,
): Promise<Trip> {
  return await takeStep(deps, await sandboxTrip(deps, business, reference), step, input);
}

/** spec: business 4.4: the trip's reference, its integer id or the business's external_reference. */
async function sandboxTrip(deps: D, business: string, given: string): Promise<Trip> {
  const candidates: string[] = [];
  if (/^\d{1,15}$/.test(given)) {
    const found = await deps.runtime.lookup(TRIP_NUMBER_INDEX, `${business}:${given}`);
    if (found) candidates.push(found.id);
  }
  candidates.push(
    given,
    bookingReference(
      deps.referenceKey,
      await businessOf(deps.runtime, business),
      { kind: "external_reference", value: given },
      () => given,
    ),
  );
  for (const reference of candidates) {
    // A refused read (a full mailbox) is thrown (503), never answered 404 for a trip that exists.
    const r = foundOrNull(await deps.runtime.read(tripActor, business, reference, { kind: "get" }));
    if (r?.phase === "booked") return r.trip;
  }
  refuse("not_found", `trip not found: ${given}`);
}

/** The step as the simulated driver; `key` the driver app's key of its action (stepKey). */
async function takeStep(
  deps: D,
  trip: Trip,
  step: SandboxStep,
  input: StepInput,
  key = stepKey(input.idempotency_key),
): Promise<Trip> {
  if (step === "assign_driver") {
    refuseEnded(trip, step);
    return await assignSimulatedDriver(deps, trip);
  }
  const first = await replayedStep(deps, trip, input);
  if (first !== null) return first;
  refuseEnded(trip, step);
  const driverId = trip.driver?.id;
  if (driverId === undefined) {
    refuse("driver_not_assigned", `${step} needs a driver: assign_driver first: ${trip.reference}`);
  }
  if (step === "complete_return" && !trip.returning) {
    refuse(
      "no_return_in_progress",
      `complete_return needs a failed delivery or a refused ID first: ${trip.reference}`,
    );
  }
  const action = actionInput(trip, step, input, key);
  // The simulated driver has no other driver behind them: their cancellation ends the trip.
  return await driverTripAction(deps, driverId, trip.reference, step, action, {
    redispatch: false,
  });
}

/**
 * spec: business 3.1: a completed or cancelled trip is final: no step moves it, the driver's
 * assignment included (which, said again on a trip still under way, answers the trip as it is).
 */
function refuseEnded(trip: Trip, step: SandboxStep): void {
  if (TRIP_STATUS_FLAGS[trip.status].final) {
    refuse("invalid_transition", `${step}: the trip is ${trip.status}: ${trip.reference}`);
  }
}

/**
 * A step taken again under its key (the autopilot run again after a crash) answers its first
 * answer, before the checks of the trip as it is now: the return it completed leaves no return in
 * progress, and the driver who gave the trip back holds it no longer (CONTRACT "Driver app").
 */
async function replayedStep(deps: D, trip: Trip, input: StepInput): Promise<Trip | null> {
  if (input.idempotency_key === undefined) return null;
  // The driver the steps act as: the trip's, else the simulated one who may have given it back.
  const driverId = trip.driver?.id ?? simulatedDriverId(trip.business_id, trip);
  const key = stepKey(input.idempotency_key);
  return await keptDriverAction(deps, driverId, trip.reference, key);
}

/** The driver app's key of a sandbox step's action (its own key space beside the app's). */
function stepKey(idempotencyKey: string | undefined): string {
  return `sandbox:${idempotencyKey ?? newId("step")}`;
}

/** What the simulated driver sends: what the trip requires, and the body's reason and COD. */
function actionInput(
  trip: Trip,
  step: Exclude<SandboxStep, "assign_driver">,
  input: StepInput,
  idempotency_key: string,
): DriverActionInput {
  switch (step) {
    case "pick_up":
      return { idempotency_key, force_reason: SIMULATED_SCAN_REASON };
    case "deliver":
      return {
        idempotency_key,
        ...(trip.delivery_code !== null ? { delivery_code: trip.delivery_code } : {}),
        ...(trip.age_verification_required ? { id_checked: true } : {}),
        ...(proofRequired(trip.type)
          ? { proof_photo: simulatedProof("proof_photo"), signature: simulatedProof("signature") }
          : {}),
        ...codOf(trip, input),
      };
    case "fail_delivery":
    case "id_refused":
    case "cancel_by_driver":
      return { idempotency_key, reason: input.reason ?? SIMULATED_REASONS[step] };
    default:
      return { idempotency_key };
  }
}

function codOf(trip: Trip, input: StepInput): { cod_collected_amount?: number | string } {
  if (input.cod_collected_amount !== undefined) {
    return { cod_collected_amount: input.cod_collected_amount };
  }
  return trip.cod_amount_minor === null
    ? {}
    : { cod_collected_amount: formatMinor(trip.cod_amount_minor, trip.billing_currency) };
}

/** A 1x1 PNG: the simulated driver's proof photo and signature, and a shopper's till receipt. */
export const SIMULATED_PNG = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
  ),
  (ch) => ch.charCodeAt(0),
);

function simulatedProof(field: ProofUpload["field"]): ProofUpload {
  return { field, name: `sandbox_${field}.png`, content_type: "image/png", bytes: SIMULATED_PNG };
}

/** A step taken: the trip before and after it, and the driver app's key of its action. */
interface Taken {
  readonly before: Trip;
  readonly trip: Trip;
  readonly step: SandboxStep;
  readonly key: string;
}

/** Where the step's own commit landed in the trip's log; null when it committed nothing. */
async function stepCommit(deps: D, taken: Taken): Promise<TripCommit | null> {
  const { before, trip, step, key } = taken;
  if (step !== "assign_driver") {
    const driverId = before.driver?.id ?? simulatedDriverId(before.business_id, before);
    return await driverActionCommit(deps, driverId, trip.reference, key);
  }
  // Already the simulated driver's: the step changed nothing.
  if (trip.driver === null || before.driver?.id === trip.driver.id) return null;
  // The acceptance that gave the trip its driver (offer answered, or the batch's lead followed),
  // one event in a commit of its own (trip drive.ts acceptTrip): the driver's latest.
  let found: TripCommit | null = null;
  for await (const e of deps.runtime.events(tripActor, trip.reference)) {
    const event = e.event as TripEvent;
    if (
      event.kind === "trip_accepted" && event.driver.id === trip.driver.id &&
      (event.acceptance === undefined || event.acceptance === trip.acceptances)
    ) found = { first_seq: e.seq, last_seq: e.seq };
  }
  return found;
}

/** The webhooks the trip's outbox took from the events of the step's `commit`. */
async function stepWebhooks(deps: D, trip: Trip, commit: TripCommit): Promise<StepWebhook[]> {
  const state = { phase: "booked" as const, trip, fingerprint: "" };
  const items: BusinessWebhookItem[] = [];
  for await (const e of deps.runtime.events(tripActor, trip.reference, commit.first_seq)) {
    if (e.seq > commit.last_seq) break;
    for (const add of tripActor.outbox?.(e.event as TripEvent, state) ?? []) {
      if (add.outbox === BUSINESS_WEBHOOK_OUTBOX) items.push(add.payload as BusinessWebhookItem);
    }
  }
  if (items.length === 0) return [];
  const account = await businessOf(deps.runtime, trip.business_id);
  const hooked = account.profile.webhook_url !== null && account.profile.webhook_url !== "";
  return await Promise.all(items.map(async (i) => {
    const event_id = webhookEventId(trip.business_id, i.event_id);
    return {
      event: i.event,
      event_id,
      status: hooked ? await statusOf(deps, trip, event_id) : "not_sent",
    };
  }));
}

async function statusOf(deps: D, trip: Trip, eventId: string): Promise<StepWebhookStatus> {
  const got = await deps.runtime.read(outboundEventActor, trip.business_id, eventId, {
    kind: "get",
  });
  // Not made yet: the outbox's handler makes it once the commit is done.
  return got.ok && got.reply ? got.reply.status : "pending";
}
