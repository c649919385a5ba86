/**
 * The shopping_store actor's decisions on the shopper's work and the customer's answers (shopping
 * 3; CONTRACT "Driver app"): a line recorded once, a substitution as the order's preference makes
 * it, a decision window on a durable timer, and a store collected or unavailable once every line
 * is settled. Refusals are stable codes (STYLE 3); nothing here reads anything but the state.
 */
import {
  accept,
  type Ctx,
  reject,
  type Rejection,
  type TimerFired,
} from "../../src/runtime/actor.ts";
import type { ExternalId } from "../../src/shopping/rules/order.ts";
import {
  decisionTimer,
  reportProblem,
  resolveReport,
  windowClosed,
} from "../../src/shopping/rules/shopper.ts";
import {
  type Decided,
  lineOf,
  type ShoppingLine,
  type ShoppingStore,
  type ShoppingStoreCommand,
} from "./store_types.ts";

type Command<K extends ShoppingStoreCommand["kind"]> = Extract<ShoppingStoreCommand, { kind: K }>;

/** Every answer of a change is the store after it. */
const after = (s: ShoppingStore | null) => s;

/** spec: shopping 3: a store's part ends once: collected or unavailable. */
function finished(s: ShoppingStore): Rejection | null {
  if (s.status === "pending") return null;
  return reject(
    "store_finished",
    `the store was already ${s.status}: ${String(s.external_fulfilment_id)}`,
  );
}

function unknownLine(s: ShoppingStore, id: ExternalId): Decided {
  return reject(
    "not_found",
    `no item ${String(id)} at store ${String(s.external_fulfilment_id)} of this order`,
  );
}

function awaiting(l: ShoppingLine): Rejection {
  return reject(
    "decision_pending",
    `item ${String(l.external_item_id)} awaits the customer's decision on its substitute`,
  );
}

/** spec: shopping 3: the shopper's outcome of one line, as the preference makes a substitution. */
export function recordLine(s: ShoppingStore, c: Command<"record_line">, ctx: Ctx): Decided {
  const done = finished(s);
  if (done) return done;
  const line = lineOf(s, c.external_item_id);
  if (!line) return unknownLine(s, c.external_item_id);
  if (line.outcome === "awaiting_decision") return awaiting(line);
  if (line.outcome !== "pending") {
    return reject(
      "line_finished",
      `item ${String(line.external_item_id)} was already recorded ${line.outcome}`,
    );
  }
  const problem = reportProblem(c.report, line.qty);
  if (problem) return problem;
  const resolved = resolveReport(c.report, s.substitution_preference);
  const external_item_id = line.external_item_id;
  if (resolved.kind === "recorded") {
    const { kind: _, ...outcome } = resolved;
    return accept(
      [{ kind: "line_recorded", external_item_id, ...outcome, at: ctx.now }],
      after,
    );
  }
  // spec: shopping 3: under `ask` the customer decides within ask_timeout_minutes.
  const decide_by = ctx.now + c.ask_timeout_ms;
  return accept(
    [{
      kind: "decision_awaited",
      external_item_id,
      qty_found: c.report.qty_found ?? 0,
      unit_price_paid_minor: c.report.unit_price_paid_minor,
      substitute: c.report.substitute!,
      decide_by,
      event_id: ctx.newId("evt"),
      at: ctx.now,
    }],
    after,
    [{ op: "set", name: decisionTimer(external_item_id), at: decide_by }],
  );
}

/**
 * spec: shopping 3: the customer's accept or reject within the window; a line not awaiting one,
 * or a window closed, is 409 (the latter saying the item was refunded).
 */
export function decideLine(s: ShoppingStore, c: Command<"decide">, ctx: Ctx): Decided {
  const line = lineOf(s, c.external_item_id);
  if (!line) return unknownLine(s, c.external_item_id);
  const asked = line.decide_by;
  // A line once asked is closed unless the customer decided it: its window elapsed (the timer's
  // `preference`, or not yet fired), or the trip ended first and refunded it (tripEnded).
  const closed = asked !== null &&
    (line.outcome === "awaiting_decision" ? ctx.now >= asked : line.decided_by !== "customer");
  if (closed) return windowClosed(line.external_item_id);
  if (line.outcome !== "awaiting_decision") {
    return reject(
      "not_awaiting_decision",
      `item ${String(line.external_item_id)} is not awaiting a decision: ${line.outcome}` +
        (line.decided_by ? `, decided by the ${line.decided_by}` : ""),
    );
  }
  const accepted = c.decision === "accept";
  return accept(
    [{
      kind: "line_recorded",
      external_item_id: line.external_item_id,
      outcome: accepted ? "substituted" : "unavailable",
      qty_found: accepted ? line.qty_found ?? 0 : 0,
      unit_price_paid_minor: accepted ? line.unit_price_paid_minor : null,
      substitute: accepted ? line.substitute : null,
      decided_by: "customer",
      at: ctx.now,
    }],
    after,
    [{ op: "cancel", name: decisionTimer(line.external_item_id) }],
  );
}

/** spec: shopping 3: no answer in time: unavailable, decided_by preference, refunded. */
function windowEnded(line: ShoppingLine, ctx: Ctx): Decided {
  return accept(
    [{
      kind: "line_recorded",
      external_item_id: line.external_item_id,
      outcome: "unavailable",
      qty_found: 0,
      unit_price_paid_minor: null,
      substitute: null,
      decided_by: "preference",
      at: ctx.now,
    }],
    after,
    [{ op: "cancel", name: decisionTimer(line.external_item_id) }],
  );
}

/** The window's timer: a line still awaiting at its deadline is refunded; else nothing. */
export function expireDecision(s: ShoppingStore, timer: TimerFired, ctx: Ctx): Decided {
  const line = s.lines.find((l) =>
    decisionTimer(l.external_item_id) === timer.name && l.outcome === "awaiting_decision"
  );
  if (!line || line.decide_by === null || ctx.now < line.decide_by) return accept([]);
  return windowEnded(line, ctx);
}

/** The sandbox's timeout step: the window closes now, as its timer would close it. */
export function closeWindow(s: ShoppingStore, c: Command<"close_window">, ctx: Ctx): Decided {
  const line = lineOf(s, c.external_item_id);
  if (!line) return unknownLine(s, c.external_item_id);
  if (line.outcome !== "awaiting_decision") {
    return reject(
      "not_awaiting_decision",
      `item ${String(line.external_item_id)} is not awaiting a decision: ${line.outcome}`,
    );
  }
  return windowEnded(line, ctx);
}

/**
 * spec: shopping 3: why the store cannot be collected whatever its receipt (finished, a line
 * pending or awaiting the customer, nothing found), or null. The collection's flow asks it too
 * before it keeps the receipt photo, so a refused collection stores nothing.
 */
export function collectRefusal(s: ShoppingStore): Rejection | null {
  const done = finished(s);
  if (done) return done;
  const waiting = s.lines.find((l) => l.outcome === "awaiting_decision");
  if (waiting) return awaiting(waiting);
  const pending = s.lines.filter((l) => l.outcome === "pending");
  if (pending.length > 0) {
    return reject(
      "lines_pending",
      `${pending.length} item(s) not yet recorded, first: ${String(pending[0]!.external_item_id)}`,
    );
  }
  if (s.lines.every((l) => l.outcome === "unavailable")) {
    return reject(
      "nothing_found",
      "every item of this store is unavailable: mark the store unavailable instead",
    );
  }
  return null;
}

/**
 * spec: shopping 3: a store is collected with its till amount and receipt once every line is
 * settled (none pending, none awaiting the customer) and something was found.
 */
export function storeCollect(s: ShoppingStore, c: Command<"collect">, ctx: Ctx): Decided {
  const refused = collectRefusal(s);
  if (refused) return refused;
  if (c.receipt_photo === null) {
    return reject(
      "receipt_photo_required",
      "collecting a store needs its till receipt: a receipt_photo",
    );
  }
  return accept([{
    kind: "store_collected",
    collected_amount_minor: c.collected_amount_minor,
    receipt_photo: c.receipt_photo,
    event_id: ctx.newId("evt"),
    at: ctx.now,
  }], after);
}

/**
 * spec: shopping 3: a store the shopper could not buy at: its lines not yet recorded become
 * unavailable (the shopper's); refused once an item was found there (collect it instead).
 */
export function storeUnavailable(s: ShoppingStore, ctx: Ctx): Decided {
  const done = finished(s);
  if (done) return done;
  const waiting = s.lines.find((l) => l.outcome === "awaiting_decision");
  if (waiting) return awaiting(waiting);
  const found = s.lines.find((l) => l.outcome === "found" || l.outcome === "substituted");
  if (found) {
    return reject(
      "items_found",
      `item ${String(found.external_item_id)} was ${found.outcome} here: collect the store ` +
        "with its receipt instead",
    );
  }
  return accept([{
    kind: "store_unavailable",
    lines: s.lines.filter((l) => l.outcome === "pending").map((l) => l.external_item_id),
    event_id: ctx.newId("evt"),
    at: ctx.now,
  }], after);
}

/**
 * spec: business 3.1, shopping 1.1, 3: the trip was cancelled before this store was finished. No
 * till took money for it (only a collected store's receipt does), so every line not already
 * unavailable ends unavailable (refunded; one awaiting the customer's decision as no answer in
 * time ends, decided_by preference) and the store unavailable: its event is made and the
 * basket completes, so the goods bought at the stores collected are charged. A store already
 * finished stays as it is (a repeat, or one collected before the cancellation).
 */
export function tripEnded(s: ShoppingStore, ctx: Ctx): Decided {
  if (s.status !== "pending") return accept([], () => s);
  const open = s.lines.filter((l) => l.outcome !== "unavailable");
  const asked = open.filter((l) => l.outcome === "awaiting_decision");
  return accept(
    [{
      kind: "store_unavailable",
      lines: open.map((l) => l.external_item_id),
      // spec: shopping 3: no answer came before the order ended: refunded as by the preference.
      unanswered: asked.map((l) => l.external_item_id),
      event_id: ctx.newId("evt"),
      at: ctx.now,
    }],
    after,
    asked.map((l) => ({ op: "cancel" as const, name: decisionTimer(l.external_item_id) })),
  );
}
