/**
 * Asking a run (courier 4.5): a change is kept for good under the request's idempotency key, so
 * a replay after lost signal applies nothing again and answers the first; another request under
 * the same key is refused. Refusals are thrown as domain refusals (Refused).
 */
import {
  asRun,
  type NetworkRun,
  networkRunActor,
  type NetworkRunState,
  runAt,
  type RunChange,
  type RunCommand,
  type RunReply,
  type StopAck,
  type StopAnswer,
  stopAnswer,
  type StopChange,
} from "../../../../actors/courier/network_run/mod.ts";
import { orRefuse, refuse, Refused } from "../../../runtime/actor.ts";
import { newId } from "../../../runtime/ids.ts";
import { canonicalJson, sha256Hex } from "../../../domain/secrets.ts";
import type { RunCaller, RunDeps } from "./caller.ts";

/** The run as it stands; Refused `not_found` for another tenant's (or no) run. */
export async function readRun(deps: RunDeps, tenant: string, runId: string): Promise<NetworkRun> {
  return asRun(orRefuse(await deps.runtime.read(networkRunActor, tenant, runId, { kind: "get" })));
}

/**
 * The run, for a driver only when it is assigned to them and open (else not found): spec:
 * courier 4.5, a driver is limited to the runs assigned to them, and a closed run is no longer
 * their work (their list shows open runs only; the shipments' entries go as the run closes).
 */
export async function runFor(deps: RunDeps, caller: RunCaller, runId: string): Promise<NetworkRun> {
  const run = await readRun(deps, caller.tenant, runId);
  // As a run that does not exist answers (network_run decide).
  if (
    caller.driver_id !== null && (run.driver_id !== caller.driver_id || run.status === "closed")
  ) {
    refuse("not_found", "network run not found");
  }
  return run;
}

/** The stop of the run; Refused `not_found` when it has none by that id. */
export function stopOf(run: NetworkRun, stopId: string) {
  return run.stops.find((s) => s.id === stopId) ??
    refuse("not_found", `no stop ${stopId} on run ${run.id}`);
}

/** A change the run accepted, read back: the run as it stands, and the follow-ups it recorded. */
export interface Changed {
  readonly run: NetworkRun;
  /** The batch of follow-ups to say done once done (absent: none, or a replay's first). */
  readonly batch: string | null;
}

/**
 * Asks the run for a change, then reads it: a change answers only an acknowledgement, which is
 * what is kept for good under `key`. `request` is what the caller sent under its key: the same
 * key with another request is refused (changeRun).
 */
export async function askRun(
  deps: RunDeps,
  caller: RunCaller,
  runId: string,
  command: RunCommand,
  key: string | null = null,
  request?: Readonly<Record<string, unknown>>,
): Promise<Changed> {
  const reply = await changeRun(deps, caller, runId, command, key, request);
  const batch = "follow_ups" in reply ? reply.follow_ups ?? null : null;
  return { run: await readRun(deps, caller.tenant, runId), batch };
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
 * Asks the run for a change, kept for good under `key`. spec: courier 4.5: a replay (the same
 * request under its key) answers the first; another request under the same key is refused 409,
 * never answered as the first while the steps after it (custody moves, charges) are made for
 * what it names. The run compares the two in turn, so two sent at once are told apart too.
 */
export async function changeRun(
  deps: RunDeps,
  caller: RunCaller,
  runId: string,
  command: RunCommand,
  key: string | null,
  request?: Readonly<Record<string, unknown>>,
): Promise<RunReply> {
  const digest = key && request ? requestDigest(request) : null;
  const keyed = digest && command.kind !== "create" && command.kind !== "get" &&
    command.kind !== "keyed" && command.kind !== "as_driver" && command.kind !== "follow_ups_done";
  const change = keyed ? { kind: "keyed", request: digest, change: command } as const : command;
  const r = await deps.runtime.ask(
    networkRunActor,
    caller.tenant,
    runId,
    asCaller(caller, change),
    key
      ? { idempotencyKey: `run:${runId}:${key}`, permanent: true, requestId: deps.requestId }
      : { requestId: deps.requestId },
  );
  const reply = orRefuse(r);
  const first = "request" in reply ? reply.request : undefined;
  // A reply kept before requests were named answers as the replay it was taken for.
  if (r.ok && r.replayed && digest && first !== undefined && first !== digest) keyReused(runId);
  return reply;
}

function keyReused(runId: string): never {
  return refuse(
    "idempotency_key_reused",
    `idempotency_key already used on run ${runId} for another request`,
  );
}

/**
 * Throws what asking the run for `change` under `key` would be refused with now, decided on the
 * run as read by its own pure decide: for a change that keeps something before it is asked (an
 * expense's receipt), so that a refused request keeps nothing (bad input changes nothing). A
 * replay of the same request refuses nothing.
 */
export async function refuseAsRunWould(
  deps: RunDeps,
  caller: RunCaller,
  run: NetworkRun,
  o: { change: RunChange; key: string; request: Readonly<Record<string, unknown>> },
): Promise<void> {
  const digest = requestDigest(o.request);
  const kept = await deps.runtime.replyUnder(networkRunActor, run.id, `run:${run.id}:${o.key}`);
  if (kept !== null) {
    const reply = kept.reply;
    const first = reply && "request" in reply ? reply.request : undefined;
    if (first !== undefined && first !== digest) keyReused(run.id);
    return;
  }
  const keyed = { kind: "keyed", request: digest, change: o.change } as const;
  const ctx = { now: deps.runtime.clock.now(), newId };
  const d = networkRunActor.decide(run, asCaller(caller, keyed), ctx);
  if (!d.ok) throw new Refused(d);
}

/**
 * The change as the caller makes it: a driver's is checked in the run's turn (as_driver). A
 * transfer's target is another run, not the driver's.
 */
function asCaller(caller: RunCaller, c: RunCommand): RunCommand {
  const inner = c.kind === "keyed" ? c.change : c;
  if (caller.driver_id === null || NOT_THE_DRIVERS.has(inner.kind)) return c;
  const change = c as RunChange | Extract<RunCommand, { kind: "keyed" }>;
  return { kind: "as_driver", driver_id: caller.driver_id, change };
}

/** Commands a driver's request sends that are not a change of the driver's own run. */
const NOT_THE_DRIVERS: ReadonlySet<RunCommand["kind"]> = new Set([
  "create",
  "get",
  "as_driver",
  "follow_ups_done",
  "transfer_in",
  "transfer_in_undo",
]);

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

/** A stop action the run accepted: what it answers, and the follow-ups it recorded. */
export interface StopChanged {
  readonly answer: StopAnswer;
  readonly batch: string | null;
}

/**
 * Asks the run for a stop action and answers what the action answered (courier 4.5: a replay
 * after lost signal answers the first, not the run as it is now): the stop as the action left
 * it, its items and the run's standing, which is all the steps that follow need. A replay's
 * answer is rebuilt from the run's events up to the seq its kept reply names; a reply kept
 * before stop actions named one answers the run as it is.
 */
export async function askStop(
  deps: RunDeps,
  caller: RunCaller,
  runId: string,
  command: StopChange,
  key: string | null,
  request?: Readonly<Record<string, unknown>>,
): Promise<StopChanged> {
  const reply = (await changeRun(deps, caller, runId, command, key, request)) as Partial<StopAck>;
  const batch = reply.follow_ups ?? null;
  const kept = key ? `${caller.tenant}/${runId}/${key}` : null;
  if (reply.answer) {
    if (kept) rememberAnswer(deps.runtime, kept, reply.answer);
    return { answer: reply.answer, batch };
  }
  const answer = await answerOf(deps, caller, runId, command.stop_id, reply.seq, kept);
  return { answer, batch };
}

/** The answer of a replayed stop action, from memory or rebuilt from the log up to `seq`. */
async function answerOf(
  deps: RunDeps,
  caller: RunCaller,
  runId: string,
  stopId: string,
  seq: number | undefined,
  kept: string | null,
): Promise<StopAnswer> {
  const now = async () => stopAnswer(await readRun(deps, caller.tenant, runId), stopId);
  if (seq === undefined) return await now();
  // A replay soon after the first (lost signal) is answered from memory; after a restart the
  // answer is rebuilt from the run's log, which costs a read of the whole log.
  const recent = kept ? answersOf(deps.runtime).get(kept) : undefined;
  if (recent) return recent;
  const events: { seq: number; event: unknown }[] = [];
  for await (const e of deps.runtime.events(networkRunActor, runId)) {
    if (e.seq > seq) break;
    events.push(e);
  }
  // An event recorded before events stated outcomes is decided again to be read (legacy.ts):
  // one those rules no longer accept answers the run as it is now, as a reply kept before stop
  // actions named a seq does, rather than a 500 on every replay.
  let then: NetworkRunState;
  try {
    then = runAt(events, seq);
  } catch {
    return await now();
  }
  if (!then) throw new Error(`run ${runId} has no events up to ${seq}`);
  const answer = stopAnswer(then, stopId);
  if (kept) rememberAnswer(deps.runtime, kept, answer);
  return answer;
}
