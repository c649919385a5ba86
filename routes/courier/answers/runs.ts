/**
 * What the network-run routes answer (courier 2.10, 4.5): the answer schemas, which feed the
 * OpenAPI document (tests/http/answers_runs_test.ts holds answers to them), and the views that
 * state a run as the rest of the API states things: loads in kg and m3, amounts as decimals of
 * their currency, times in ISO 8601; a driver never sees declared or customs values.
 */
import {
  ITEM_STATES,
  type Load,
  type NetworkRun,
  RUN_STATUSES,
  type RunItem,
  type RunSummary,
  type Stop,
  STOP_KINDS,
  STOP_STATUSES,
  type StopAnswer,
} from "../../../actors/courier/network_run/mod.ts";
import { decimal } from "../../../src/domain/money.ts";
import { iso } from "../../../src/domain/iso.ts";
import { z } from "../../../src/http/route.ts";
import { Country, Currency, Money, orNull, UtcInstant } from "../../../src/http/schemas.ts";

/** A load or capacity in the units a run is described in (courier 2.10; loadView). */
const RunLoadAnswer = z.object({
  kg: z.number(),
  m3: z.number(),
  pieces: z.number().int(),
  cold_slots: z.number().int(),
}).openapi("RunLoad");

const RunStatus = z.enum(RUN_STATUSES);
export const StopKind = z.enum(STOP_KINDS);
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

/**
 * A load in the units the run was described in (courier 2.10: kg, m3, pieces, cold slots); the
 * actor counts exact grams and cm3.
 */
export function loadView(l: Load) {
  return { kg: l.grams / 1000, m3: l.cm3 / 1_000_000, pieces: l.pieces, cold_slots: l.cold_slots };
}

function stopView(s: Stop) {
  // Which collection the stop's errand was charged with is the run's own record (internal).
  const { errand_waybill: _errand, ...fields } = s;
  return {
    ...fields,
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
  const { departed_at: _departed, transfer_key: _transfer, ...fields } = i;
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
    cold_chain_told: _told,
    follow_ups_due: _due,
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

export function driverRunListView(r: RunSummary) {
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
