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
  LAB_DECISION_KINDS,
  LAB_DECISION_NOTE_CHARS_MAX,
  LAB_NAME_CHARS_MAX,
  LAB_NOTE_CHARS_MAX,
  type LabSample,
  type LabSampleCommand,
  TEMPERATURE_UNITS,
} from "../../actors/courier/lab_sample/mod.ts";
import { assertDriverCarries } from "../../src/courier/flows/driver_access.ts";
import { askLabSample, labSampleCommand } from "../../src/courier/flows/lab.ts";
import { profileLabSample } from "../../src/courier/flows/lab_profile.ts";
import { LATER_CHARGE_REFUSALS } from "../../src/courier/flows/later_charges.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { business, driver } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { courierPlatform } from "../../src/courier/auth.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { define, z } from "../../src/http/route.ts";
import { orNull, Waybill } from "../../src/http/schemas.ts";
import { entryView, LedgerEntryAnswer } from "./answers/ledger.ts";
import { LabSampleAnswer, labView } from "./answers/lab.ts";

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
  // spec: courier 3.4: a block meeting a run's delivery under way has the run void it first.
  delivery_under_way: "a block or rejection kept meeting runs recording the sample's delivery: " +
    "sent again, it is recorded",
};
/** What ticking a checklist item can refuse (lab_sample/tick.ts). */
const TICK_REFUSALS = {
  ...NO_PROFILE,
  unknown_checklist_item: "the profile's checklist has no such item",
  tick_items_limit: "the sample keeps as many tick items as it may",
};
/** What a temperature reading can refuse (lab_sample/reading.ts). */
const READING_REFUSALS = {
  ...NO_PROFILE,
  // CONTRACT "Errors": a missing fact is validation_failed, the actor's code kept as `rule`.
  validation_failed: "a reading needs value, unit, source, device and time: rule " +
    "`temperature_fields_required`, `missing` names what is missing",
  invalid_temperature: "not a temperature, or a time in the future",
  readings_limit: "the sample keeps as many readings as it may",
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
}).refine((b) => b.checklist_version === undefined || b.checklist_code !== undefined, {
  // spec: courier 2.10: checklists are versioned by code; a version alone names none.
  path: ["checklist_version"],
  message: "checklist_version needs checklist_code",
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

/** The sample after its profile, with the cold-chain charge it booked (once) if cold chain. */
export const LabProfiledAnswer = LabSampleAnswer.extend({
  cold_chain_charge: orNull(LedgerEntryAnswer),
}).openapi("LabSampleProfiled");

/** The sample as answered, with whether a handover may happen now. */
function answer(c: Context<AppEnv>, s: LabSample) {
  return labView(s, c.get("env").clock.now());
}

/** A command on a sample of one of this courier's shipments (another's answers 404). */
async function command(c: Context<AppEnv>, waybill: string, cmd: LabSampleCommand) {
  const { env, tenant } = businessCall(c);
  return answer(c, await labSampleCommand(env.runtime, tenant, waybill, cmd));
}

/** A command on a sample the signed-in driver carries (checked before). */
async function driverCommand(c: Context<AppEnv>, waybill: string, cmd: LabSampleCommand) {
  const { env, tenant } = businessCall(c);
  return answer(c, await askLabSample(env.runtime, tenant, waybill, cmd));
}

function tickCommand(c: Context<AppEnv>, body: z.infer<typeof TickBody>): LabSampleCommand {
  return {
    kind: "tick",
    item: body.item,
    ok: body.ok,
    note: body.note ?? null,
    seal_id: body.seal_id ?? null,
    by: businessCall(c).by,
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
    by: businessCall(c).by,
  };
}

export function labRoutes(api: Api): void {
  define(api, {
    method: "post",
    path: "/business/shipments/{reference}/lab/profile",
    summary: "Set a laboratory sample's profile: type, temperature range in °C (either bound " +
      "makes it cold chain and books the cold-chain charge once), deadline, seal, checklist. " +
      "Replaceable until the first tick, reading or block, its deadline, or its handover to the " +
      "laboratory",
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
      lab_profile_locked: "ticks, readings or blocks are recorded, the deadline has passed, " +
        "or a run handed the sample to the laboratory: the profile is fixed",
      shipment_closed: "the shipment is delivered, returned or cancelled: its sample takes no " +
        "new profile (the one it has, sent again, answers as before)",
      capacity_exceeded: "a temperature range makes the sample cold chain, and a run it is on " +
        "has fewer cold slots free than it has pieces (`run_id` names it)",
      request_in_progress: "the cold slots reserved for it lapsed each time while the profile " +
        "waited: nothing was changed, send it again",
      ...LATER_CHARGE_REFUSALS,
    },
  }, async (c, { params, body }) => {
    const { env, tenant, by } = businessCall(c);
    const r = await profileLabSample(env.runtime, tenant, {
      waybill: params.reference,
      profile: {
        sample_type: body.sample_type,
        laboratory: body.laboratory ?? null,
        min_temp_c: body.min_temp_c ?? null,
        max_temp_c: body.max_temp_c ?? null,
        deadline_at: body.deadline_at ? Date.parse(body.deadline_at) : null,
        seal_id: body.seal_id ?? null,
      },
      checklist: body.checklist_code
        ? { code: body.checklist_code, version: body.checklist_version }
        : null,
      by,
    });
    return ok(c, {
      ...answer(c, r.sample),
      cold_chain_charge: r.cold_chain_charge ? entryView(r.cold_chain_charge) : null,
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
    return ok(c, await command(c, params.reference, tickCommand(c, body)), 201);
  });

  define(api, {
    method: "post",
    path: "/business/shipments/{reference}/lab/temperature",
    summary: "Append a temperature reading: value, unit (C or F), source, device and time are " +
      "all needed (422 validation_failed with rule temperature_fields_required names what is " +
      "missing). Readings are never edited or deleted",
    tag,
    security: "business",
    middleware: operate,
    params: Ref,
    body: TemperatureBody,
    status: 201,
    response: LabSampleAnswer,
    refusals: READING_REFUSALS,
  }, async (c, { params, body }) => {
    return ok(c, await command(c, params.reference, temperatureCommand(c, body)), 201);
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
    return ok(
      c,
      await command(c, params.reference, {
        kind: "approve",
        decision: body.decision,
        note: body.note,
        decided_by: body.by ?? null,
        by: businessCall(c).by,
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
    return ok(c, await command(c, params.reference, { kind: "get" }));
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
    const { env, principal } = businessCall(c);
    await assertDriverCarries(env, principal, params.reference);
    return ok(c, await driverCommand(c, params.reference, tickCommand(c, body)), 201);
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
    const { env, principal } = businessCall(c);
    await assertDriverCarries(env, principal, params.reference);
    return ok(c, await driverCommand(c, params.reference, temperatureCommand(c, body)), 201);
  });
}
