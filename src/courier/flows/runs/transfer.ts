/**
 * Transfers items to another open run of the courier, which carries them on (spec: courier 3.4
 * transferred is an end state on this run only). The target takes them first, then this run
 * marks them transferred and records the custody moves that follow, then the moves are made: each
 * step is keyed (the request's idempotency_key, else what it transfers where) or repeats as
 * nothing, so a retry completes the rest and repeats none. The target records with the items it
 * took that this run must mark them (`transfer_out`, a follow-up): after a crash between the two
 * runs' commits the run follow-ups reactor does it, without waiting for the caller to retry.
 */
import {
  isEnded,
  type NetworkRun,
  transferFollowUps,
  transferKey,
  transferStepKey,
  transferTarget,
  withColdSlots,
} from "../../../../actors/courier/network_run/mod.ts";
import { refuse, Refused } from "../../../runtime/actor.ts";
import { askRun, readRun, runFor } from "./ask.ts";
import { invalid, type RunCaller, type RunDeps } from "./caller.ts";
import { changeAndFollow, followThrough } from "./follow_ups.ts";
import { boardRun } from "./loads.ts";
import { passCustoms } from "./customs_gate.ts";
import { reserveRunStep } from "../run_steps.ts";
import { GIVEN_BACK } from "./perform.ts";
import { claimBack, lostClaim, passClaim } from "./planning.ts";
import type { RunActionInput } from "./run_actions.ts";

export async function transfer(
  deps: RunDeps,
  caller: RunCaller,
  runId: string,
  body: RunActionInput,
): Promise<NetworkRun> {
  const run = await runFor(deps, caller, runId);
  const { waybills, to_run: toRun } = body;
  if (!waybills || waybills.length === 0 || !toRun) {
    invalid([
      ...(!waybills || waybills.length === 0
        ? [{ path: "waybills", message: "the waybills to transfer" }]
        : []),
      ...(!toRun ? [{ path: "to_run", message: "the run that takes them" }] : []),
    ]);
  }
  if (toRun === run.id) invalid([{ path: "to_run", message: `the run itself: ${toRun}` }]);
  const target = await readRun(deps, caller.tenant, toRun).catch((e) => {
    if (e instanceof Refused && e.rejection.code === "not_found") {
      refuse("not_found", `to_run: network run not found: ${toRun}`);
    }
    throw e;
  });
  if (target.status === "closed") {
    invalid([{ path: "to_run", message: `the run is closed: ${toRun}` }]);
  }
  const open = await transferable(deps, caller, run, waybills, toRun);
  // spec: courier 3.4: an item's end state is what happened to it: a shipment operations closed
  // (delivered, returned) is not moved to another run. Reserved as deliver and collect do, so a
  // scan closing it from now on has the run void this transfer of it (shipment_gate.ts).
  for (const i of open) {
    const step = { key: transferStepKey(run, waybills, toRun, i.waybill), run_id: run.id };
    await reserveRunStep(deps.runtime, caller.tenant, { waybill: i.waybill, step }, "transferred");
  }
  // spec: courier 3.4: a shipment customs holds stays where customs has it: its end state on this
  // run is customs hold (report), never a transfer that moves its custody to another run.
  const gates: Record<string, string> = {};
  for (const i of open) {
    // A hold landing from now on voids this transfer of it (customs_gate.ts).
    const at = { run, waybill: i.waybill };
    gates[i.waybill] = await passCustoms(deps, caller, at, "transferred (report it customs_hold)");
  }
  // spec: courier 3.4: one run carries a shipment out: its claim passes to the target, refused
  // when this run handed the shipment over and another run plans it now (planning.ts).
  const claims: Record<string, string> = {};
  for (const i of open) {
    claims[i.waybill] = await passClaim(deps, caller, {
      from: run.id,
      to: toRun,
      waybill: i.waybill,
    });
  }
  return await moveOver(deps, caller, { run, target, open, waybills, gates, claims, body });
}

/**
 * The items of `waybills` still open on the run; refused before the target takes anything when
 * one is missing, or has its end state (it stays as it ended). A transfer that stopped between
 * the target taking the items and this run refusing them is completed here: the target gives
 * back what it took.
 */
async function transferable(
  deps: RunDeps,
  caller: RunCaller,
  run: NetworkRun,
  waybills: readonly string[],
  toRun: string,
) {
  const items = run.items.filter((i) => waybills.includes(i.waybill));
  const missing = waybills.find((w) => !items.some((i) => i.waybill === w));
  if (missing) refuse("not_on_run", `${missing} is not on this run`);
  const open = items.filter((i) => !isEnded(i));
  const ended = items.find((i) =>
    isEnded(i) && !(i.state === "transferred" && i.to_run === toRun) &&
    !open.some((o) => o.waybill === i.waybill)
  );
  if (ended) {
    await giveBack(deps, caller, run.id, toRun, [ended.waybill]);
    refuse(
      "not_transferable",
      `${ended.waybill} cannot be transferred: it has its end state: ${ended.state}`,
    );
  }
  return open;
}

/**
 * The target gives back what a transfer this run refused took (one item ended here), and the
 * claims that passed to it come back.
 */
async function giveBack(
  deps: RunDeps,
  caller: RunCaller,
  fromRun: string,
  toRun: string,
  waybills: readonly string[],
  key: string | null = null,
) {
  const command = { kind: "transfer_in_undo", from_run: fromRun, waybills, by: caller.by } as const;
  await askRun(deps, caller, toRun, command, key);
  await claimsBack(deps, caller.tenant, fromRun, toRun, waybills);
}

/** The claims that passed to the target of a transfer refused come back (planning.ts claimBack). */
async function claimsBack(
  deps: RunDeps,
  tenant: string,
  from: string,
  to: string,
  waybills: readonly string[],
) {
  for (const waybill of waybills) await claimBack(deps.runtime, tenant, { from, to, waybill });
}

/** A transfer checked: the items still open here, their customs gates and passed claims. */
interface Moving {
  readonly run: NetworkRun;
  readonly target: NetworkRun;
  readonly open: NetworkRun["items"];
  readonly waybills: readonly string[];
  readonly gates: Readonly<Record<string, string>>;
  readonly claims: Readonly<Record<string, string>>;
  readonly body: RunActionInput;
}

/** The target takes the open items, then this run marks them transferred; then custody moves. */
async function moveOver(deps: RunDeps, caller: RunCaller, t: Moving): Promise<NetworkRun> {
  const { run, target, waybills, body } = t;
  const toRun = target.id;
  // The custody move is keyed by what moves where, whatever key the request sends.
  const moved = transferKey(run, waybills, toRun);
  const key = body.idempotency_key ? `transfer:${toRun}:${body.idempotency_key}` : moved;
  // The caller's key with another request is refused before the target takes anything.
  const request = body.idempotency_key ? body : undefined;
  const { run: taken, batch } = await takeIn(deps, caller, t, `${run.id}:${key}`, request);
  // The target's follow-up (this run marking the items) is what this request does next.
  const targetDone = () => followThrough(deps.runtime, caller.tenant, toRun, batch, []);
  const command = {
    kind: "transfer",
    waybills,
    to_run: toRun,
    to: transferTarget(target, taken, waybills),
    gates: t.gates,
    by: caller.by,
  } as const;
  const after = await changeAndFollow(deps, caller, {
    runId: run.id,
    command,
    key,
    request,
    followUps: (next) => transferFollowUps(run, next, command),
  }).catch(async (e) => {
    // An item ended here after the check (delivered meanwhile), or customs held it meanwhile:
    // the target gives back what it took, so no shipment rides on two runs. A crash before this leaves the target's follow-up
    // to do it (network_run transfer_out).
    const code = e instanceof Refused ? e.rejection.code : null;
    if (code !== null && GIVEN_BACK.has(code)) {
      const waybills = t.open.map((i) => i.waybill);
      await giveBack(deps, caller, run.id, toRun, waybills, `${run.id}:${key}:undo`);
      await targetDone();
    }
    throw e;
  });
  await targetDone();
  return after;
}

/**
 * The target takes the open items under their gates and the claims that passed to it. Refused,
 * it took nothing: the claims come back, and one it let go meanwhile (courier 3.4: another run
 * plans the shipment now) is refused naming that run.
 */
async function takeIn(
  deps: RunDeps,
  caller: RunCaller,
  t: Moving,
  key: string,
  request: RunActionInput | undefined,
) {
  const toRun = t.target.id;
  // Boarding is recorded before the target counts the items, so a cold-chain profile set from
  // now on finds the target too (reserveColdSlots); one set since this run was read counts here.
  const items = [];
  for (const i of t.open) {
    const cold = await boardRun(deps.runtime, caller.tenant, i.waybill, toRun);
    items.push({ waybill: i.waybill, load: withColdSlots(i.load, cold) });
  }
  const { gates, claims } = t;
  const { by } = caller;
  const command = { kind: "transfer_in", from_run: t.run.id, items, gates, claims, by } as const;
  return await askRun(deps, caller, toRun, command, key, request).catch(async (e) => {
    if (!(e instanceof Refused)) throw e;
    await claimsBack(deps, caller.tenant, t.run.id, toRun, t.open.map((i) => i.waybill));
    const lost = e.rejection.details?.waybill;
    const waybill = typeof lost === "string" ? lost : undefined;
    return await lostClaim(deps, caller, { runId: toRun, waybill }, e);
  });
}
