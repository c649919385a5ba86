/**
 * The sandbox autopilot (Business API 4.4): a business's setting (PUT, GET
 * /business/sandbox/autopilot), the scenario a booking starts (the setting's, or the booking's
 * own `sandbox_scenario`), and the due step each trip's autopilot hands to its outbox, run through
 * the same step flow as POST /business/sandbox/trips/{reference}/{step}.
 */
import {
  AUTOPILOT_INDEX,
  type AutopilotItem,
  type AutopilotTrip,
  sandboxAutopilotActor,
} from "../../../actors/business/sandbox_autopilot.ts";
import {
  type AutopilotSetting,
  sandboxAutopilotSettingActor,
} from "../../../actors/business/sandbox_autopilot_setting.ts";
import type { Deps } from "../../environment.ts";
import { tripActor } from "../../../actors/business/trip/mod.ts";
import { foundOrNull, lastingRefusal, orRefuse } from "../../runtime/actor.ts";
import { offerDueOf } from "../rules/dispatch.ts";
import { TRIP_STATUS_FLAGS } from "../rules/trip_status.ts";
import { refuseUnlessSandbox, servesSandbox } from "../rules/sandbox.ts";
import type {
  AutopilotScenario,
  AutopilotStartItem,
  BookedAutopilot,
} from "../rules/sandbox_steps.ts";
import { moveSandboxTrip } from "./sandbox_steps.ts";

type D = Pick<Deps, "runtime" | "clock" | "name" | "requestId" | "referenceKey">;

/** Trips GET lists of each kind, at most (the oldest references first). */
export const AUTOPILOT_LIST_MAX = 100;

export interface AutopilotView {
  readonly setting: AutopilotSetting;
  readonly moving: readonly AutopilotTrip[];
  readonly gave_up: readonly AutopilotTrip[];
}

function onSandbox(deps: Pick<Deps, "name">): void {
  refuseUnlessSandbox(deps.name, "/business/sandbox/autopilot");
}

/**
 * PUT /business/sandbox/autopilot: trips booked from now on run `scenario`; `off` runs none and
 * stops the trips the setting started at their next step (a booking's own scenario runs on).
 */
export async function setAutopilot(
  deps: D,
  business: string,
  input: { readonly scenario: AutopilotScenario; readonly step_seconds: number },
): Promise<AutopilotView> {
  onSandbox(deps);
  orRefuse(
    await deps.runtime.ask(sandboxAutopilotSettingActor, business, business, {
      kind: "set",
      ...input,
    }, { requestId: deps.requestId }),
  );
  return await autopilotOf(deps, business);
}

/** GET /business/sandbox/autopilot: the setting, the trips it moves and those it gave up on. */
export async function autopilotOf(deps: D, business: string): Promise<AutopilotView> {
  onSandbox(deps);
  const setting = orRefuse(
    await deps.runtime.read(sandboxAutopilotSettingActor, business, business, { kind: "get" }),
  );
  const [moving, gave_up] = await Promise.all([
    listed(deps, business, "moving"),
    listed(deps, business, "gave_up"),
  ]);
  return { setting, moving, gave_up };
}

async function listed(deps: D, business: string, status: "moving" | "gave_up") {
  const found = await deps.runtime.lookupPrefix(
    AUTOPILOT_INDEX,
    `${business}:${status}:`,
    AUTOPILOT_LIST_MAX,
  );
  const trips = await Promise.all(found.map(async (f) => {
    const r = await deps.runtime.read(sandboxAutopilotActor, business, f.target.id, {
      kind: "get",
    });
    return r.ok ? r.reply : null;
  }));
  // An index entry trails its actor by nothing, but a read races a step: keep what still holds.
  return trips.filter((t): t is AutopilotTrip => t !== null && t.status === status);
}

/**
 * spec: business 4.4: the autopilot a sandbox booking runs, decided as it is booked: its own
 * `sandbox_scenario`, else the business's setting in force then (`off`, or no setting: none).
 */
export async function autopilotAtBooking(
  deps: D,
  business: string,
  own: AutopilotScenario | undefined,
): Promise<BookedAutopilot> {
  const setting = orRefuse(
    await deps.runtime.read(sandboxAutopilotSettingActor, business, business, { kind: "get" }),
  );
  return {
    scenario: own ?? setting.scenario,
    step_seconds: setting.step_seconds,
    source: own === undefined ? "setting" : "booking",
  };
}

/**
 * Starts the autopilot the booking decided. Started again by a booking's retry or its outbox, it
 * answers the first start, so a crash between the booking and this is completed by the outbox.
 */
export async function startAutopilot(
  deps: D,
  business: string,
  reference: string,
  decided: BookedAutopilot,
): Promise<void> {
  if (!servesSandbox(deps.name)) return;
  const { scenario, step_seconds, source } = decided;
  if (scenario === "off") return;
  const offer_at = await offerAtOf(deps, business, reference);
  orRefuse(
    await deps.runtime.ask(sandboxAutopilotActor, business, reference, {
      kind: "start",
      business_id: business,
      reference,
      scenario,
      step_seconds,
      source,
      ...(offer_at === null ? {} : { offer_at }),
    }, { requestId: deps.requestId }),
  );
  // Marked ready after the offer time was read, before the start was stored: the ready outbox
  // found no autopilot to tell, so the trip's offer time is read again (spec: business 3.1).
  if (offer_at === null || offer_at <= deps.clock.now()) return;
  const again = await offerAtOf(deps, business, reference);
  if (again !== null && again < offer_at) await autopilotOfferable(deps, business, reference);
}

/** spec: business 3.1: when live dispatch offers the trip, as the trip decided it at booking. */
async function offerAtOf(deps: D, business: string, reference: string): Promise<number | null> {
  const r = foundOrNull(
    await deps.runtime.read(tripActor, business, reference, { kind: "get" }),
  );
  return r?.phase === "booked" ? offerDueOf(r.trip) : null;
}

/** spec: business 3.1, 4.4: the trip was marked ready: its first step waits no longer. */
export async function autopilotOfferable(
  deps: Pick<Deps, "runtime">,
  business: string,
  reference: string,
): Promise<void> {
  // A trip whose booking ran no scenario has no autopilot: the command changes nothing.
  orRefuse(
    await deps.runtime.ask(sandboxAutopilotActor, business, reference, { kind: "offerable" }),
  );
}

/** The autopilot start outbox's handler: starts the trip's autopilot as its booking decided. */
export async function startAutopilotFrom(deps: D, item: AutopilotStartItem): Promise<void> {
  // An item handed over before the booking carried its decision decides it now, as it did.
  const decided = item.autopilot ??
    await autopilotAtBooking(deps, item.business_id, item.scenario ?? undefined);
  await startAutopilot(deps, item.business_id, item.reference, decided);
}

/** spec: business 4.4: the trip ended: its autopilot (if any) has no moves left to make. */
export async function endAutopilot(
  deps: Pick<Deps, "runtime">,
  business: string,
  reference: string,
): Promise<void> {
  // A trip whose booking ran no scenario has no autopilot: the command changes nothing.
  orRefuse(
    await deps.runtime.ask(sandboxAutopilotActor, business, reference, { kind: "trip_ended" }),
  );
}

/**
 * The autopilot outbox's handler: runs the due step as the step route would, and records its
 * outcome on the trip's autopilot (which sets the next timer, or counts a refusal). Asked again
 * after a crash, the step is answered under the same key and the outcome is recorded once.
 */
export async function runAutopilotStep(deps: D, item: AutopilotItem): Promise<void> {
  const outcome = (await settingTurnedOff(deps, item))
    ? { kind: "stop" as const, index: item.index }
    : await stepOutcome(deps, item);
  orRefuse(
    await deps.runtime.ask(sandboxAutopilotActor, item.business_id, item.reference, outcome),
  );
}

type StepOutcome = { kind: "step_done" | "stop"; index: number } | {
  kind: "step_refused";
  index: number;
  code: string;
  message: string;
};

/** Runs the due step under a key of its own, so a run again after a crash answers the first. */
async function stepOutcome(deps: D, item: AutopilotItem): Promise<StepOutcome> {
  try {
    await moveSandboxTrip(deps, item.business_id, item.reference, item.step, {
      idempotency_key: `autopilot:${item.reference}:${item.index}`,
    });
    return { kind: "step_done", index: item.index };
  } catch (e) {
    // Anything but a refusal for good (a store failure, an actor too busy to answer now) is
    // thrown: the outbox hands the item over again, and only the trip's rules count a try.
    const refused = lastingRefusal(e);
    if (refused === null) throw e;
    // A trip that ended otherwise (the business cancelled it) takes no more moves, by hand or
    // not: its autopilot stops, rather than trying and leaving it among those to move by hand.
    if (await tripEnded(deps, item)) return { kind: "stop", index: item.index };
    const { code, message } = refused;
    return { kind: "step_refused", index: item.index, code, message };
  }
}

async function tripEnded(deps: D, item: AutopilotItem): Promise<boolean> {
  const r = foundOrNull(
    await deps.runtime.read(tripActor, item.business_id, item.reference, { kind: "get" }),
  );
  return r?.phase === "booked" && TRIP_STATUS_FLAGS[r.trip.status].final;
}

/** spec: business 4.4 "off stops it": a trip the setting started stops once it is off. */
async function settingTurnedOff(deps: D, item: AutopilotItem): Promise<boolean> {
  if (item.source !== "setting") return false;
  const setting = orRefuse(
    await deps.runtime.read(sandboxAutopilotSettingActor, item.business_id, item.business_id, {
      kind: "get",
    }),
  );
  return setting.scenario === "off";
}
