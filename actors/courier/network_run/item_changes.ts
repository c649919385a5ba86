/**
 * The changes to a run's items (courier 3.4): transfers to and from another run, and reports of
 * an item missing, damaged, returned or held by customs. An item with its end state stays as it
 * ended.
 */
import { reject } from "../../../src/runtime/actor.ts";
import type { RunChange } from "./commands.ts";
import {
  addLoad,
  boardingState,
  coldLoad,
  holdsOpen,
  isEnded,
  ITEMS_MAX,
  itemsWhere,
  loadOf,
  type NetworkRun,
  openTwin,
  overCapacity,
  reservedOpen,
  RUN_TEXT_CHARS_MAX,
  type RunItem,
} from "./run.ts";
import { voidedGate } from "./customs_gate.ts";
import { transferKey, transferStepKey } from "./transfer_follow_ups.ts";
import { voidedStep } from "./shipment_gate.ts";
import { entry, SAME, type Step } from "./step.ts";

type Change<K extends RunChange["kind"]> = Extract<RunChange, { kind: K }>;

export function transfer(run: NetworkRun, c: Change<"transfer">, now: number): Step {
  if (c.to_run === run.id) return reject("invalid_transfer", "a run cannot transfer to itself");
  const missing = c.waybills.find((w) => !run.items.some((i) => i.waybill === w));
  if (missing) return reject("not_on_run", `${missing} is not on this run`);
  // An item with its end state stays as it ended (spec: courier 3.4); one already transferred
  // to this same run is this transfer again (a retry after a crash).
  const again = (i: RunItem) => i.state === "transferred" && i.to_run === c.to_run;
  const ended = run.items.find((i) =>
    c.waybills.includes(i.waybill) && isEnded(i) && !again(i) && !openTwin(run, i)
  );
  if (ended) {
    return reject(
      "not_transferable",
      `${ended.waybill} cannot be transferred: it has its end state: ${ended.state}`,
    );
  }
  const items = itemsWhere(run, (i) => c.waybills.includes(i.waybill) && !isEnded(i));
  if (items.length === 0) return SAME;
  for (const [waybill, gate] of Object.entries(c.gates ?? {})) {
    const voided = voidedGate(run, waybill, gate);
    if (voided) return voided;
  }
  // spec: courier 3.4: a shipment operations closed while the transfer was under way stays as
  // it ended (src/courier/flows/runs/transfer.ts reserves it; shipment_gate.ts).
  for (const waybill of items.map((n) => run.items[n]!.waybill)) {
    const closed = voidedStep(run, transferStepKey(run, c.waybills, c.to_run, waybill), waybill);
    if (closed) return closed;
  }
  return [{
    kind: "transferred",
    to_run: c.to_run,
    items,
    key: transferKey(run, c.waybills, c.to_run),
    entry: entry("transfer", c.by, now, c.to_run),
  }];
}

export function transferIn(run: NetworkRun, c: Change<"transfer_in">, now: number): Step {
  // Items already carried (not ended) are this transfer again: added once.
  const carried = (w: string) => run.items.some((i) => i.waybill === w && !isEnded(i));
  const added = c.items.filter((x) => !carried(x.waybill));
  if (added.length === 0) return SAME;
  // spec: courier 3.4: a claim this run let go means another run plans the shipment now.
  const lost = added.find((x) => (run.released_claims ?? []).includes(c.claims?.[x.waybill] ?? ""));
  if (lost) {
    return reject(
      "planned_on_another_run",
      `${lost.waybill} is planned on another run since: run ${run.id} let it go`,
      { waybill: lost.waybill },
    );
  }
  if (run.items.length + added.length > ITEMS_MAX) {
    return reject("run_full", `a run carries at most ${ITEMS_MAX} items`);
  }
  const state = boardingState(run);
  const items: RunItem[] = added.map((x) => ({
    waybill: x.waybill,
    state,
    load: coldLoad(run, x.waybill, x.load),
    exception: null,
    stop_id: null,
  }));
  const next = { ...run, items: [...run.items, ...items] };
  const over = overCapacity(addLoad(loadOf(next), reservedOpen(run)), run.capacity);
  if (over) {
    return reject(
      "capacity_exceeded",
      `to_run ${run.id}: the transferred items exceed the run's ${over} capacity`,
    );
  }
  return [{ kind: "transferred_in", items, entry: entry("transfer_in", c.by, now, c.from_run) }];
}

export function transferInUndo(run: NetworkRun, c: Change<"transfer_in_undo">, now: number): Step {
  const undone = new Set(c.waybills);
  // An item the shipment's close ended meanwhile (itemClosed) is taken back too: the transfer
  // was refused, so this run never had the parcel to end (courier 3.4: one run carries it).
  const taken = (i: RunItem) => !isEnded(i) || CLOSED_STATES.has(i.state);
  const items = itemsWhere(run, (i) => undone.has(i.waybill) && i.stop_id === null && taken(i));
  if (items.length === 0) return SAME;
  return [{
    kind: "transfer_in_undone",
    items,
    entry: entry("transfer_in_undone", c.by, now, c.from_run),
  }];
}

export function report(run: NetworkRun, c: Change<"report">, now: number): Step {
  const items = run.items.filter((i) => i.waybill === c.waybill);
  if (items.length === 0) return reject("not_on_run", `${c.waybill} is not on this run`);
  // An item with its end state (delivered, transferred...) stays as it ended (courier 3.4): a
  // delivered item is not reported missing afterwards.
  if (items.every(isEnded)) {
    if (items.at(-1)!.state === c.condition) return SAME; // the same report again
    return reject(
      "not_reportable",
      `${c.waybill} cannot be reported: it has its end state: ${items.at(-1)!.state}`,
    );
  }
  if (c.note.trim() === "") return reject("note_required", "a report needs a note");
  // spec: courier 3.4: customs released or cleared it while this report was under way.
  const voided = c.condition === "customs_hold" ? voidedGate(run, c.waybill, c.gate) : null;
  if (voided) return voided;
  return [{
    kind: "reported",
    condition: c.condition,
    exception: c.note.slice(0, RUN_TEXT_CHARS_MAX),
    items: itemsWhere(run, (i) => i.waybill === c.waybill && !isEnded(i)),
    entry: entry("report", c.by, now, `${c.waybill}: ${c.condition}`),
  }];
}

/** The end states an item takes from its shipment's close (itemClosed). */
const CLOSED_STATES: ReadonlySet<RunItem["state"]> = new Set(["delivered", "returned"]);

/**
 * spec: courier 3.4: an item's end state is what happened to it: one whose shipment operations
 * delivered, returned or cancelled while the run held it (the shipment's close told the run, or
 * its custody move met it closed) ends so here, as the shipment ended; one already ended stays as
 * it ended.
 */
export function itemClosed(run: NetworkRun, c: Change<"item_closed">, now: number): Step {
  const items = itemsWhere(run, (i) => i.waybill === c.waybill && !isEnded(i));
  if (items.length === 0) return SAME;
  // spec: courier 3.4 lists the end states a run closes with: a shipment cancelled (only before
  // the courier had it, isCancellable) never left its sender, so it is returned to origin there.
  const state = c.status === "cancelled" ? "returned" : c.status;
  const detail = c.status === "cancelled" ? "cancelled: returned to origin" : c.status;
  return [{
    kind: "item_closed",
    state,
    items,
    entry: entry("item_closed", c.by, now, `${c.waybill}: ${detail}`),
  }];
}

/**
 * spec: courier 3.4: a shipment is planned on one run at a time. This run lets its claim on it go
 * unless it has the shipment open (planned, on board, unloaded for a stop here, without its end
 * state: holdsOpen); a closed run has none open and adds nothing more.
 */
export function letGo(run: NetworkRun, c: Change<"let_go">, now: number): Step {
  if (run.status === "closed") return SAME;
  if (holdsOpen(run, c.waybill)) {
    return reject(
      "planned_on_another_run",
      `${c.waybill} is planned on run ${run.id}: it can be planned on another once it has its ` +
        `end state there or that run closes`,
      { run_id: run.id },
    );
  }
  if ((run.released_claims ?? []).includes(c.claim)) return SAME;
  return [{
    kind: "claim_released",
    waybill: c.waybill,
    claim: c.claim,
    entry: entry("let_go", c.by, now, c.waybill),
  }];
}
