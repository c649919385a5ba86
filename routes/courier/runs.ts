/**
 * Courier 2.10, 4.5, network runs for operations (business key, runs:operate unless stated): a run
 * made and read, its stops, its driver and its expenses. A handler parses, calls one flow of
 * src/courier/flows/runs and maps the answer (routes/courier/answers/runs.ts); the run's and its
 * stops' actions are in run_actions.ts, the driver's side in driver_runs.ts.
 */
import * as flows from "../../src/courier/flows/runs/mod.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { renamedFields } from "../../src/http/renamed.ts";
import { define, z } from "../../src/http/route.ts";
import { Country, Waybill } from "../../src/http/schemas.ts";
import { NetworkRunAnswer, runView, StopKind } from "./answers/runs.ts";
import { EXPENSE_REFUSALS, KEYED_CHANGE, RUN_CHANGE, RUN_GROWS } from "./answers/run_refusals.ts";
import { Capacities, ExpenseForm, IdempotencyKey, RunParam, Text } from "./answers/run_requests.ts";
import { callerOf, expense, operate, RUNS_TAG, viewFor } from "./answers/run_calls.ts";

const tag = RUNS_TAG;

export function runRoutes(api: Api): void {
  setupRoutes(api);
  workRoutes(api);
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
        planned_on_another_run: "deliver: another open run plans or carries the shipment " +
          "(named in the message) and has not given it its end state",
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
