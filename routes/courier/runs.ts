/**
 * Courier 4.5, network runs and stops, for operations (business key, runs:operate unless stated)
 * and for the driver of the run (driver token; another driver's run answers 404). Both record the
 * same steps through the same flows (src/courier/flows/runs): a handler parses, calls one flow
 * and maps the answer (routes/courier/answers/runs.ts).
 */
import type { Context } from "hono";
import type { RunSummary } from "../../actors/courier/network_run/mod.ts";
import { EVIDENCE_FILE_BYTES_MAX } from "../../src/courier/flows/evidence.ts";
import * as flows from "../../src/courier/flows/runs/mod.ts";
import { isCurrencyCode } from "../../src/domain/iso_codes.ts";
import { toMinor } from "../../src/domain/money.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { business, driver } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { courierPlatform } from "../../src/courier/auth.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { ApiError, validationFailed } from "../../src/http/errors.ts";
import { mergeRefusals } from "../../src/http/refusals.ts";
import { renamedFields } from "../../src/http/renamed.ts";
import { define, storableText, UNSTORABLE_TEXT, z } from "../../src/http/route.ts";
import { boundedForm, isMultipart, MULTIPART_OVERHEAD_BYTES_MAX } from "../../src/http/upload.ts";
import { Country, PlainText, Waybill } from "../../src/http/schemas.ts";
import {
  DriverRunAnswer,
  DriverRunListedAnswer,
  driverRunListView,
  DriverStopActionAnswer,
  driverView,
  NetworkRunAnswer,
  runView,
  StopActionAnswer,
  stopActionView,
  StopKind,
} from "./answers/runs.ts";
import {
  DRIVERS_RUN,
  EXPENSE_REFUSALS,
  KEYED_CHANGE,
  RUN_ACTION_REFUSALS,
  RUN_CHANGE,
  RUN_GROWS,
  STOP_ACTION_REFUSALS,
} from "./answers/run_refusals.ts";
import {
  Capacities,
  ExpenseForm,
  IDEMPOTENCY_KEY_CHARS_MAX,
  IdempotencyKey,
  RunParam,
  StopParams,
  Text,
} from "./answers/run_requests.ts";
import { openRunsOfDriver } from "../../src/courier/queries/runs.ts";

const tag = "Network runs";
const operate = [business({ scope: "runs:operate" }), courierPlatform];
const asDriver = [driver, courierPlatform];

/** Who calls, as the run flows take it. */
function callerOf(c: Context<AppEnv>): flows.RunCaller {
  const { principal, tenant, by } = businessCall(c);
  return {
    tenant,
    by,
    scopes: principal.scopes,
    driver_id: principal.kind === "driver" ? principal.driver_id : null,
  };
}

/** The driver signed in on this request; a non-driver principal is a programming error. */
function driverIdOf(c: Context<AppEnv>): string {
  const id = callerOf(c).driver_id;
  if (id === null) throw new ApiError("unauthenticated", "a driver token is needed");
  return id;
}

/** The view a caller gets: drivers never see values (courier 2.10). */
function viewFor(c: Context<AppEnv>, run: Parameters<typeof runView>[0]) {
  return businessCall(c).principal.kind === "driver" ? driverView(run) : runView(run);
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

const RUN_ACTION_FLOWS: Readonly<Record<typeof RUN_ACTIONS[number], flows.RunAction>> = {
  depart: flows.depart,
  arrive: flows.arrive,
  unload: flows.unload,
  reorder: flows.reorder,
  transfer: flows.transfer,
  report: flows.report,
  close: flows.close,
  waiting: flows.waiting,
};

const STOP_ACTION_FLOWS = {
  border: flows.border,
  cross: flows.cross,
  deliver: flows.deliver,
  collect: flows.collect,
  fail: flows.fail,
} as const;

export function runRoutes(api: Api): void {
  setupRoutes(api);
  workRoutes(api);
  actionRoutes(api);
  driverRoutes(api);
}

/** A run made, and read. */
function setupRoutes(api: Api): void {
  define(api, {
    method: "post",
    path: "/business/network-runs",
    summary: "Create a network run (courier 2.10)",
    tag,
    security: "business",
    middleware: operate,
    // spec: courier 2.10 says capacities; `capacity`, its former name here, is read too (9.2).
    body: renamedFields(
      z.object({
        facility_id: Text(120),
        kind: Text(60),
        countries: z.array(Country).min(1).max(20),
        capacities: Capacities.openapi({
          description: "kg, m3, pieces and cold slots (`capacity`, its former name, is read too)",
        }),
        vehicle: Text(120).nullable().optional(),
        driver_id: Text(64).nullable().optional(),
      }),
      { capacity: "capacities" },
    ),
    status: 201,
    response: NetworkRunAnswer,
    refusals: { validation_failed: "driver_id is none of the courier's drivers" },
  }, async (c, { body }) => {
    const run = await flows.createRun(c.get("env"), callerOf(c), {
      ...body,
      vehicle: body.vehicle ?? null,
      driver_id: body.driver_id ?? null,
    });
    return ok(c, runView(run), 201);
  });

  define(
    api,
    {
      method: "get",
      path: "/business/network-runs/{run}",
      summary: "One network run",
      tag,
      security: "business",
      middleware: operate,
      params: RunParam,
      response: NetworkRunAnswer,
    },
    async (c, { params }) =>
      ok(c, runView(await flows.runFor(c.get("env"), callerOf(c), params.run))),
  );
}

/** A run's stops, its driver and its expenses. */
function workRoutes(api: Api): void {
  define(
    api,
    {
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
          reserved: Capacities,
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
        planned_on_another_run: "deliver: another open run plans the shipment (named in the " +
          "message) and has not given it its end state",
        shipment_closed: "deliver: the shipment is delivered, returned or cancelled already",
        capacity_exceeded: "the stop's load or reservation exceeds the run's capacity",
      },
    },
    async (c, { params, body }) =>
      ok(c, runView(await flows.addStop(c.get("env"), callerOf(c), params.run, body)), 201),
  );

  define(
    api,
    {
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
    },
    async (c, { params, body }) =>
      ok(
        c,
        runView(await flows.assignDriver(c.get("env"), callerOf(c), params.run, body.driver_id)),
      ),
  );

  define(api, {
    method: "post",
    path: "/business/network-runs/{run}/expenses",
    summary: "Record a run expense: multipart with a `receipt` file, `idempotency_key`, " +
      "`amount` and `currency`",
    tag,
    security: "business",
    middleware: operate,
    params: RunParam,
    multipart: ExpenseForm,
    status: 201,
    response: NetworkRunAnswer,
    refusals: EXPENSE_REFUSALS,
  }, async (c, { params }) => ok(c, viewFor(c, await expense(c, params.run)), 201));
}

/** The run actions and the stop actions, for operations and the run's driver. */
function actionRoutes(api: Api): void {
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
      ok(
        c,
        runView(
          await RUN_ACTION_FLOWS[params.action](c.get("env"), callerOf(c), params.run, body),
        ),
      ),
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
      async (c, { params, body }) => {
        const caller = callerOf(c);
        const act = STOP_ACTION_FLOWS[params.action];
        const answer = await act(c.get("env"), caller, params.run, params.stop, body);
        return ok(c, stopActionView(answer, caller.driver_id !== null));
      },
    );
  }
}

function driverRoutes(api: Api): void {
  // The driver's side: the same steps, on runs assigned to the driver only.
  define(api, {
    method: "get",
    path: "/driver/network-runs",
    summary: "The open runs assigned to the signed-in driver (a closed run is not listed)",
    tag,
    security: "driver",
    middleware: asDriver,
    response: z.array(DriverRunListedAnswer),
  }, async (c) => {
    const { env, tenant } = businessCall(c);
    const runs = await openRunsOfDriver<RunSummary>(env.db, tenant, driverIdOf(c), 100);
    // Each run's standing; GET /driver/network-runs/{run} has its stops.
    return ok(c, runs.map(driverRunListView));
  });

  define(
    api,
    {
      method: "get",
      path: "/driver/network-runs/{run}",
      summary: "One of the driver's open runs (no declared or customs values)",
      tag,
      security: "driver",
      middleware: asDriver,
      params: RunParam,
      response: DriverRunAnswer,
      refusals: DRIVERS_RUN,
    },
    async (c, { params }) =>
      ok(c, viewFor(c, await flows.runFor(c.get("env"), callerOf(c), params.run))),
  );

  define(api, {
    method: "post",
    path: "/driver/network-runs/{run}/expenses",
    summary: "Record a run expense with its receipt (multipart)",
    tag,
    security: "driver",
    middleware: asDriver,
    params: RunParam,
    multipart: ExpenseForm,
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
      ok(
        c,
        viewFor(
          c,
          await RUN_ACTION_FLOWS[params.action](c.get("env"), callerOf(c), params.run, body),
        ),
      ),
  );
}

/** spec: courier 4.5: expenses need a receipt file and an idempotency_key. */
async function expense(c: Context<AppEnv>, runId: string) {
  const env = c.get("env");
  const caller = callerOf(c);
  // The run (the driver's, for a driver) is found before its form is read.
  await flows.runFor(env, caller, runId);
  return await flows.recordExpense(env, caller, runId, await expenseForm(c));
}

/** The expense form (multipart): its receipt file, key, amount, currency and note. */
async function expenseForm(c: Context<AppEnv>): Promise<flows.ExpenseInput> {
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
  const note = form.get("note");
  return {
    key: String(key),
    amount_minor: (minor as { minor: number }).minor,
    currency: String(currency),
    receipt: {
      name: file.name || "receipt",
      content_type: file.type || "application/octet-stream",
      bytes: new Uint8Array(await file.arrayBuffer()),
    },
    note: typeof note === "string" ? note : null,
  };
}
