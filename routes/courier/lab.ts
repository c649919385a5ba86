/**
 * Courier 4.5, 3.4, 2.10: laboratory samples. Operations set a sample's profile, tick checklist
 * items (the seal is the item `seal`), record temperature readings (append-only: there is no edit
 * or delete) and, with runs:override, record the laboratory's decision on a block. A driver may
 * tick and record readings for a shipment on a run assigned to them; any other answers 404.
 *
 * `{reference}` is the waybill. Another courier's shipment does not exist for the caller.
 */
import type { Context } from "hono";
import {
  checklistId,
  type ChecklistVersion,
  complianceChecklistActor,
} from "../../actors/courier/compliance_checklists.ts";
import {
  asLabSample,
  handoverVerdict,
  LAB_BLOCK_REASONS,
  LAB_DECISION_KINDS,
  LAB_DECISION_NOTE_CHARS_MAX,
  LAB_NAME_CHARS_MAX,
  LAB_NOTE_CHARS_MAX,
  type LabChecklistRef,
  type LabSample,
  labSampleActor,
  type LabSampleCommand,
  REJECTED_BY_LABORATORY,
  SEAL_STATUSES,
  TEMPERATURE_UNITS,
} from "../../actors/courier/lab_sample.ts";
import { asShipment, type Shipment, shipmentActor } from "../../actors/courier/shipment.ts";
import { assertDriverCarries } from "../../src/courier/flows/driver_access.ts";
import { bookColdChain } from "../../src/courier/flows/lab.ts";
import { coldChainOnRuns } from "../../src/courier/flows/runs.ts";
import { LATER_CHARGE_REFUSALS } from "../../src/courier/flows/later_charges.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { business, driver } from "../../src/platform/auth/auth.ts";
import { businessPrincipalOf, principalName } from "../../src/platform/auth/principal.ts";
import { courierPlatform } from "../../src/courier/auth.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { ApiError } from "../../src/http/errors.ts";
import { define, z } from "../../src/http/route.ts";
import { orNull, UtcInstant, Waybill } from "../../src/http/schemas.ts";
import { ask, read } from "../../src/http/ask.ts";
import { entryView, LedgerEntryAnswer } from "./answers/ledger.ts";
import { iso } from "../../src/domain/iso.ts";

const tag = "Laboratory samples";
const operate = [business({ scope: "runs:operate" }), courierPlatform];
const override = [business({ scope: "runs:override" }), courierPlatform];
const driving = [driver, courierPlatform];

const Text = (max: number) => z.string().trim().min(1).max(max);
const Name = Text(LAB_NAME_CHARS_MAX);
const Instant = z.iso.datetime({
  offset: true,
  error: "an ISO 8601 date-time with its offset (Z or +02:00)",
});
const Degrees = z.number().min(-1_000).max(1_000);

const Ref = z.object({ reference: Waybill });

const NO_PROFILE = {
  lab_profile_missing: "the sample has no laboratory profile yet: set it first",
};
/** What ticking a checklist item can refuse (lab_sample.ts tick). */
const TICK_REFUSALS = {
  ...NO_PROFILE,
  unknown_checklist_item: "the profile's checklist has no such item",
  tick_items_limit: "the sample keeps as many tick items as it may",
};
/** What a temperature reading can refuse (lab_sample.ts temperature). */
const READING_REFUSALS = {
  ...NO_PROFILE,
  validation_failed: "a reading needs value, unit, source, device and time",
  invalid_temperature: "not a temperature, or a time in the future",
};
const ON_DRIVERS_RUNS = { not_found: "the shipment is on none of the driver's runs" };

const ProfileBody = z.object({
  sample_type: Name,
  laboratory: Text(120).nullable().optional(),
  /** Either bound set makes the sample cold chain; °C to one decimal. */
  min_temp_c: Degrees.nullable().optional(),
  max_temp_c: Degrees.nullable().optional(),
  /** When the laboratory must have the sample. */
  deadline_at: Instant.nullable().optional(),
  seal_id: Name.nullable().optional(),
  checklist_code: Name.optional(),
  /** Default: the checklist's latest version. */
  checklist_version: z.number().int().positive().optional(),
});

const TickBody = z.object({
  item: Name,
  ok: z.boolean().default(true),
  note: z.string().max(LAB_NOTE_CHARS_MAX).nullable().optional(),
  /** With item `seal`: the seal found; another than the profile's counts as broken. */
  seal_id: Name.nullable().optional(),
});

/** Every field optional here: a missing one is refused as temperature_fields_required. */
const TemperatureBody = z.object({
  value: Degrees.nullable().optional(),
  unit: z.enum(TEMPERATURE_UNITS).nullable().optional(),
  source: z.string().trim().max(LAB_NAME_CHARS_MAX).nullable().optional(),
  device: z.string().trim().max(LAB_NAME_CHARS_MAX).nullable().optional(),
  time: Instant.nullable().optional(),
});

const ApproveBody = z.object({
  decision: z.enum(LAB_DECISION_KINDS),
  note: z.string().max(LAB_DECISION_NOTE_CHARS_MAX),
  /** Who at the laboratory decided. */
  by: Text(120).nullable().optional(),
});

// ---- Answers (documentation: tests/http/answers_runs_test.ts holds answers to them).

const Celsius = z.number().openapi({ description: "°C, to one decimal" });
const BlockReason = z.enum(LAB_BLOCK_REASONS);

/** spec: courier 2.10, 3.4: a laboratory sample as operations read it (labView). */
export const LabSampleAnswer = z.object({
  waybill: z.string(),
  sample_type: z.string(),
  laboratory: z.string().nullable(),
  cold_chain: z.boolean().openapi({ description: "Either temperature bound is set" }),
  min_temp_c: Celsius.nullable(),
  max_temp_c: Celsius.nullable(),
  deadline_at: UtcInstant.nullable().openapi({
    description: "When the laboratory must have the sample",
  }),
  seal_id: z.string().nullable().openapi({ description: "The seal the profile names" }),
  checklist: orNull(
    z.object({
      code: z.string(),
      version: z.number().int(),
      items: z.array(z.object({ key: z.string(), required: z.boolean() })),
    }).openapi("LabChecklist"),
  ).openapi({ description: "The compliance checklist version the profile uses" }),
  seal: z.enum(SEAL_STATUSES).openapi({ description: "As the ticks of the item `seal` found it" }),
  ticks: z.array(
    z.object({
      item: z.string(),
      ok: z.boolean(),
      note: z.string().nullable(),
      seal_id: z.string().nullable().openapi({ description: "Item `seal`: the seal found" }),
      by: z.string(),
      at: UtcInstant,
    }).openapi("LabTick"),
  ).openapi({ description: "The latest tick of each item" }),
  ticks_total: z.number().int(),
  readings: z.array(
    z.object({
      seq: z.number().int(),
      value: z.number().openapi({ description: "As sent, in `unit`" }),
      unit: z.enum(TEMPERATURE_UNITS),
      source: z.string(),
      device: z.string(),
      time: UtcInstant.openapi({ description: "When it was measured" }),
      celsius: Celsius,
      in_range: z.boolean().nullable().openapi({
        description: "Null when the profile sets no range",
      }),
      recorded_at: UtcInstant,
      by: z.string(),
    }).openapi("LabReading"),
  ).openapi({ description: "The latest readings, oldest first" }),
  readings_total: z.number().int(),
  out_of_range_total: z.number().int(),
  lowest_c: Celsius.nullable(),
  highest_c: Celsius.nullable(),
  blocks: z.array(
    z.object({
      reason: BlockReason,
      opened_at: UtcInstant,
      last_at: UtcInstant,
      occurrences: z.number().int(),
      detail: z.string().openapi({ description: "The latest occurrence, in words" }),
    }).openapi("LabBlock"),
  ).openapi({ description: "Open blocks on the handover, one per reason" }),
  decisions: z.array(
    z.object({
      decision: z.enum(LAB_DECISION_KINDS),
      note: z.string(),
      decided_by: z.string().nullable().openapi({ description: "Who at the laboratory decided" }),
      recorded_by: z.string(),
      at: UtcInstant,
      settled: z.array(BlockReason).openapi({ description: "The blocks this decision settled" }),
    }).openapi("LabDecision"),
  ).openapi({ description: "The laboratory's latest decisions" }),
  decisions_total: z.number().int(),
  rejected: z.boolean().openapi({ description: "The laboratory refused the handover for good" }),
  handover: z.object({
    allowed: z.boolean(),
    reasons: z.array(z.enum([REJECTED_BY_LABORATORY, ...LAB_BLOCK_REASONS])),
    missing_items: z.array(z.string()).openapi({
      description: "Required checklist items not ticked ok (they inform, never block)",
    }),
  }).openapi("LabHandover"),
  profiled_at: UtcInstant,
  profiled_by: z.string(),
  handed_over_at: UtcInstant.nullable().openapi({
    description: "When a run's deliver stop handed the sample to the laboratory; lateness is " +
      "judged up to it",
  }),
}).openapi("LabSample");

/** The sample after its profile, with the cold-chain charge it booked (once) if cold chain. */
export const LabProfiledAnswer = LabSampleAnswer.extend({
  cold_chain_charge: orNull(LedgerEntryAnswer),
}).openapi("LabSampleProfiled");

const degrees = (tenths: number | null) => tenths === null ? null : tenths / 10;

/** The sample as operations read it, with whether a handover may happen now. */
export function labView(s: LabSample, now: number) {
  const p = s.profile;
  return {
    waybill: s.waybill,
    sample_type: p.sample_type,
    laboratory: p.laboratory,
    cold_chain: s.cold_chain,
    min_temp_c: degrees(p.min_tenths),
    max_temp_c: degrees(p.max_tenths),
    deadline_at: iso(p.deadline_at),
    seal_id: p.seal_id,
    checklist: p.checklist,
    seal: s.seal,
    ticks: s.ticks.map((t) => ({ ...t, at: iso(t.at) })),
    ticks_total: s.ticks_total,
    readings: s.readings.map((r) => ({
      seq: r.seq,
      value: r.value,
      unit: r.unit,
      source: r.source,
      device: r.device,
      time: iso(r.time),
      celsius: degrees(r.celsius_tenths),
      in_range: r.in_range,
      recorded_at: iso(r.recorded_at),
      by: r.by,
    })),
    readings_total: s.readings_total,
    out_of_range_total: s.out_of_range_total,
    lowest_c: degrees(s.lowest_tenths),
    highest_c: degrees(s.highest_tenths),
    blocks: s.blocks.map((b) => ({ ...b, opened_at: iso(b.opened_at), last_at: iso(b.last_at) })),
    decisions: s.decisions.map((d) => ({ ...d, at: iso(d.at) })),
    decisions_total: s.decisions_total,
    rejected: s.rejected,
    handover: handoverVerdict(s, now),
    profiled_at: iso(s.profiled_at),
    profiled_by: s.profiled_by,
    handed_over_at: iso(s.handed_over_at),
  };
}

function tenantOf(c: Context<AppEnv>): string {
  return businessPrincipalOf(c).business.id;
}

/** This courier's shipment; another courier's or an unknown waybill answers 404. */
async function shipmentOf(c: Context<AppEnv>, waybill: string): Promise<Shipment> {
  return asShipment(await read(c, shipmentActor, tenantOf(c), waybill, { kind: "get" }));
}

async function checklistRef(
  c: Context<AppEnv>,
  code: string,
  version: number | undefined,
): Promise<LabChecklistRef> {
  const tenant = tenantOf(c);
  const r = await c.get("env").runtime.ask(
    complianceChecklistActor,
    tenant,
    checklistId(tenant, code),
    { kind: "get" },
  );
  if (!r.ok) throw new ApiError("not_found", `no compliance checklist ${code}`);
  const versions = r.reply.checklist.versions;
  const found: ChecklistVersion | undefined = version === undefined
    ? versions.at(-1)
    : versions.find((v) => v.version === version);
  if (!found) throw new ApiError("not_found", `checklist ${code} has no version ${version}`);
  return {
    code,
    version: found.version,
    items: found.items.map((i) => ({ key: i.key, required: i.required })),
  };
}

async function command(c: Context<AppEnv>, waybill: string, cmd: LabSampleCommand) {
  const s = asLabSample(await ask(c, labSampleActor, tenantOf(c), waybill, cmd));
  return labView(s, c.get("env").clock.now());
}

function tickCommand(c: Context<AppEnv>, body: z.infer<typeof TickBody>): LabSampleCommand {
  return {
    kind: "tick",
    item: body.item,
    ok: body.ok,
    note: body.note ?? null,
    seal_id: body.seal_id ?? null,
    by: principalName(businessPrincipalOf(c)),
  };
}

function temperatureCommand(
  c: Context<AppEnv>,
  body: z.infer<typeof TemperatureBody>,
): LabSampleCommand {
  return {
    kind: "temperature",
    reading: {
      value: body.value ?? null,
      unit: body.unit ?? null,
      source: body.source ?? null,
      device: body.device ?? null,
      time: body.time ? Date.parse(body.time) : null,
    },
    by: principalName(businessPrincipalOf(c)),
  };
}

export function labRoutes(api: Api): void {
  define(api, {
    method: "post",
    path: "/business/shipments/{reference}/lab/profile",
    summary: "Set a laboratory sample's profile: type, temperature range in °C (either bound " +
      "makes it cold chain and books the cold-chain charge once), deadline, seal, checklist. " +
      "Replaceable until the first tick, reading or block, or until its deadline passes",
    tag,
    security: "business",
    middleware: operate,
    params: Ref,
    body: ProfileBody,
    response: LabProfiledAnswer,
    refusals: {
      not_found: "no compliance checklist by checklist_code, or no such checklist_version",
      invalid_temperature_range: "a bound with more than one decimal or out of range, or " +
        "min_temp_c above max_temp_c",
      lab_profile_locked: "ticks, readings or blocks are recorded, or the deadline has " +
        "passed: the profile is fixed",
      capacity_exceeded: "a temperature range makes the sample cold chain, and a run it is on " +
        "has fewer cold slots free than it has pieces (`run_id` names it)",
      ...LATER_CHARGE_REFUSALS,
    },
  }, async (c, { params, body }) => {
    const p = businessPrincipalOf(c);
    const shipment = await shipmentOf(c, params.reference);
    const checklist = body.checklist_code
      ? await checklistRef(c, body.checklist_code, body.checklist_version)
      : null;
    const env = c.get("env");
    const by = principalName(p);
    // Cold slots on the runs it boarded are taken before the sample is cold, so no run carries
    // it uncounted; a run without room refuses the profile (courier 2.10; 5 runs:override).
    const cold = (body.min_temp_c ?? null) !== null || (body.max_temp_c ?? null) !== null;
    const reserved = cold
      ? await coldChainOnRuns(env.runtime, p.business.id, shipment.waybill, true, by)
      : null;
    let s;
    try {
      s = asLabSample(
        await ask(c, labSampleActor, p.business.id, shipment.waybill, {
          kind: "profile",
          waybill: shipment.waybill,
          courier_id: p.business.id,
          profile: {
            sample_type: body.sample_type,
            laboratory: body.laboratory ?? null,
            min_temp_c: body.min_temp_c ?? null,
            max_temp_c: body.max_temp_c ?? null,
            deadline_at: body.deadline_at ? Date.parse(body.deadline_at) : null,
            seal_id: body.seal_id ?? null,
            checklist,
          },
          by,
        }),
      );
    } catch (e) {
      await reserved?.undo();
      throw e;
    }
    if (!s.cold_chain) {
      await coldChainOnRuns(env.runtime, p.business.id, shipment.waybill, false, by);
    }
    const charge = s.cold_chain ? await bookColdChain(env.runtime, shipment, by) : null;
    return ok(c, {
      ...labView(s, env.clock.now()),
      cold_chain_charge: charge ? entryView(charge) : null,
    });
  });

  define(api, {
    method: "post",
    path: "/business/shipments/{reference}/lab/tick",
    summary: "Tick a checklist item; item `seal` with `ok: false` (or another seal id) records " +
      "a broken seal, which blocks the handover",
    tag,
    security: "business",
    middleware: operate,
    params: Ref,
    body: TickBody,
    status: 201,
    response: LabSampleAnswer,
    refusals: TICK_REFUSALS,
  }, async (c, { params, body }) => {
    const shipment = await shipmentOf(c, params.reference);
    return ok(c, await command(c, shipment.waybill, tickCommand(c, body)), 201);
  });

  define(api, {
    method: "post",
    path: "/business/shipments/{reference}/lab/temperature",
    summary: "Append a temperature reading: value, unit (C or F), source, device and time are " +
      "all needed (422 temperature_fields_required names what is missing). Readings are never " +
      "edited or deleted",
    tag,
    security: "business",
    middleware: operate,
    params: Ref,
    body: TemperatureBody,
    status: 201,
    response: LabSampleAnswer,
    refusals: READING_REFUSALS,
  }, async (c, { params, body }) => {
    const shipment = await shipmentOf(c, params.reference);
    return ok(c, await command(c, shipment.waybill, temperatureCommand(c, body)), 201);
  });

  define(api, {
    method: "post",
    path: "/business/shipments/{reference}/lab/approve",
    summary: "Record the laboratory's decision on the open blocks (late, out of range, broken " +
      "seal): `accept` clears them, `reject` refuses the handover for good. Needs runs:override",
    tag,
    security: "business",
    middleware: override,
    params: Ref,
    body: ApproveBody,
    response: LabSampleAnswer,
    refusals: {
      ...NO_PROFILE,
      lab_decision_final: "the laboratory already rejected the sample",
      validation_failed: "the decision has no note",
      nothing_to_approve: "no block awaits the laboratory's decision",
    },
  }, async (c, { params, body }) => {
    const shipment = await shipmentOf(c, params.reference);
    return ok(
      c,
      await command(c, shipment.waybill, {
        kind: "approve",
        decision: body.decision,
        note: body.note,
        decided_by: body.by ?? null,
        by: principalName(businessPrincipalOf(c)),
      }),
    );
  });

  define(api, {
    method: "get",
    path: "/business/shipments/{reference}/lab",
    summary: "A shipment's laboratory record: profile, ticks, the latest readings, blocks, " +
      "decisions and whether a handover may happen now",
    tag,
    security: "business",
    middleware: operate,
    params: Ref,
    response: LabSampleAnswer,
    refusals: { not_found: "the shipment has no laboratory record" },
  }, async (c, { params }) => {
    const shipment = await shipmentOf(c, params.reference);
    return ok(c, await command(c, shipment.waybill, { kind: "get" }));
  });

  define(api, {
    method: "post",
    path: "/driver/shipments/{reference}/lab/tick",
    summary: "A driver ticks a checklist item of a sample on one of their runs",
    tag,
    security: "driver",
    middleware: driving,
    params: Ref,
    body: TickBody,
    status: 201,
    response: LabSampleAnswer,
    refusals: { ...TICK_REFUSALS, ...ON_DRIVERS_RUNS },
  }, async (c, { params, body }) => {
    await assertDriverCarries(c, params.reference);
    return ok(c, await command(c, params.reference, tickCommand(c, body)), 201);
  });

  define(api, {
    method: "post",
    path: "/driver/shipments/{reference}/lab/temperature",
    summary: "A driver records a temperature reading of a sample on one of their runs",
    tag,
    security: "driver",
    middleware: driving,
    params: Ref,
    body: TemperatureBody,
    status: 201,
    response: LabSampleAnswer,
    refusals: { ...READING_REFUSALS, ...ON_DRIVERS_RUNS },
  }, async (c, { params, body }) => {
    await assertDriverCarries(c, params.reference);
    return ok(c, await command(c, params.reference, temperatureCommand(c, body)), 201);
  });
}
