/**
 * Run orchestration (courier 2.6 rule 3, 3.4, 4.5): a run or stop action is decided by the run
 * actor, then its custody moves are applied to each shipment through the shipment's actor and its
 * later charges are booked on the client's account. Every step carries an idempotency key derived
 * from the action's own key, so a replay after lost signal (or a retry after a crash between two
 * steps) returns the first answer and applies each custody move and charge exactly once.
 */
import type { Context } from "hono";
import {
  asRun,
  type Load,
  type NetworkRun,
  networkRunActor,
  type NetworkRunState,
  runAt,
  type RunCommand,
  type RunItem,
  type RunReply,
  type RunSummary,
  type Stop,
  type StopAck,
  type StopAnswer,
  stopAnswer,
  withColdSlots,
} from "../../../actors/courier/network_run.ts";
import type { Crossing } from "../../../actors/courier/customs_crossing/mod.ts";
import { asLabSample, labSampleActor } from "../../../actors/courier/lab_sample/mod.ts";
import { shipmentRunsActor } from "../../../actors/courier/shipment_runs.ts";
import type { ScanInput, Shipment } from "../../../actors/courier/shipment/mod.ts";
import type { ScanEvent } from "../rules/lifecycle.ts";
import { decimal } from "../../domain/money.ts";
import { canonicalJson, sha256Hex } from "../../domain/secrets.ts";
import { businessPrincipalOf, principalName } from "../../platform/auth/principal.ts";
import type { AppEnv } from "../../http/context.ts";
import { ApiError, fromRejection } from "../../http/errors.ts";
import { type LaterCharge, postClientCharge, postLaterCharge } from "./later_charges.ts";
import { recordOnce, shipmentIn } from "./shipments.ts";
import { iso } from "../../domain/iso.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";

/** A shipment's load in exact units (grams, cm3, pieces). */
export function shipmentLoad(s: Shipment): Load {
  return s.parcels.reduce((sum, p) => ({
    grams: sum.grams + Math.round(p.weight_kg * 1000),
    cm3: sum.cm3 + Math.round(p.length_cm * p.width_cm * p.height_cm),
    pieces: sum.pieces + 1,
    cold_slots: sum.cold_slots,
  }), { grams: 0, cm3: 0, pieces: 0, cold_slots: 0 });
}

/**
 * What a shipment boarding run `runId` takes of its capacity: its load, and one cold slot per
 * piece when its laboratory sample is kept cold (a temperature range in its profile; courier 2.10
 * cold slots). Boarding is recorded first (shipment_runs.ts), so a cold-chain profile set from
 * now on finds the run (coldChainOnRuns); one set before is read here.
 */
export async function runLoadOf(c: Context<AppEnv>, s: Shipment, runId: string): Promise<Load> {
  const tenant = businessPrincipalOf(c).business.id;
  return withColdSlots(
    shipmentLoad(s),
    await boardRun(c.get("env").runtime, tenant, s.waybill, runId),
  );
}

/**
 * Records that the shipment boards run `runId` (shipment_runs.ts) and answers whether it is cold
 * chain: flagged by a profile, or a sample profiled before the flag was kept.
 */
export async function boardRun(
  runtime: ActorRuntime,
  tenant: string,
  waybill: string,
  runId: string,
): Promise<boolean> {
  const boarded = await runtime.ask(shipmentRunsActor, tenant, waybill, {
    kind: "board",
    run_id: runId,
  });
  if (!boarded.ok) throw fromRejection(boarded);
  return boarded.reply.cold_chain || await sampleIsColdChain(runtime, tenant, waybill);
}

/** The shipment's laboratory sample is kept cold (false: none, or no temperature range). */
async function sampleIsColdChain(
  runtime: ActorRuntime,
  tenant: string,
  waybill: string,
): Promise<boolean> {
  const r = await runtime.ask(labSampleActor, tenant, waybill, { kind: "get" });
  return r.ok && asLabSample(r.reply).cold_chain;
}

/**
 * A laboratory profile makes the shipment cold chain (`cold`), or no longer: every run it has
 * boarded counts a cold slot per piece from now on (courier 2.10; 5: runs:override overrides
 * capacity, so it is never exceeded silently). Call it before the profile when it makes the
 * sample cold, after it when it stops being so: between the two a run counts the slots anyway.
 * Answers `undo`, which takes back what this call reserved (the profile was refused); ApiError
 * `capacity_exceeded` (nothing reserved) when a run has too few cold slots.
 */
export async function coldChainOnRuns(
  runtime: ActorRuntime,
  tenant: string,
  waybill: string,
  cold: boolean,
  by: string,
): Promise<{ undo(): Promise<void> }> {
  const tell = async (runs: readonly string[], on: boolean) => {
    for (const runId of runs) {
      const r = await runtime.ask(networkRunActor, tenant, runId, {
        kind: "cold_chain",
        waybill,
        cold: on,
        by,
      });
      if (!r.ok && r.code !== "not_found") return r;
    }
    return null;
  };
  const set = await runtime.ask(shipmentRunsActor, tenant, waybill, { kind: "cold_chain", cold });
  if (!set.ok) throw fromRejection(set);
  const { runs, was_cold_chain } = set.reply;
  // Nothing to take back when releasing, or when kept cold before: the runs count its slots
  // already, and a refusal leaves them counted.
  const keep = !cold || was_cold_chain || await sampleIsColdChain(runtime, tenant, waybill);
  const undo = async () => {
    if (keep) return;
    await tell(runs, false);
    await runtime.ask(shipmentRunsActor, tenant, waybill, { kind: "cold_chain", cold: false });
  };
  const refused = await tell(runs, cold);
  if (refused) {
    await undo();
    throw fromRejection(refused);
  }
  return { undo };
}

export async function shipmentOf(c: Context<AppEnv>, waybill: string): Promise<Shipment> {
  return await shipmentIn(c.get("env").runtime, businessPrincipalOf(c).business.id, waybill);
}

/**
 * Asks the run, then reads it: a change answers only an acknowledgement, which is what is kept
 * for good under `key` (a replay after lost signal applies nothing again). `request` is what the
 * caller sent under its key: the same key with another request is refused (changeRun).
 */
export async function askRun(
  c: Context<AppEnv>,
  runId: string,
  command: RunCommand,
  key: string | null = null,
  request?: Readonly<Record<string, unknown>>,
): Promise<NetworkRun> {
  if (command.kind !== "get") await changeRun(c, runId, command, key, request);
  const tenant = businessPrincipalOf(c).business.id;
  const got = await c.get("env").runtime.read(networkRunActor, tenant, runId, { kind: "get" });
  if (!got.ok) throw fromRejection(got);
  return asRun(got.reply);
}

/**
 * What a caller sent under an idempotency key, as a digest: the body without the key, its fields
 * in name order, so the business and the driver path sending the same request name it alike.
 */
export function requestDigest(request: Readonly<Record<string, unknown>>): string {
  const { idempotency_key: _key, ...rest } = request;
  return sha256Hex(canonicalJson(rest));
}

/**
 * Asks the run for a change, kept for good under `key`; a refusal is thrown as its ApiError.
 * spec: courier 4.5: a replay (the same request under its key) answers the first; another
 * request under the same key is refused 409, never answered as the first while the steps after
 * it (custody moves, charges) are made for what it names. The run compares the two in turn, so
 * two sent at once are told apart too.
 */
async function changeRun(
  c: Context<AppEnv>,
  runId: string,
  command: RunCommand,
  key: string | null,
  request?: Readonly<Record<string, unknown>>,
): Promise<RunReply> {
  const digest = key && request ? requestDigest(request) : null;
  const r = await c.get("env").runtime.ask(
    networkRunActor,
    businessPrincipalOf(c).business.id,
    runId,
    digest && command.kind !== "create" && command.kind !== "get" && command.kind !== "keyed"
      ? { kind: "keyed", request: digest, change: command }
      : command,
    key ? { idempotencyKey: `run:${runId}:${key}`, permanent: true } : undefined,
  );
  if (!r.ok) throw fromRejection(r);
  const first = "request" in r.reply ? r.reply.request : undefined;
  // A reply kept before requests were named answers as the replay it was taken for.
  if (r.replayed && digest && first !== undefined && first !== digest) {
    throw new ApiError(
      "idempotency_key_reused",
      `idempotency_key already used on run ${runId} for another request`,
    );
  }
  return r.reply;
}

/** Stop-action answers kept in memory per runtime for replays, the newest STOP_ANSWERS_KEPT. */
const STOP_ANSWERS_KEPT = 2_000;
const stopAnswers = new WeakMap<object, Map<string, StopAnswer>>();

function answersOf(runtime: object): Map<string, StopAnswer> {
  let answers = stopAnswers.get(runtime);
  if (!answers) stopAnswers.set(runtime, answers = new Map());
  return answers;
}

/** Drops the answers kept in memory, as a restart does (tests of the rebuild from the log). */
export function forgetStopAnswers(runtime: object): void {
  stopAnswers.delete(runtime);
}

function rememberAnswer(runtime: object, key: string, answer: StopAnswer): void {
  const answers = answersOf(runtime);
  answers.set(key, answer);
  if (answers.size > STOP_ANSWERS_KEPT) answers.delete(answers.keys().next().value!);
}

/**
 * Asks the run for a stop action and answers what the action answered (courier 4.5: a replay
 * after lost signal answers the first, not the run as it is now): the stop as the action left
 * it, its items and the run's standing, which is all the steps that follow need. A replay's answer is rebuilt from the run's events up to the seq its
 * kept reply names; a reply kept before stop actions named one answers the run as it is.
 */
export async function askStop(
  c: Context<AppEnv>,
  runId: string,
  command: Extract<RunCommand, { stop_id: string }>,
  key: string | null,
  request?: Readonly<Record<string, unknown>>,
): Promise<StopAnswer> {
  const runtime = c.get("env").runtime;
  const reply = (await changeRun(c, runId, command, key, request)) as Partial<StopAck>;
  const kept = key ? `${businessPrincipalOf(c).business.id}/${runId}/${key}` : null;
  if (reply.answer) {
    if (kept) rememberAnswer(runtime, kept, reply.answer);
    return reply.answer;
  }
  const now = async () => stopAnswer(await askRun(c, runId, { kind: "get" }), command.stop_id);
  if (reply.seq === undefined) return await now();
  // A replay soon after the first (lost signal) is answered from memory; after a restart the
  // answer is rebuilt from the run's log, which costs a read of the whole log.
  const recent = kept ? answersOf(runtime).get(kept) : undefined;
  if (recent) return recent;
  const events: { seq: number; event: unknown }[] = [];
  for await (const e of runtime.events(networkRunActor, runId)) {
    if (e.seq > reply.seq) break;
    events.push(e);
  }
  // evolve re-runs today's step over the log: an event an older step accepted (a fail after a
  // delivery, a report of an ended item) no longer applies. Such a run answers as it is now, as
  // a reply kept before stop actions named a seq does, rather than a 500 on every replay.
  let then: NetworkRunState;
  try {
    then = runAt(events, reply.seq);
  } catch {
    return await now();
  }
  if (!then) throw new Error(`run ${runId} has no events up to ${reply.seq}`);
  const answer = stopAnswer(then, command.stop_id);
  if (kept) rememberAnswer(runtime, kept, answer);
  return answer;
}

/**
 * Records one custody move on a shipment, once: the same key never moves it twice. A shipment
 * already closed (delivered elsewhere) keeps its state; the run still records its own.
 */
export async function moveShipment(
  c: Context<AppEnv>,
  waybill: string,
  key: string,
  scan: Omit<ScanInput, "by">,
): Promise<void> {
  const p = businessPrincipalOf(c);
  await recordOnce(c.get("env").runtime, p.business.id, waybill, `custody:${key}:${waybill}`, {
    ...scan,
    by: principalName(p),
  });
}

/**
 * Moves every listed shipment of the run with the same scan (one key per action and shipment):
 * the pieces the run carries, so a piece left behind at a collection is not moved with it.
 */
export async function moveAll(
  c: Context<AppEnv>,
  run: NetworkRun,
  waybills: readonly string[],
  key: string,
  event: ScanEvent,
  fields: Omit<ScanInput, "by" | "event"> = {},
): Promise<void> {
  for (const w of waybills) {
    await moveShipment(c, w, key, { ...fields, event, pieces: carriedPieces(run.stops, w) });
  }
}

/**
 * What leaving with a run is for one of its shipments (spec: courier 3.2 milestones): out for
 * delivery when the run delivers it (its deliver stop, still to be worked, with no border stop
 * still to be presented before it), which opens delivery_attempt; else a trunk leg (linehaul),
 * toward a crossing when a border stop is still to be presented (border_presentation too).
 */
export function departureEvent(run: NetworkRun, waybill: string): ScanEvent {
  if (deliversNext(run, waybill)) return "out_for_delivery";
  const border = (s: Stop) => s.kind === "checkpoint" && s.status === "pending";
  return run.stops.some(border) ? "departed_to_border" : "departed";
}

/** The run delivers the shipment (its deliver stop is pending) with no border to pass before. */
function deliversNext(run: NetworkRun, waybill: string): boolean {
  const delivers = run.stops.findIndex((s) =>
    s.kind === "deliver" && s.waybill === waybill && s.status === "pending"
  );
  const toPass = (s: Stop) =>
    s.kind === "checkpoint" && (s.status === "pending" || s.status === "presented");
  return delivers >= 0 && !run.stops.slice(0, delivers).some(toPass);
}

/**
 * spec: courier 3.2 (delivery_attempt opens when out for delivery): a shipment a delivery run
 * takes across a border goes out for delivery once the vehicle has entered with it and customs
 * cleared or released it, whichever comes last, when no other border is left before its deliver
 * stop. Both steps call this; keyed by the crossing, so either, or a retry, moves it once.
 */
export async function outForDeliveryPastBorder(
  runtime: ActorRuntime,
  tenant: string,
  crossing: Crossing,
  by: string,
): Promise<void> {
  const settled = crossing.status === "cleared" || crossing.status === "released";
  if (!settled || crossing.entry_at === null || crossing.vehicle_left_at !== null) return;
  if (crossing.run_id === null) return;
  const got = await runtime.read(networkRunActor, tenant, crossing.run_id, { kind: "get" });
  if (!got.ok) return;
  const run = asRun(got.reply);
  const aboard = run.items.some((i) => i.waybill === crossing.waybill && i.state === "on_board");
  if (!aboard || !deliversNext(run, crossing.waybill)) return;
  await recordOnce(runtime, tenant, crossing.waybill, `customs:${crossing.id}:out_for_delivery`, {
    event: "out_for_delivery",
    holder: holderOf(run),
    pieces: carriedPieces(run.stops, crossing.waybill),
    by,
  });
}

/** The pieces a run carries of a shipment: those its collect labels name, else all (null). */
export function carriedPieces(stops: readonly Stop[], waybill: string): string[] | null {
  for (const stop of stops) {
    const got = stop.collected.find((x) => x.waybill === waybill);
    if (!got) continue;
    const named = got.labels.filter((l) => l.startsWith(`${waybill}-`));
    return named.length > 0 ? named : null;
  }
  return null;
}

/** Books a later charge caused by a run (courier 2.6 rule 3); the source event books once. */
export async function runCharge(
  c: Context<AppEnv>,
  waybill: string,
  charge: Omit<LaterCharge, "by">,
): Promise<void> {
  const s = await shipmentOf(c, waybill);
  const r = await postLaterCharge(c.get("env").runtime, s, {
    ...charge,
    by: principalName(businessPrincipalOf(c)),
  });
  if (r && !r.ok) throw fromRejection(r);
}

/**
 * A later charge of a run's work that no shipment carries, on the client the work order names
 * (a collection that failed picked nothing up): priced on the client's card in force now.
 */
export async function workOrderCharge(
  c: Context<AppEnv>,
  clientId: string,
  charge: Omit<LaterCharge, "by">,
): Promise<void> {
  const env = c.get("env");
  const principal = businessPrincipalOf(c);
  const r = await postClientCharge(env.runtime, principal.business.id, clientId, {
    ...charge,
    by: principalName(principal),
  }, env.clock.now());
  if (r && !r.ok) throw fromRejection(r);
}

/** The holder named on custody moves made by a run: its driver, else its vehicle. */
export function holderOf(run: Pick<NetworkRun, "id" | "driver_id" | "vehicle">): string {
  return run.driver_id ? `driver:${run.driver_id}` : `vehicle:${run.vehicle ?? run.id}`;
}

/**
 * A load in the units the run was described in (courier 2.10: kg, m3, pieces, cold slots); the
 * actor counts exact grams and cm3.
 */
export function loadView(l: Load) {
  return { kg: l.grams / 1000, m3: l.cm3 / 1_000_000, pieces: l.pieces, cold_slots: l.cold_slots };
}

function stopView(s: Stop) {
  return {
    ...s,
    work_order: s.work_order
      ? { ...s.work_order, reserved: loadView(s.work_order.reserved) }
      : null,
    collected: s.collected.map((x) => ({ ...x, load: loadView(x.load) })),
    exit_at: iso(s.exit_at),
    entry_at: iso(s.entry_at),
    waiting_waybill: s.waiting_waybill ?? null,
  };
}

function itemView(i: RunItem) {
  const { departed_at: _departed, ...fields } = i;
  return { ...fields, load: loadView(i.load) };
}

function historyView(h: NetworkRun["history"][number]) {
  return { ...h, at: iso(h.at) };
}

function summaryView(r: RunSummary) {
  return {
    ...r,
    capacity: loadView(r.capacity),
    load: loadView(r.load),
    created_at: iso(r.created_at),
    closed_at: iso(r.closed_at),
  };
}

/**
 * What operations sees of a run: loads in kg and m3, amounts as decimals of their currency and
 * times in ISO 8601, as the rest of the API states them (courier 9.4).
 */
export function runView(run: NetworkRun) {
  const {
    departed_at: _departed,
    unassigned_times: _unassigned,
    cold_chain_waybills: _cold,
    ...fields
  } = run;
  return {
    ...fields,
    capacity: loadView(run.capacity),
    stops: run.stops.map(stopView),
    items: run.items.map(itemView),
    expenses: run.expenses.map(({ amount_minor, at, ...e }) => ({
      ...e,
      amount: decimal(amount_minor, e.currency),
      at: iso(at),
    })),
    history: run.history.map(historyView),
    created_at: iso(run.created_at),
    closed_at: iso(run.closed_at),
  };
}

/** What a driver sees of a run (courier 2.10): no declared or customs values, no money. */
export function driverView(run: NetworkRun) {
  return {
    id: run.id,
    facility_id: run.facility_id,
    kind: run.kind,
    countries: run.countries,
    vehicle: run.vehicle,
    status: run.status,
    stops: run.stops.map(driverStopView),
    items: run.items.map(driverItemView),
  };
}

function driverStopView(s: Stop) {
  return {
    id: s.id,
    kind: s.kind,
    waybill: s.waybill,
    status: s.status,
    country: s.country,
    to_country: s.to_country,
    border_post: s.border_post,
    work_order: s.work_order
      ? { sender: s.work_order.sender, recipient: s.work_order.recipient }
      : null,
    collected: s.collected.map((x) => ({ waybill: x.waybill, labels: x.labels })),
    exit_at: iso(s.exit_at),
    entry_at: iso(s.entry_at),
  };
}

function driverItemView(i: RunItem) {
  return { waybill: i.waybill, state: i.state, stop_id: i.stop_id };
}

/** What a stop action answers the caller: a driver sees no values (courier 2.10). */
export function stopActionView(answer: StopAnswer, forDriver: boolean) {
  const { capacity: _capacity, load: _load, ...standing } = summaryView(answer.run);
  return forDriver
    ? {
      run: standing,
      stop: driverStopView(answer.stop),
      items: answer.items.map(driverItemView),
    }
    : {
      run: summaryView(answer.run),
      stop: stopView(answer.stop),
      items: answer.items.map(itemView),
      history: answer.history.map(historyView),
    };
}
