/**
 * Planning a shipment's delivery on a run (courier 3.4: one shipment, one run that carries it
 * out). The shipment's runs actor holds the claim, taken in its turn, so of two runs planning it
 * at once one wins. Another run takes the claim over only once the run holding it has let it go
 * in that run's turn (network_run let_go): refused while it has the shipment open, else the claim
 * is kept there as let go, so an add still under way with it is refused. A crash between the
 * claim and the run's add leaves a claim its retry finds (the same run: the same claim) and that
 * blocks no other run (its run has not the shipment: it lets go).
 *
 * A collection takes the same claim (stop_actions.ts collect): a shipment collected on a run is
 * carried out by that run until it ends its item there or unloads it at a depot (holdsOpen).
 * Shipments collected or planned before claims were kept hold none: the next run planning one
 * finds a run it boarded that has it open and claims it for that run first (unclaimedKeeper), so
 * it is refused as if that run had claimed it then. Such holdings only end (the run adds nothing
 * more without a claim), so a look before the claim is taken cannot miss one.
 *
 * A transfer passes the claim to its target before the target takes the shipment (passClaim), so
 * a run that handed a shipment over and saw another run plan it transfers it nowhere; a transfer
 * refused after that gives the claim back (claimBack). Claims left on a run that transferred the
 * shipment before this still follow the transfer chain (keeperOf).
 */
import {
  asRun,
  holdsOpen,
  type NetworkRun,
  networkRunActor,
} from "../../../../actors/courier/network_run/mod.ts";
import {
  type PlannedOn,
  SHIPMENT_RUNS_MAX,
  shipmentRunsActor,
  type ShipmentRunsCommand,
} from "../../../../actors/courier/shipment_runs.ts";
import { foundOrNull, refuse, Refused } from "../../../runtime/actor.ts";
import type { ActorRuntime } from "../../../runtime/runtime.ts";
import type { RunCaller, RunDeps } from "./caller.ts";

/** Takeovers tried before giving up, when other runs keep taking the claim meanwhile. */
const PLAN_TRIES = 3;

/** The claim's token as a run keeps it (the shipment, the claim's number). */
function claimToken(waybill: string, claim: number): string {
  return `${waybill}#${claim}`;
}

function plannedElsewhere(waybill: string, runId: string): never {
  refuse(
    "planned_on_another_run",
    `${waybill} is planned on run ${runId}: it can be planned on another once it has its end ` +
      `state there (delivered, transferred, reported) or that run closes`,
  );
}

/**
 * Claims the shipment for delivery on run `runId`; answers the claim the run's add_stop (or
 * stop_collect) carries. Refused `planned_on_another_run`, naming the run, while another run has
 * it open.
 */
export async function planDelivery(
  deps: RunDeps,
  caller: RunCaller,
  runId: string,
  waybill: string,
): Promise<string> {
  const keeper = await unclaimedKeeper(deps, caller, { runId, waybill });
  if (keeper !== null) plannedElsewhere(waybill, keeper);
  let replacing: number | undefined;
  for (let tries = 0; tries <= PLAN_TRIES; tries++) {
    const asked = await askPlan(deps, caller, waybill, { run_id: runId, replacing });
    if ("token" in asked) return asked.token;
    await letGo(deps, caller, { held: asked.held, runId, waybill });
    replacing = asked.held.claim;
  }
  return plannedElsewhere(waybill, runId);
}

/**
 * A shipment no run holds a claim on, open on another run it boarded (collected or planned there
 * before claims were kept): the claim is taken for that run, which is answered; else null.
 */
async function unclaimedKeeper(
  deps: RunDeps,
  caller: RunCaller,
  at: { runId: string; waybill: string },
): Promise<string | null> {
  const { runId, waybill } = at;
  const read = { kind: "get" } as const;
  // As in keeperOf: a refused read is thrown, never taken for "no run has it".
  const r = foundOrNull(await deps.runtime.read(shipmentRunsActor, caller.tenant, waybill, read));
  if (r === null || (r.planned_on ?? null) !== null) return null;
  for (const other of r.runs.filter((id) => id !== runId)) {
    const got = foundOrNull(await deps.runtime.read(networkRunActor, caller.tenant, other, read));
    if (got === null || !holdsOpen(asRun(got), waybill)) continue;
    const asked = await askPlan(deps, caller, waybill, { run_id: other, replacing: undefined });
    // Another run claimed it meanwhile: the claim decides, as for any shipment.
    return "token" in asked ? other : null;
  }
  return null;
}

/**
 * Asks the shipment's runs actor for the claim: its token once taken, or the claim another run
 * holds (refused `planned_on_another_run`); any other refusal is thrown.
 */
async function askPlan(
  deps: RunDeps,
  caller: RunCaller,
  waybill: string,
  plan: { run_id: string; replacing: number | undefined; from_run?: string },
): Promise<{ token: string } | { held: PlannedOn }> {
  const command: Extract<ShipmentRunsCommand, { kind: "plan" }> = {
    kind: "plan",
    run_id: plan.run_id,
    ...(plan.from_run === undefined ? {} : { from_run: plan.from_run }),
    ...(plan.replacing === undefined ? {} : { replacing: plan.replacing }),
  };
  const r = await deps.runtime.ask(shipmentRunsActor, caller.tenant, waybill, command);
  if (r.ok) return { token: claimToken(waybill, r.reply.planned_on!.claim) };
  if (r.code !== "planned_on_another_run") throw new Refused(r);
  return { held: r.details as unknown as PlannedOn };
}

/**
 * spec: courier 3.4: a transfer moves the shipment on purpose, so its claim passes from run `from`
 * to run `to` (answers the claim `to`'s transfer_in carries). The claim is first made `from`'s as
 * a deliver stop would take it: refused `planned_on_another_run`, naming the run, while another
 * run has the shipment open (one `from` handed over that another run planned since). `to` holding
 * it already is this transfer again.
 */
export async function passClaim(
  deps: RunDeps,
  caller: RunCaller,
  at: { from: string; to: string; waybill: string },
): Promise<string> {
  const { from, to, waybill } = at;
  let replacing: number | undefined;
  for (let tries = 0; tries <= PLAN_TRIES; tries++) {
    const asked = await askPlan(deps, caller, waybill, { run_id: to, from_run: from, replacing });
    if ("token" in asked) return asked.token;
    if (asked.held.run_id === from) {
      replacing = asked.held.claim;
      continue;
    }
    await planDelivery(deps, caller, from, waybill);
    replacing = undefined;
  }
  return plannedElsewhere(waybill, from);
}

/**
 * A transfer refused after its claim passed to run `to` (the target took nothing, or gave it
 * back): the claim returns to run `from`, which still has the shipment, unless another run took
 * it over meanwhile or `to` has the shipment open (it took it with an earlier transfer).
 */
export async function claimBack(
  runtime: ActorRuntime,
  tenant: string,
  at: { from: string; to: string; waybill: string },
): Promise<void> {
  // A refused read (a full mailbox, a store failure) is thrown (503), never taken for "nothing
  // to give back": the claim would stay with a run that has not the shipment (courier 3.4).
  const read = { kind: "get" } as const;
  const r = foundOrNull(await runtime.read(shipmentRunsActor, tenant, at.waybill, read));
  const held = r?.planned_on ?? null;
  if (held?.run_id !== at.to) return;
  const to = foundOrNull(await runtime.read(networkRunActor, tenant, at.to, read));
  if (to !== null && holdsOpen(asRun(to), at.waybill)) return;
  const command = { kind: "plan", run_id: at.from, replacing: held.claim } as const;
  const back = await runtime.ask(shipmentRunsActor, tenant, at.waybill, command);
  // Another run took the claim over meanwhile: it is that run's now.
  if (!back.ok && back.code !== "planned_on_another_run") throw new Refused(back);
}

/**
 * The run holding the claim lets it go, or the refusal names the run that has the shipment open:
 * that run, or the run it transferred the shipment on to (read first, so no claim is let go for a
 * takeover refused).
 */
async function letGo(
  deps: RunDeps,
  caller: RunCaller,
  at: { held: PlannedOn; runId: string; waybill: string },
): Promise<void> {
  const { held, runId, waybill } = at;
  const keeper = await keeperOf(deps, caller.tenant, held.run_id, { runId, waybill });
  if (keeper !== null) plannedElsewhere(waybill, keeper);
  // A claim a transfer passed on before its target took the shipment (a crash between): the run
  // it came from still has the shipment until then.
  const sender = held.from_run && await keeperOf(deps, caller.tenant, held.from_run, at);
  if (sender) plannedElsewhere(waybill, sender);
  const command = {
    kind: "let_go",
    waybill,
    claim: claimToken(waybill, held.claim),
    by: caller.by,
  } as const;
  const r = await deps.runtime.ask(networkRunActor, caller.tenant, held.run_id, command);
  if (r.ok || r.code === "not_found") return;
  if (r.code === "planned_on_another_run") plannedElsewhere(waybill, held.run_id);
  throw new Refused(r);
}

/**
 * The run that has the shipment open, from `start` along the transfers that moved it on (a
 * transfer moves it on purpose, the claim staying behind), or null: none but `runId` has it.
 */
async function keeperOf(
  deps: RunDeps,
  tenant: string,
  start: string,
  to: { runId: string; waybill: string },
): Promise<string | null> {
  let at: string | undefined = start;
  for (let hops = 0; at && at !== to.runId && hops < SHIPMENT_RUNS_MAX; hops++) {
    // A run busy or failing may have it open: thrown, so the request answers it (503) rather
    // than take the claim from under it (courier 3.4: one run carries it out).
    const got = foundOrNull(await deps.runtime.read(networkRunActor, tenant, at, { kind: "get" }));
    if (got === null) return null;
    const run: NetworkRun = asRun(got);
    if (holdsOpen(run, to.waybill)) return run.id;
    const last = run.items.filter((i) => i.waybill === to.waybill).at(-1);
    at = last?.state === "transferred" ? last.to_run : undefined;
  }
  return null;
}

/**
 * Rethrows `e`; a step of run `runId` refused because the run let its claim go (another run
 * planned the shipment meanwhile) is refused naming the run that plans it now. While that run is
 * still taking the claim over, the claim still names `runId`: the run's own refusal ("run ... let
 * it go") is answered then, never a message naming the refused run as the one planning it.
 */
export async function lostClaim(
  deps: RunDeps,
  caller: RunCaller,
  at: { runId: string; waybill: string | undefined },
  e: unknown,
): Promise<never> {
  const { runId, waybill } = at;
  if (!(e instanceof Refused) || e.rejection.code !== "planned_on_another_run" || !waybill) {
    throw e;
  }
  const r = await deps.runtime.read(shipmentRunsActor, caller.tenant, waybill, { kind: "get" });
  const holder = r.ok ? r.reply.planned_on?.run_id : undefined;
  if (holder && holder !== runId) plannedElsewhere(waybill, holder);
  throw e;
}
