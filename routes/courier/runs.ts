/**
 * Courier 4.5, network runs and stops, for operations (business key, runs:operate unless stated)
 * and for the driver of the run (driver token; another driver's run answers 404). Both record the
 * same steps through the same orchestration (src/courier/runs.ts).
 */
import type { Context } from "hono";
import { sql } from "kysely";
import {
  isEnded,
  isUnassigned,
  ITEM_STATES,
  type NetworkRun,
  NO_LOAD,
  RUN_STATUSES,
  type RunSummary,
  type Stop,
  STOP_KINDS,
  STOP_STATUSES,
  withColdSlots,
} from "../../actors/courier/network_run.ts";
import { courierClientActor } from "../../actors/courier/courier_client.ts";
import { driverActor } from "../../actors/platform/driver.ts";
import {
  bookingCrossingIdOf,
  crossingIdOf,
  openCrossing,
  recordCrossing,
  vehicleLeft,
} from "../../src/courier/flows/customs.ts";
import { customsCrossingActor } from "../../actors/courier/customs_crossing/mod.ts";
import { raiseAlert } from "../../src/courier/flows/alerts.ts";
import { driverIdOf } from "../../src/courier/flows/driver_access.ts";
import { EVIDENCE_FILE_BYTES_MAX, storeEvidence } from "../../src/courier/flows/evidence.ts";
import { labHandedOver, labHandoverAllowed } from "../../src/courier/flows/lab.ts";
import { LATER_CHARGE_REFUSALS } from "../../src/courier/flows/later_charges.ts";
import { BODY_TOO_LARGE, mergeRefusals } from "../../src/http/refusals.ts";
import {
  askRun,
  askStop,
  boardRun,
  carriedPieces,
  departureEvent,
  driverView,
  holderOf,
  moveAll,
  moveShipment,
  outForDeliveryPastBorder,
  runCharge,
  runLoadOf,
  runView,
  shipmentOf,
  stopActionView,
  workOrderCharge,
} from "../../src/courier/flows/runs.ts";
import { isCurrencyCode } from "../../src/domain/iso_codes.ts";
import { toMinor } from "../../src/domain/money.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { business, driver } from "../../src/platform/auth/auth.ts";
import {
  businessPrincipalOf,
  principalName,
  requireScope,
} from "../../src/platform/auth/principal.ts";
import { courierPlatform } from "../../src/courier/auth.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { ApiError, validationFailed } from "../../src/http/errors.ts";
import { define, storableText, UNSTORABLE_TEXT, z } from "../../src/http/route.ts";
import { boundedForm, isMultipart, MULTIPART_OVERHEAD_BYTES_MAX } from "../../src/http/upload.ts";
import {
  Country,
  Currency,
  Money,
  orNull,
  PlainText,
  UtcInstant,
  Waybill,
} from "../../src/http/schemas.ts";
import { derivedId, newId } from "../../src/runtime/ids.ts";
import { sha256Hex } from "../../src/domain/secrets.ts";

const tag = "Network runs";
const operate = [business({ scope: "runs:operate" }), courierPlatform];
const asDriver = [driver, courierPlatform];

const Text = (max: number) => z.string().trim().min(1).max(max);
const Capacity = z.object({
  kg: z.number().nonnegative().max(100_000),
  m3: z.number().nonnegative().max(1_000),
  pieces: z.number().int().nonnegative().max(100_000),
  cold_slots: z.number().int().nonnegative().max(1_000).default(0),
});
/** An idempotency_key, as long as every request's may be (the expense form's too). */
const IDEMPOTENCY_KEY_CHARS_MAX = 120;
const IdempotencyKey = Text(IDEMPOTENCY_KEY_CHARS_MAX);
const RunParam = z.object({ run: Text(64) });
const StopParams = z.object({ run: Text(64), stop: Text(64) });

function loadOf(c: z.infer<typeof Capacity>) {
  return {
    grams: Math.round(c.kg * 1000),
    cm3: Math.round(c.m3 * 1_000_000),
    pieces: c.pieces,
    cold_slots: c.cold_slots,
  };
}

/** The run, for a driver only when it is assigned to them (else 404). */
async function runFor(c: Context<AppEnv>, runId: string): Promise<NetworkRun> {
  const run = await askRun(c, runId, { kind: "get" });
  const p = businessPrincipalOf(c);
  if (p.kind === "driver" && run.driver_id !== p.driver_id) {
    // As a run that does not exist answers (actors/network_run.ts).
    throw new ApiError("not_found", "network run not found");
  }
  return run;
}

function stopOf(run: NetworkRun, stopId: string): Stop {
  const stop = run.stops.find((s) => s.id === stopId);
  if (!stop) throw new ApiError("not_found", `no stop ${stopId} on run ${run.id}`);
  return stop;
}

/**
 * The shipment a stop's later charge is booked on, only when it is the stop's: a deliver stop's
 * waybill, a shipment of a collect stop's work-order client, or one the run carries (spec: courier
 * 2.6 rule 1, 4.6: a stop never charges another client's shipment). Else 422 on `waybill`.
 */
async function stopShipment(
  c: Context<AppEnv>,
  run: NetworkRun,
  stop: Stop,
  waybill: string,
): Promise<void> {
  const s = await shipmentOf(c, waybill);
  const its = stop.waybill
    ? s.waybill === stop.waybill
    : stop.work_order
    ? s.client_id === stop.work_order.courier_client_id
    : run.items.some((i) => i.waybill === s.waybill);
  if (!its) {
    throw validationFailed([{ path: "waybill", message: `not a shipment of stop ${stop.id}` }]);
  }
}

/** The view a caller gets: drivers never see values (courier 2.10). */
function viewFor(c: Context<AppEnv>, run: NetworkRun) {
  return businessPrincipalOf(c).kind === "driver" ? driverView(run) : runView(run);
}

// Waybills as typed, in any case (src/http/schemas.ts Waybill; courier 2.3: the waybill
// identifies the shipment).
const RunActionBody = z.object({
  idempotency_key: IdempotencyKey.optional(),
  waybills: z.array(Waybill).max(1_000).optional(),
  facility_id: Text(120).optional(),
  order: z.array(Text(64)).max(1_000).optional(),
  to_run: Text(64).optional(),
  waybill: Waybill.optional(),
  condition: z.enum(["missing", "damaged", "returned", "customs_hold"]).optional(),
  // spec: courier 2.6 rule 1: a wait's note is its charge's reason (PlainText).
  note: PlainText(500, { lines: true }).optional(),
  stop_id: Text(64).optional(),
  minutes: z.number().int().positive().max(24 * 60).optional(),
});

const StopActionBody = z.object({
  idempotency_key: IdempotencyKey.optional(),
  side: z.enum(["exit", "entry"]).optional(),
  waybill: Waybill.optional(),
  labels: z.array(Text(80)).max(500).optional(),
  // spec: courier 2.6 rule 1: a failed collection's reason is its charge's reason (PlainText).
  reason: PlainText(500, { lines: true }).optional(),
  lab_handover: z.boolean().optional(),
  received_by: Text(120).optional(),
  note: z.string().max(500).optional(),
});

/** Every change to a run (network_run.ts step). */
const RUN_CHANGE = { run_closed: "the run is closed" };
/** A change that adds to a run (network_run.ts GROWING_CHANGES, STOPS_MAX, ITEMS_MAX). */
const RUN_GROWS = {
  run_full: "the run holds no more stops, items or records: split the work into another run",
};

/** A change sent under an idempotency_key (src/courier/runs.ts changeRun). */
const KEYED_CHANGE = {
  ...RUN_CHANGE,
  idempotency_key_reused: "the idempotency_key was sent before with another request; nothing " +
    "was changed",
};

/** What each run action can refuse, besides the run itself not being found. */
const RUN_ACTION_REFUSALS = {
  depart: KEYED_CHANGE,
  arrive: { ...KEYED_CHANGE, run_not_departed: "arrive: the run has not departed" },
  unload: KEYED_CHANGE,
  reorder: {
    ...KEYED_CHANGE,
    validation_failed: "reorder: no `order`",
    invalid_order: "reorder: `order` does not list every stop of the run exactly once",
  },
  transfer: {
    ...KEYED_CHANGE,
    ...RUN_GROWS,
    validation_failed: "transfer: no waybills or to_run, to the run itself, or to a closed run",
    not_found: "transfer: to_run is none of the courier's runs",
    not_on_run: "transfer or report: a waybill named is not on the run",
    not_transferable: "transfer: a waybill has its end state on the run",
    capacity_exceeded: "transfer: the items exceed to_run's capacity",
  },
  report: {
    ...KEYED_CHANGE,
    ...RUN_GROWS,
    validation_failed: "report: no waybill, condition or note, or customs_hold while customs " +
      "holds no crossing of the shipment",
    not_on_run: "transfer or report: a waybill named is not on the run",
    not_reportable: "report: the shipment has its end state on the run",
    // A shipment reported returned books its return charge.
    ...LATER_CHARGE_REFUSALS,
  },
  close: {
    ...KEYED_CHANGE,
    items_without_end_state: "close: items on the run lack an explicit end state",
  },
  waiting: {
    ...KEYED_CHANGE,
    scope_denied: "waiting: the credential lacks the scope `billing:administer`",
    validation_failed: "waiting: no stop_id, minutes or shipment, or a shipment not of the stop",
    not_found: "waiting: no such stop on the run, or no shipment by that waybill",
    reference_conflict: "waiting: the stop's wait was charged for another shipment (one per stop)",
    ...LATER_CHARGE_REFUSALS,
  },
} as const;

/** What the stop actions can refuse, besides the run or the stop not being found. */
const STOP_ACTION_REFUSALS = mergeRefusals(KEYED_CHANGE, RUN_GROWS, {
  not_found: "the stop is not of the action's kind (border and cross: a checkpoint; deliver; " +
    "collect); collect or fail: no shipment by that waybill",
  scope_denied: "cross, and fail at a checkpoint, need `customs:approve`; collect with a " +
    "reason (more than reserved) needs `runs:override`",
  validation_failed: "cross without side; collect without waybill, or of a shipment not the " +
    "work order's client's; fail without reason, or naming a waybill not of the stop",
  exit_before_entry: "cross: the entry before the exit",
  // A shipment's crossing records the exit after the stop does: an exit stopped between the two
  // (not sent again) leaves a crossing without it, and the entry then refuses.
  entry_before_exit: "cross: the entry, while a shipment's crossing has no exit recorded",
  lab_handover_blocked: "deliver: the laboratory sample waits for the laboratory's decision",
  item_ended: "deliver or fail: the shipment has its end state on this run",
  over_reserved: "collect: more than the work order reserved, without a reason",
  capacity_exceeded: "collect: the run's capacity would be exceeded",
  unknown_piece: "collect: labels name a piece the shipment does not have",
  stop_already_done: "fail: the stop was already done",
  // Delivery after a failed attempt, collection and failed collection book later charges.
  ...LATER_CHARGE_REFUSALS,
});

/** An expense and its receipt (expense below). */
const EXPENSE_REFUSALS = {
  ...KEYED_CHANGE,
  ...RUN_GROWS,
  validation_failed: "not multipart/form-data; no receipt file, idempotency_key, currency code " +
    "or positive amount",
  ...BODY_TOO_LARGE,
  evidence_file_too_large: "the receipt is larger than an evidence file may be",
};

/** A run that is not the signed-in driver's answers as one that does not exist. */
const DRIVERS_RUN = { not_found: "the run is not assigned to the driver" };

const RUN_ACTIONS = [
  "depart",
  "arrive",
  "unload",
  "reorder",
  "transfer",
  "report",
  "close",
  "waiting",
] as const;
const DRIVER_RUN_ACTIONS = ["depart", "arrive", "unload", "report"] as const;
const STOP_ACTIONS = ["border", "cross", "deliver", "collect", "fail"] as const;

async function runAction(
  c: Context<AppEnv>,
  runId: string,
  action: typeof RUN_ACTIONS[number],
  body: z.infer<typeof RunActionBody>,
) {
  const p = businessPrincipalOf(c);
  const by = principalName(p);
  const run = await runFor(c, runId);
  const key = body.idempotency_key ? `${action}:${body.idempotency_key}` : null;
  const moveKey = `${runId}:${key ?? `${action}:${run.history.length}`}`;
  switch (action) {
    case "depart": {
      const next = await askRun(c, runId, { kind: "depart", by }, key, body);
      // What left with the departure: one that came on board after it was moved by its own
      // boarding (a stop added, a collection, a transfer in), so a departure sent again moves it
      // no second time (product rule: custody moves once). A run kept before items named their
      // departure moves what is on board.
      const onBoard = next.items.filter((i) =>
        i.state === "on_board" &&
        (next.departed_at === undefined || i.departed_at === next.departed_at)
      ).map((i) => i.waybill);
      // Keyed by the departure the run recorded, whatever key the request sends: a retry after a
      // crash (or a lost answer) moves those a crash left behind and none twice. The run keeps
      // its departure for good; one kept before it did is found in its bounded history.
      const departure = next.departed_at ??
        next.history.findLast((h) => h.action === "depart")?.at;
      const departed = departure === undefined ? moveKey : `${runId}:departure:${departure}`;
      // spec: courier 3.2: a shipment the run delivers goes out for delivery; others depart on
      // a trunk leg (departureEvent).
      const byEvent = Map.groupBy(onBoard, (w) => departureEvent(next, w));
      for (const [event, waybills] of byEvent) {
        await moveAll(c, next, waybills, departed, event, { holder: holderOf(next) });
      }
      // Leaving a border the shipments were presented at: a later release awaits collection.
      for (const s of next.stops) {
        if (s.kind === "checkpoint" && s.status === "presented") {
          for (const x of s.crossings) {
            await vehicleLeft(c.get("env").runtime, p.business.id, x, by);
          }
        }
      }
      return next;
    }
    case "arrive": {
      const next = await askRun(c, runId, { kind: "arrive", by }, key, body);
      // spec: courier 3.2: linehaul closes on arrival for what the run carried on a trunk leg
      // (what it delivers stays out for delivery). Keyed by the boarding, so a retry moves once.
      for (const item of next.items.filter((i) => i.state === "on_board")) {
        if (departureEvent(next, item.waybill) === "out_for_delivery") continue;
        await moveShipment(c, item.waybill, `${runId}:arrival:${boarding(next, item.waybill)}`, {
          event: "arrived",
          holder: holderOf(next),
          pieces: carriedPieces(next.stops, item.waybill),
        });
      }
      // spec: courier 2.9 leg_trip_ended: the trip ended and these shipments were not told where
      // they are (an unload, delivery or report tells them; until then each has an alert).
      for (const item of next.items.filter((i) => i.state === "on_board")) {
        await raiseAlert(c.get("env").runtime, p.business.id, {
          kind: "leg_trip_ended",
          condition_key: `${runId}:${item.waybill}:trip_ended`,
          owner: "courier",
          subject: { type: "shipment", id: item.waybill },
          waybill: item.waybill,
          message: `run ${runId} arrived with ${item.waybill} on board and no unload or delivery ` +
            `recorded for it`,
          detail: { run_id: runId },
        });
      }
      return next;
    }
    case "unload": {
      const next = await askRun(
        c,
        runId,
        { kind: "unload", waybills: body.waybills ?? null, by },
        key,
        body,
      );
      // Every item unloaded so far is moved, so a retry after a crash completes an unload; each
      // is received once per time it came on board, whichever unload named it (a later unload of
      // others, or the same one sent again, receives it no second time; product rule: custody
      // moves once).
      for (const w of next.items.filter((i) => i.state === "unloaded").map((i) => i.waybill)) {
        await moveShipment(c, w, `${runId}:unload:${boarding(next, w)}`, {
          event: "received_at_destination",
          facility_id: body.facility_id ?? next.facility_id,
          pieces: carriedPieces(next.stops, w),
        });
      }
      return next;
    }
    case "reorder":
      if (!body.order) {
        throw validationFailed([{ path: "order", message: "the stop ids in order" }]);
      }
      return await askRun(c, runId, { kind: "reorder", order: body.order, by }, key, body);
    case "transfer":
      return await transfer(c, run, body);
    case "report": {
      if (!body.waybill || !body.condition || !body.note?.trim()) {
        throw validationFailed([{
          path: "note",
          message: "a report names the waybill, the condition and a note",
        }]);
      }
      if (body.condition === "customs_hold" && !(await heldByCustoms(c, run, body.waybill))) {
        throw validationFailed([{
          path: "condition",
          message: `customs_hold: customs holds no crossing of ${body.waybill}`,
        }]);
      }
      const next = await askRun(
        c,
        runId,
        {
          kind: "report",
          waybill: body.waybill,
          condition: body.condition,
          note: body.note,
          by,
        },
        key,
        body,
      );
      // An item is reported once each time it came on board (then it has its end state): keyed
      // by that, so the same report sent again without its key moves the shipment once.
      const reported = `${runId}:report:${boarding(next, body.waybill)}`;
      if (body.condition === "missing" || body.condition === "damaged") {
        await moveShipment(c, body.waybill, reported, {
          event: body.condition === "missing" ? "lost_or_damaged" : "exception",
          reason: `${body.condition}: ${body.note}`,
        });
      } else if (body.condition === "returned") {
        await moveShipment(c, body.waybill, reported, { event: "returned", note: body.note });
      }
      return next;
    }
    case "close":
      return await askRun(c, runId, { kind: "close", by }, key, body);
    case "waiting": {
      // spec: courier 4.5: waiting needs billing:administer; it books a waiting charge.
      requireScope(p, "billing:administer");
      if (!body.stop_id || !body.minutes) {
        throw validationFailed([{ path: "minutes", message: "stop_id and minutes are required" }]);
      }
      const stop = stopOf(run, body.stop_id);
      const waybill = body.waybill ?? stop.waybill ?? stop.collected[0]?.waybill;
      if (!waybill) {
        throw validationFailed([{ path: "waybill", message: "the shipment the wait was for" }]);
      }
      await stopShipment(c, run, stop, waybill);
      // The run names the stop's one charged shipment first (serialised there, so two offices
      // naming different clients' shipments at once charge one); a retry after a crash between
      // the two finds it named and books the charge it missed.
      const next = await askRun(
        c,
        runId,
        {
          kind: "stop_waiting",
          stop_id: stop.id,
          waybill,
          by,
        },
        key,
        body,
      );
      await runCharge(c, waybill, {
        kind: "waiting",
        reference: `WAIT-${stop.id}`,
        reason: `waited ${body.minutes} minutes at stop ${stop.id}${
          body.note ? `: ${body.note}` : ""
        }`,
        evidence_path: `run:${runId}/stop:${stop.id}`,
        source_event: `run.waiting:${stop.id}`,
      });
      return next;
    }
  }
}

/**
 * A shipment's boarding of the run: its waybill and how many times it came on board (an item
 * each time). A custody move keyed by it happens once per boarding, whatever request asks it
 * again, and again if the shipment went away and came back.
 */
function boarding(run: NetworkRun, waybill: string): string {
  return `${waybill}*${run.items.filter((i) => i.waybill === waybill).length}`;
}

/**
 * Whether customs holds or refused the shipment (spec: courier 3.4 "customs hold (held by
 * customs)"): its crossing opened at booking, or one opened at a border stop of this run, read
 * from the crossing actors (the decision does not wait for the projection).
 */
async function heldByCustoms(c: Context<AppEnv>, run: NetworkRun, waybill: string) {
  const runtime = c.get("env").runtime;
  const tenant = businessPrincipalOf(c).business.id;
  const ids = [
    bookingCrossingIdOf(tenant, waybill),
    ...run.stops.filter((s) => s.kind === "checkpoint")
      .map((s) => crossingIdOf(tenant, waybill, run.id, s.id)),
  ];
  for (const id of ids) {
    const got = await runtime.read(customsCrossingActor, tenant, id, { kind: "get" });
    const status = got.ok && got.reply ? got.reply.crossing.status : null;
    if (status === "held" || status === "refused") return true;
  }
  return false;
}

/**
 * Transfers items to another open run of the courier, which carries them on (spec: courier 3.4
 * transferred is an end state on this run only). The target takes them first, then this run
 * marks them transferred, then custody moves: each step is keyed (the request's idempotency_key,
 * else what it transfers where) or repeats as nothing, so a retry after a crash between two
 * steps completes the rest and repeats none.
 */
async function transfer(
  c: Context<AppEnv>,
  run: NetworkRun,
  body: z.infer<typeof RunActionBody>,
): Promise<NetworkRun> {
  const { waybills, to_run: toRun } = body;
  const idempotencyKey = body.idempotency_key ?? null;
  if (!waybills || waybills.length === 0 || !toRun) {
    throw validationFailed([
      ...(!waybills || waybills.length === 0
        ? [{ path: "waybills", message: "the waybills to transfer" }]
        : []),
      ...(!toRun ? [{ path: "to_run", message: "the run that takes them" }] : []),
    ]);
  }
  if (toRun === run.id) {
    throw validationFailed([{ path: "to_run", message: `the run itself: ${toRun}` }]);
  }
  const p = businessPrincipalOf(c);
  const by = principalName(p);
  const tenant = p.business.id;
  const target = await askRun(c, toRun, { kind: "get" }).catch((e) => {
    if (e instanceof ApiError && e.code === "not_found") {
      throw new ApiError("not_found", `to_run: network run not found: ${toRun}`);
    }
    throw e;
  });
  if (target.status === "closed") {
    throw validationFailed([{ path: "to_run", message: `the run is closed: ${toRun}` }]);
  }
  const items = run.items.filter((i) => waybills.includes(i.waybill));
  const missing = waybills.find((w) => !items.some((i) => i.waybill === w));
  if (missing) throw new ApiError("not_on_run", `${missing} is not on this run`);
  // Refused here before the target takes anything: an item with its end state stays as it ended.
  const open = items.filter((i) => !isEnded(i));
  // The target gives back what a transfer this run refused took (one item ended here).
  const giveBack = (waybills: readonly string[], key: string | null = null) =>
    askRun(c, toRun, { kind: "transfer_in_undo", from_run: run.id, waybills, by }, key);
  const ended = items.find((i) =>
    isEnded(i) && !(i.state === "transferred" && i.to_run === toRun) &&
    !open.some((o) => o.waybill === i.waybill)
  );
  if (ended) {
    // A transfer that stopped between the target taking the items and this run refusing them
    // (below) is completed here.
    await giveBack([ended.waybill]);
    throw new ApiError(
      "not_transferable",
      `${ended.waybill} cannot be transferred: it has its end state: ${ended.state}`,
    );
  }
  // The custody move is keyed by what moves where, whatever key the request sends: the same
  // transfer sent again (a retry without its key) moves nothing again. Each waybill counts the
  // times it came onto this run, so a shipment that went away and came back moves again.
  const moving = [...new Set(waybills)].sort().map((w) => boarding(run, w)).join(",");
  const moved = `transfer:${toRun}:${sha256Hex(moving)}`;
  const key = idempotencyKey ? `transfer:${toRun}:${idempotencyKey}` : moved;
  // The caller's key with another request is refused before the target takes anything.
  const request = idempotencyKey ? body : undefined;
  // Boarding is recorded before the target counts the items, so a cold-chain profile set from
  // now on finds the target too (coldChainOnRuns); one set since this run was read counts here.
  const carried = [];
  for (const i of open) {
    const cold = await boardRun(c.get("env").runtime, tenant, i.waybill, toRun);
    carried.push({ waybill: i.waybill, load: withColdSlots(i.load, cold) });
  }
  const taken = await askRun(
    c,
    toRun,
    {
      kind: "transfer_in",
      from_run: run.id,
      items: carried,
      by,
    },
    `${run.id}:${key}`,
    request,
  );
  let next: NetworkRun;
  try {
    next = await askRun(
      c,
      run.id,
      { kind: "transfer", waybills, to_run: toRun, by },
      key,
      request,
    );
  } catch (e) {
    // An item ended here after the check (delivered meanwhile): the target gives back what it
    // took, so no shipment rides on two runs. A crash before this leaves the retry to do it.
    if (e instanceof ApiError && (e.code === "not_transferable" || e.code === "not_on_run")) {
      await giveBack(open.map((i) => i.waybill), `${run.id}:${key}:undo`);
    }
    throw e;
  }
  await moveAll(c, next, waybills, `${run.id}:${moved}`, "scan", {
    holder: holderOf(target),
    note: `transferred to run ${toRun}`,
  });
  // spec: courier 3.2: onto a run already under way, the shipment departs with it (depot_dwell
  // closes, linehaul opens), as a stop added to it does; one taken before the run left departed
  // with it. Keyed by its boarding of the target, so a retry moves it once.
  const boardedUnderWay = taken.status === "departed"
    ? taken.items.filter((i) =>
      waybills.includes(i.waybill) && i.state === "on_board" && i.departed_at === undefined
    )
    : [];
  for (const i of boardedUnderWay) {
    await moveShipment(c, i.waybill, `${toRun}:boarded:${boarding(taken, i.waybill)}`, {
      event: departureEvent(taken, i.waybill),
      holder: holderOf(taken),
      pieces: carriedPieces(next.stops, i.waybill),
    });
  }
  return next;
}

async function stopAction(
  c: Context<AppEnv>,
  runId: string,
  stopId: string,
  action: typeof STOP_ACTIONS[number],
  body: z.infer<typeof StopActionBody>,
) {
  const p = businessPrincipalOf(c);
  const by = principalName(p);
  const run = await runFor(c, runId);
  const stop = stopOf(run, stopId);
  // spec: courier 4.5: every stop action accepts idempotency_key; a replay answers the first.
  const key = body.idempotency_key ? `${stopId}:${action}:${body.idempotency_key}` : null;
  // A stop is delivered once and fails once, so its custody move is keyed by the stop, whatever
  // idempotency_key the caller sends (a retry under a fresh key records no second attempt).
  const moveKey = `${runId}:${stopId}:${action}`;
  switch (action) {
    case "border": {
      if (stop.kind !== "checkpoint") throw new ApiError("not_found", `no checkpoint ${stopId}`);
      const onBoard = run.items.filter((i) => i.state === "on_board").map((i) => i.waybill);
      const crossings: string[] = [];
      for (const waybill of onBoard) {
        crossings.push(
          await openCrossing(c.get("env").runtime, p.business.id, {
            waybill,
            country: stop.country ?? "",
            to_country: stop.to_country ?? "",
            border_post: stop.border_post ?? "",
            run_id: runId,
            stop_id: stopId,
            holder: holderOf(run),
            by,
          }),
        );
      }
      const answer = await askStop(
        c,
        runId,
        { kind: "stop_border", stop_id: stopId, crossings, by },
        key,
        body,
      );
      return answer;
    }
    case "cross": {
      // spec: courier 3.4, 5: the driver presents; customs:approve clears the vehicle at the
      // border (exit, then entry) or refuses it (fail with a reason).
      requireScope(p, "customs:approve");
      const side = body.side;
      if (!side) throw validationFailed([{ path: "side", message: "exit or entry" }]);
      const answer = await askStop(
        c,
        runId,
        {
          kind: "stop_cross",
          stop_id: stopId,
          side,
          by,
        },
        key,
        body,
      );
      // Each shipment's crossing records the same side (exit before entry, once each).
      for (const x of answer.stop.crossings) {
        try {
          const crossing = await recordCrossing(c.get("env").runtime, p.business.id, x, side, by);
          await outForDeliveryPastBorder(c.get("env").runtime, p.business.id, crossing, by);
        } catch (e) {
          // A shipment customs refused stays behind; the others cross.
          if (!(e instanceof ApiError && e.code === "crossing_closed")) throw e;
        }
      }
      return answer;
    }
    case "deliver": {
      if (stop.kind !== "deliver" || !stop.waybill) {
        throw new ApiError("not_found", `no deliver stop ${stopId}`);
      }
      // spec: courier 3.4: a blocked sample waits for the laboratory's decision however the
      // delivery is recorded (not only when it says lab_handover); a replay of a delivery made
      // finds the stop done and answers as it did.
      if (stop.status !== "done") {
        const allowed = await labHandoverAllowed(c.get("env").runtime, p.business.id, stop.waybill);
        if (!allowed.ok) {
          throw new ApiError(
            "lab_handover_blocked",
            `the laboratory handover waits for the laboratory's decision: ${
              allowed.reasons.join("; ")
            }`,
          );
        }
      }
      const answer = await askStop(
        c,
        runId,
        {
          kind: "stop_deliver",
          stop_id: stopId,
          lab_handover: body.lab_handover ?? false,
          by,
        },
        key,
        body,
      );
      await moveShipment(c, stop.waybill, moveKey, {
        event: "delivered",
        received_by: body.received_by ?? (body.lab_handover ? "laboratory" : null),
        note: body.note ?? null,
      });
      // A retry (the stop found done) tells it again; the first handover recorded stands.
      const env = c.get("env");
      await labHandedOver(env.runtime, p.business.id, stop.waybill, env.clock.now());
      return answer;
    }
    case "collect": {
      if (stop.kind !== "collect" || !stop.work_order) {
        throw new ApiError("not_found", `no collect stop ${stopId}`);
      }
      if (!body.waybill) throw validationFailed([{ path: "waybill", message: "required" }]);
      const s = await shipmentOf(c, body.waybill);
      if (s.client_id !== stop.work_order.courier_client_id) {
        throw validationFailed([{
          path: "waybill",
          message: "the shipment is not the work order's client's",
        }]);
      }
      let override: string | null = null;
      if (body.reason) {
        // spec: courier 4.5: more than reserved needs runs:override and a reason.
        requireScope(p, "runs:override");
        override = body.reason;
      }
      // Each collected piece is labelled (courier 2.10): its piece id unless a label is given.
      const labels = body.labels ?? s.pieces.map((x) => x.id);
      const answer = await askStop(
        c,
        runId,
        {
          kind: "stop_collect",
          stop_id: stopId,
          waybill: body.waybill,
          labels,
          load: await runLoadOf(c, s, runId),
          override_reason: override,
          by,
        },
        key,
        body,
      );
      // Labels naming some of the shipment's pieces collect those pieces only; the rest stay
      // where they are, and the shipment raises pieces_separated (courier 2.9). The stop collects
      // a waybill once, so its custody moves once whatever idempotency_key the caller sends.
      await moveShipment(c, body.waybill, `${runId}:${stopId}:collect:${body.waybill}`, {
        event: "collected",
        holder: holderOf(answer.run),
        pieces: carriedPieces([answer.stop], body.waybill),
      });
      await runCharge(c, body.waybill, {
        kind: "errand",
        reference: `COL-${stopId}-${body.waybill}`,
        reason: `collected at stop ${stopId}`,
        evidence_path: `run:${runId}/stop:${stopId}`,
        source_event: `run.collected:${stopId}:${body.waybill}`,
      });
      return answer;
    }
    case "fail": {
      if (stop.kind === "checkpoint") requireScope(p, "customs:approve");
      if (!body.reason) throw validationFailed([{ path: "reason", message: "required" }]);
      if (stop.kind === "collect" && body.waybill) {
        await stopShipment(c, run, stop, body.waybill);
      }
      const answer = await askStop(
        c,
        runId,
        {
          kind: "stop_fail",
          stop_id: stopId,
          reason: body.reason,
          by,
        },
        key,
        body,
      );
      if (stop.kind === "deliver" && stop.waybill) {
        await moveShipment(c, stop.waybill, moveKey, {
          event: "delivery_attempted",
          note: body.reason,
        });
      }
      if (stop.kind === "collect" && stop.work_order) {
        // spec: courier 2.6 rule 3: a failed collection is its own entry, on the shipment named
        // (its frozen card) or, as a failed collection mostly picks up nothing, on the client the
        // work order names.
        const charge = {
          kind: "failed_collection",
          reference: `FCOL-${stopId}`,
          reason: `collection failed: ${body.reason}`,
          evidence_path: `run:${runId}/stop:${stopId}`,
          source_event: `run.collection_failed:${stopId}`,
        } as const;
        if (body.waybill) await runCharge(c, body.waybill, charge);
        else await workOrderCharge(c, stop.work_order.courier_client_id, charge);
      }
      return answer;
    }
  }
}

// ---- Answers (documentation: tests/http/answers_runs_test.ts holds answers to them).

/** A load or capacity in the units a run is described in (courier 2.10; loadView). */
const RunLoadAnswer = z.object({
  kg: z.number(),
  m3: z.number(),
  pieces: z.number().int(),
  cold_slots: z.number().int(),
}).openapi("RunLoad");

const RunStatus = z.enum(RUN_STATUSES);
const StopKind = z.enum(STOP_KINDS);
const StopStatus = z.enum(STOP_STATUSES).openapi({
  description: "A border stop is presented, then cleared or refused (courier 3.4); other stops " +
    "are pending, then done or failed",
});
const ItemState = z.enum(ITEM_STATES).openapi({
  description: "planned, on_board, unloaded, or its end state on this run (courier 3.4)",
});
const StopCountry = Country.nullable().openapi({ description: "Checkpoint stops only" });

/** How many of the run's items are in each state; states with none are absent. */
const ItemCounts = z.object(
  Object.fromEntries(ITEM_STATES.map((s) => [s, z.number().int().optional()])),
).openapi({ description: "How many items are in each state; a state with none is absent" });

/** spec: courier 2.10: a stop as operations see it (stopView). */
const RunStopAnswer = z.object({
  id: z.string(),
  kind: StopKind,
  waybill: z.string().nullable().openapi({ description: "Deliver stops: the shipment delivered" }),
  work_order: orNull(
    z.object({
      sender: z.string(),
      recipient: z.string(),
      courier_client_id: z.string(),
      reserved: RunLoadAnswer,
    }).openapi("RunWorkOrder"),
  ).openapi({ description: "Collect stops only" }),
  country: StopCountry,
  to_country: StopCountry,
  border_post: z.string().nullable().openapi({ description: "Checkpoint stops only" }),
  status: StopStatus,
  collected: z.array(z.object({
    waybill: z.string(),
    labels: z.array(z.string()).openapi({ description: "Each collected piece's label" }),
    load: RunLoadAnswer,
  })).openapi({ description: "Collect stops: what was collected" }),
  exit_at: UtcInstant.nullable().openapi({ description: "Checkpoint: when the exit was recorded" }),
  entry_at: UtcInstant.nullable().openapi({
    description: "Checkpoint: when the entry was recorded (after the exit)",
  }),
  crossings: z.array(z.string()).openapi({
    description: "Checkpoint: the customs crossings presented there",
  }),
  waiting_waybill: z.string().nullable().openapi({
    description: "The shipment whose client the stop's wait was charged to (one per stop), " +
      "if any",
  }),
}).openapi("RunStop");

/** A shipment on a run (itemView). */
const RunItemAnswer = z.object({
  waybill: z.string(),
  state: ItemState,
  load: RunLoadAnswer,
  exception: z.string().nullable().openapi({
    description: "Missing or damaged: the exception that explains it",
  }),
  stop_id: z.string().nullable().openapi({
    description: "The stop it is delivered or collected at",
  }),
  to_run: z.string().optional().openapi({ description: "Transferred: the run that carries it on" }),
}).openapi("RunItem");

/** One action recorded on the run, the newest last (historyView). */
const RunHistoryAnswer = z.object({
  action: z.string().openapi({ example: "depart" }),
  by: z.string().openapi({ description: "Who recorded it" }),
  at: UtcInstant,
  detail: z.string().nullable(),
}).openapi("RunHistoryEntry");

/** spec: courier 2.10, 4.5: a run as operations see it (runView). */
export const NetworkRunAnswer = z.object({
  id: z.string(),
  courier_id: z.string(),
  facility_id: z.string(),
  kind: z.string(),
  countries: z.array(Country),
  capacity: RunLoadAnswer,
  vehicle: z.string().nullable(),
  driver_id: z.string().nullable(),
  status: RunStatus,
  stops: z.array(RunStopAnswer),
  items: z.array(RunItemAnswer),
  expenses: z.array(
    z.object({
      key: z.string().openapi({ description: "The expense's idempotency_key" }),
      currency: Currency,
      receipt: z.string().openapi({
        description: "The stored receipt file",
        example: "file:sha256:...",
      }),
      note: z.string().nullable(),
      by: z.string(),
      amount: Money,
      at: UtcInstant,
    }).openapi("RunExpense"),
  ),
  history: z.array(RunHistoryAnswer).openapi({ description: "The latest actions, oldest first" }),
  created_at: UtcInstant,
  closed_at: UtcInstant.nullable(),
}).openapi("NetworkRun");

/** A run's standing without its stops and items (summaryView of runSummary). */
const RunStandingFields = {
  id: z.string(),
  courier_id: z.string(),
  facility_id: z.string(),
  kind: z.string(),
  countries: z.array(Country),
  vehicle: z.string().nullable(),
  driver_id: z.string().nullable(),
  status: RunStatus,
  stops: z.number().int().openapi({ description: "How many stops the run has" }),
  stops_open: z.number().int().openapi({ description: "Stops pending or presented" }),
  items: ItemCounts,
  created_at: UtcInstant,
  closed_at: UtcInstant.nullable(),
};

/** spec: courier 4.5: what a stop action answers operations (stopActionView). */
export const StopActionAnswer = z.object({
  run: z.object({
    ...RunStandingFields,
    capacity: RunLoadAnswer,
    /** What the run carries or has planned. */
    load: RunLoadAnswer,
  }).openapi("RunStanding"),
  stop: RunStopAnswer,
  items: z.array(RunItemAnswer).openapi({ description: "The stop's items" }),
  history: z.array(RunHistoryAnswer),
}).openapi("StopActionResult");

/** spec: courier 2.10: a stop as the driver sees it, without values (driverStopView). */
const DriverRunStopAnswer = z.object({
  id: z.string(),
  kind: StopKind,
  waybill: z.string().nullable(),
  status: StopStatus,
  country: StopCountry,
  to_country: StopCountry,
  border_post: z.string().nullable(),
  work_order: orNull(
    z.object({ sender: z.string(), recipient: z.string() }).openapi("DriverRunWorkOrder"),
  ),
  collected: z.array(z.object({ waybill: z.string(), labels: z.array(z.string()) })),
  exit_at: UtcInstant.nullable(),
  entry_at: UtcInstant.nullable(),
}).openapi("DriverRunStop");

/** An item as the driver sees it (driverItemView). */
const DriverRunItemAnswer = z.object({
  waybill: z.string(),
  state: ItemState,
  stop_id: z.string().nullable(),
}).openapi("DriverRunItem");

/** What the driver's run and their list both say of a run first. */
const DriverRunHeadFields = {
  id: z.string(),
  facility_id: z.string(),
  kind: z.string(),
  countries: z.array(Country),
  vehicle: z.string().nullable(),
  status: RunStatus,
};

/** spec: courier 2.10: the driver's view of a run: no declared or customs values (driverView). */
export const DriverRunAnswer = z.object({
  ...DriverRunHeadFields,
  stops: z.array(DriverRunStopAnswer),
  items: z.array(DriverRunItemAnswer),
}).openapi("DriverRun");

/** What a stop action answers the run's driver (stopActionView for a driver). */
export const DriverStopActionAnswer = z.object({
  run: z.object(RunStandingFields).openapi("DriverRunStanding"),
  stop: DriverRunStopAnswer,
  items: z.array(DriverRunItemAnswer).openapi({ description: "The stop's items" }),
}).openapi("DriverStopActionResult");

/** One of the driver's runs in their list (driverRunListView). */
export const DriverRunListedAnswer = z.object({
  ...DriverRunHeadFields,
  stops: RunStandingFields.stops,
  stops_open: RunStandingFields.stops_open,
  items: ItemCounts,
}).openapi("DriverRunListed");

export function runRoutes(api: Api): void {
  define(api, {
    method: "post",
    path: "/business/network-runs",
    summary: "Create a network run (courier 2.10)",
    tag,
    security: "business",
    middleware: operate,
    body: z.object({
      facility_id: Text(120),
      kind: Text(60),
      countries: z.array(Country).min(1).max(20),
      capacity: Capacity,
      vehicle: Text(120).nullable().optional(),
      driver_id: Text(64).nullable().optional(),
    }),
    status: 201,
    response: NetworkRunAnswer,
    refusals: { validation_failed: "driver_id is none of the courier's drivers" },
  }, async (c, { body }) => {
    const p = businessPrincipalOf(c);
    if (body.driver_id) {
      const d = await c.get("env").runtime.read(driverActor, p.business.id, body.driver_id, {
        kind: "get",
      });
      if (!d.ok) throw validationFailed([{ path: "driver_id", message: "no such driver" }]);
    }
    const id = newId("run");
    const run = await askRun(c, id, {
      kind: "create",
      run: {
        id,
        courier_id: p.business.id,
        facility_id: body.facility_id,
        kind: body.kind,
        countries: body.countries,
        capacity: loadOf(body.capacity),
        vehicle: body.vehicle ?? null,
        driver_id: body.driver_id ?? null,
      },
      by: principalName(p),
    });
    return ok(c, runView(run), 201);
  });

  define(api, {
    method: "get",
    path: "/business/network-runs/{run}",
    summary: "One network run",
    tag,
    security: "business",
    middleware: operate,
    params: RunParam,
    response: NetworkRunAnswer,
  }, async (c, { params }) => ok(c, runView(await runFor(c, params.run))));

  define(api, {
    method: "post",
    path: "/business/network-runs/{run}/stops",
    summary:
      "Add a stop: deliver (waybill), collect (work order) or checkpoint (border); idempotency_key makes a retry finish the first",
    tag,
    security: "business",
    middleware: operate,
    params: RunParam,
    body: z.object({
      kind: StopKind,
      waybill: Waybill.optional(),
      work_order: z.object({
        sender: Text(300),
        recipient: Text(300),
        courier_client_id: Text(64),
        reserved: Capacity,
      }).optional(),
      country: Country.optional(),
      to_country: Country.optional(),
      border_post: Text(120).optional(),
      idempotency_key: IdempotencyKey.optional(),
    }),
    status: 201,
    response: NetworkRunAnswer,
    refusals: {
      ...KEYED_CHANGE,
      ...RUN_GROWS,
      validation_failed: "a deliver stop without waybill, a collect stop without work_order or " +
        "with another courier's client, a checkpoint without country, to_country and border_post",
      not_found: "deliver: no shipment by that waybill",
      already_on_run: "deliver: the shipment is already on the run",
      capacity_exceeded: "the stop's load or reservation exceeds the run's capacity",
    },
  }, async (c, { params, body }) => {
    const by = principalName(businessPrincipalOf(c));
    let load = NO_LOAD;
    if (body.kind === "deliver") {
      if (!body.waybill) throw validationFailed([{ path: "waybill", message: "required" }]);
      load = await runLoadOf(c, await shipmentOf(c, body.waybill), params.run);
    }
    if (body.kind === "collect" && !body.work_order) {
      throw validationFailed([{ path: "work_order", message: "required for a collect stop" }]);
    }
    if (body.kind === "collect" && body.work_order) {
      // The client the work is for, and whose failed collection is charged, is this courier's.
      const client = await c.get("env").runtime.read(
        courierClientActor,
        businessPrincipalOf(c).business.id,
        body.work_order.courier_client_id,
        { kind: "get" },
      );
      if (!client.ok) {
        throw validationFailed([{
          path: "work_order.courier_client_id",
          message: `no such client: ${body.work_order.courier_client_id}`,
        }]);
      }
    }
    if (body.kind === "checkpoint" && (!body.country || !body.to_country || !body.border_post)) {
      throw validationFailed([{
        path: "border_post",
        message: "country, to_country and border_post are required",
      }]);
    }
    // A retry under the same key names the same stop, so it finishes what its first attempt
    // left undone (the boarding move below) instead of adding a second stop.
    const key = body.idempotency_key ? `add_stop:${body.idempotency_key}` : null;
    const stopId = key ? derivedId("stop", `${params.run}\u0000${key}`) : newId("stop");
    const run = await askRun(
      c,
      params.run,
      {
        kind: "add_stop",
        stop: {
          id: stopId,
          kind: body.kind,
          waybill: body.kind === "deliver" ? body.waybill! : null,
          work_order: body.work_order
            ? { ...body.work_order, reserved: loadOf(body.work_order.reserved) }
            : null,
          country: body.country ?? null,
          to_country: body.to_country ?? null,
          border_post: body.border_post ?? null,
          load,
        },
        by,
      },
      key,
      body,
    );
    // A shipment boarding a run already under way has departed with it, as those on board at
    // its departure did (courier 3.2: out for delivery on the run that delivers it).
    const boarded = run.items.find((i) => i.stop_id === stopId && i.state === "on_board");
    if (boarded && run.status === "departed") {
      await moveShipment(c, boarded.waybill, `${run.id}:${stopId}:boarded`, {
        event: departureEvent(run, boarded.waybill),
        holder: holderOf(run),
      });
    }
    await raiseUnassigned(c, run);
    return ok(c, runView(run), 201);
  });

  define(api, {
    method: "post",
    path: "/business/network-runs/{run}/driver",
    summary: "Assign (or clear) the run's driver",
    tag,
    security: "business",
    middleware: operate,
    params: RunParam,
    body: z.object({ driver_id: Text(64).nullable() }),
    response: NetworkRunAnswer,
    refusals: { ...RUN_CHANGE, validation_failed: "driver_id is none of the courier's drivers" },
  }, async (c, { params, body }) => {
    const p = businessPrincipalOf(c);
    if (body.driver_id) {
      const d = await c.get("env").runtime.read(driverActor, p.business.id, body.driver_id, {
        kind: "get",
      });
      if (!d.ok) throw validationFailed([{ path: "driver_id", message: "no such driver" }]);
    }
    const run = await askRun(c, params.run, {
      kind: "assign_driver",
      driver_id: body.driver_id,
      by: principalName(p),
    });
    await raiseUnassigned(c, run);
    return ok(c, runView(run));
  });

  define(api, {
    method: "post",
    path: "/business/network-runs/{run}/expenses",
    summary: "Record a run expense: multipart with a `receipt` file, `idempotency_key`, " +
      "`amount` and `currency`",
    tag,
    security: "business",
    middleware: operate,
    params: RunParam,
    status: 201,
    response: NetworkRunAnswer,
    refusals: EXPENSE_REFUSALS,
  }, async (c, { params }) => ok(c, viewFor(c, await expense(c, params.run)), 201));

  define(
    api,
    {
      method: "post",
      path: "/business/network-runs/{run}/{action}",
      summary: "Run action: depart, arrive, unload, reorder, transfer, report, close, waiting " +
        "(billing:administer); `idempotency_key` makes a replay answer the first",
      tag,
      security: "business",
      middleware: operate,
      params: z.object({ run: Text(64), action: z.enum(RUN_ACTIONS) }),
      body: RunActionBody,
      response: NetworkRunAnswer,
      refusals: mergeRefusals(...RUN_ACTIONS.map((a) => RUN_ACTION_REFUSALS[a])),
    },
    async (c, { params, body }) =>
      ok(c, runView(await runAction(c, params.run, params.action, body))),
  );

  // Operations and the run's driver record the same stop actions; the driver's answer has no
  // values (courier 2.10).
  for (const side of ["business", "driver"] as const) {
    define(
      api,
      {
        method: "post",
        path: side === "business"
          ? "/business/network-runs/{run}/stops/{stop}/{action}"
          : "/driver/network-runs/{run}/stops/{stop}/{action}",
        summary: "Stop action: border (presents the vehicle), cross (`side` exit then entry: " +
          "customs:approve clears the vehicle), deliver, collect, fail (at a border stop: " +
          "customs:approve refuses the vehicle, with a reason); `idempotency_key` makes a " +
          "replay after lost signal answer the first",
        tag,
        security: side,
        middleware: side === "business" ? operate : asDriver,
        params: StopParams.extend({ action: z.enum(STOP_ACTIONS) }),
        body: StopActionBody,
        response: side === "business" ? StopActionAnswer : DriverStopActionAnswer,
        refusals: side === "business"
          ? STOP_ACTION_REFUSALS
          : mergeRefusals(STOP_ACTION_REFUSALS, DRIVERS_RUN),
      },
      async (c, { params, body }) =>
        ok(
          c,
          stopActionView(
            await stopAction(c, params.run, params.stop, params.action, body),
            businessPrincipalOf(c).kind === "driver",
          ),
        ),
    );
  }

  // The driver's side: the same steps, on runs assigned to the driver only.
  define(api, {
    method: "get",
    path: "/driver/network-runs",
    summary: "The runs assigned to the signed-in driver",
    tag,
    security: "driver",
    middleware: asDriver,
    response: z.array(DriverRunListedAnswer),
  }, async (c) => {
    const p = businessPrincipalOf(c);
    const rows = await c.get("env").db.selectFrom("snapshots").select("data")
      .where("type", "=", "network_run")
      .where("tenant", "=", p.business.id)
      .where(sql<string>`data->>'driver_id'`, "=", driverIdOf(c))
      .where(sql<string>`data->>'status'`, "<>", "closed")
      .limit(100)
      .execute();
    // Each run's standing; GET /driver/network-runs/{run} has its stops.
    return ok(c, rows.map((r) => driverRunListView(r.data as RunSummary)));
  });

  define(api, {
    method: "get",
    path: "/driver/network-runs/{run}",
    summary: "One of the driver's runs (no declared or customs values)",
    tag,
    security: "driver",
    middleware: asDriver,
    params: RunParam,
    response: DriverRunAnswer,
    refusals: DRIVERS_RUN,
  }, async (c, { params }) => ok(c, viewFor(c, await runFor(c, params.run))));

  define(api, {
    method: "post",
    path: "/driver/network-runs/{run}/expenses",
    summary: "Record a run expense with its receipt (multipart)",
    tag,
    security: "driver",
    middleware: asDriver,
    params: RunParam,
    status: 201,
    response: DriverRunAnswer,
    refusals: mergeRefusals(EXPENSE_REFUSALS, DRIVERS_RUN),
  }, async (c, { params }) => ok(c, viewFor(c, await expense(c, params.run)), 201));

  define(
    api,
    {
      method: "post",
      path: "/driver/network-runs/{run}/{action}",
      summary: "Driver run action: depart, arrive, unload, report",
      tag,
      security: "driver",
      middleware: asDriver,
      params: z.object({ run: Text(64), action: z.enum(DRIVER_RUN_ACTIONS) }),
      body: RunActionBody,
      response: DriverRunAnswer,
      refusals: mergeRefusals(
        ...DRIVER_RUN_ACTIONS.map((a) => RUN_ACTION_REFUSALS[a]),
        DRIVERS_RUN,
      ),
    },
    async (c, { params, body }) =>
      ok(c, viewFor(c, await runAction(c, params.run, params.action, body))),
  );
}

/**
 * spec: courier 2.9 leg_unassigned: a run with stops and no driver waits for one. Each time it is
 * left without one is its own condition, raised once (a retry raises the same one, or the one a
 * crash kept from being raised); a run kept before it counted them has the one key it had.
 */
async function raiseUnassigned(c: Context<AppEnv>, run: NetworkRun): Promise<void> {
  if (!isUnassigned(run)) return;
  const times = run.unassigned_times;
  await raiseAlert(c.get("env").runtime, run.courier_id, {
    kind: "leg_unassigned",
    condition_key: times === undefined ? `${run.id}:unassigned` : `${run.id}:unassigned:${times}`,
    owner: "courier",
    subject: { type: "network_run", id: run.id },
    message: `run ${run.id} has stops and no driver assigned`,
    detail: { run_id: run.id, stops: run.stops.length },
  });
}

/** spec: courier 4.5: expenses need a receipt file and an idempotency_key. */
async function expense(c: Context<AppEnv>, runId: string) {
  const p = businessPrincipalOf(c);
  await runFor(c, runId);
  if (!isMultipart(c)) {
    throw validationFailed([{ path: "receipt", message: "multipart form data needed" }]);
  }
  // Within the upload's cap also when no length is declared (a chunked body).
  const form = await boundedForm(
    c,
    EVIDENCE_FILE_BYTES_MAX + MULTIPART_OVERHEAD_BYTES_MAX,
    `a receipt of at most ${EVIDENCE_FILE_BYTES_MAX} bytes`,
  );
  const key = form.get("idempotency_key");
  const receipt = form.get("receipt");
  const amount = form.get("amount");
  const currency = form.get("currency");
  const errors = [];
  // Text Postgres cannot keep would be committed and never reach the query side (route.ts).
  for (const field of ["idempotency_key", "note"]) {
    const text = form.get(field);
    if (typeof text === "string" && !storableText(text)) {
      errors.push({ path: field, message: UNSTORABLE_TEXT });
    }
  }
  if (typeof key !== "string" || key.trim() === "") {
    errors.push({ path: "idempotency_key", message: "required" });
  } else if (key.length > IDEMPOTENCY_KEY_CHARS_MAX) {
    // As the JSON requests' (IdempotencyKey): a longer one is no key the run can keep.
    errors.push({
      path: "idempotency_key",
      message: `at most ${IDEMPOTENCY_KEY_CHARS_MAX} characters`,
    });
  }
  if (!(receipt instanceof File) || receipt.size === 0) {
    errors.push({ path: "receipt", message: "a receipt file is required" });
  }
  if (typeof currency !== "string" || !isCurrencyCode(currency)) {
    const sent = typeof currency === "string" ? `: ${currency}` : "";
    errors.push({ path: "currency", message: `not an ISO 4217 currency code${sent}` });
  }
  const minor = typeof amount === "string" && typeof currency === "string"
    ? toMinor(amount, currency)
    : null;
  if (!minor || !minor.ok || minor.minor <= 0) {
    errors.push({ path: "amount", message: "a positive amount in the currency" });
  }
  if (errors.length > 0) throw validationFailed(errors);
  const file = receipt as File;
  const stored = await storeEvidence(c.get("env").runtime, p.business.id, {
    name: file.name || "receipt",
    content_type: file.type || "application/octet-stream",
    bytes: new Uint8Array(await file.arrayBuffer()),
  }, principalName(p));
  if (!stored.ok) throw new ApiError(stored.code, stored.message);
  const note = form.get("note");
  return await askRun(
    c,
    runId,
    {
      kind: "expense",
      key: String(key),
      amount_minor: (minor as { minor: number }).minor,
      currency: String(currency),
      receipt: `file:sha256:${stored.value.sha256}`,
      note: typeof note === "string" ? note.slice(0, 500) : null,
      by: principalName(p),
    },
    `expense:${key}`,
    {
      amount_minor: (minor as { minor: number }).minor,
      currency: String(currency),
      receipt: stored.value.sha256,
      note: typeof note === "string" ? note : null,
    },
  );
}

function driverRunListView(r: RunSummary) {
  return {
    id: r.id,
    facility_id: r.facility_id,
    kind: r.kind,
    countries: r.countries,
    vehicle: r.vehicle,
    status: r.status,
    stops: r.stops,
    stops_open: r.stops_open,
    items: r.items,
  };
}
