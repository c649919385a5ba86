/**
 * Courier 4.5, network runs for the run's driver (driver token; another driver's run answers
 * 404): the driver's open runs, one of them, its expenses and the run actions a driver records,
 * through the same flows as operations (src/courier/flows/runs). A driver never sees values
 * (courier 2.10). The stop actions a driver records are in run_actions.ts.
 */
import type { Context } from "hono";
import type { RunSummary } from "../../actors/courier/network_run/mod.ts";
import * as flows from "../../src/courier/flows/runs/mod.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { ApiError } from "../../src/http/errors.ts";
import { mergeRefusals } from "../../src/http/refusals.ts";
import { define, z } from "../../src/http/route.ts";
import { DriverRunAnswer, DriverRunListedAnswer, driverRunListView } from "./answers/runs.ts";
import { DRIVERS_RUN, EXPENSE_REFUSALS, RUN_ACTION_REFUSALS } from "./answers/run_refusals.ts";
import {
  DRIVER_RUN_ACTIONS,
  ExpenseForm,
  RunActionBody,
  RunParam,
  Text,
} from "./answers/run_requests.ts";
import {
  asDriver,
  callerOf,
  expense,
  RUN_ACTION_FLOWS,
  RUNS_TAG,
  viewFor,
} from "./answers/run_calls.ts";
import { openRunsOfDriver } from "../../src/courier/queries/runs.ts";

const tag = RUNS_TAG;

/** The driver signed in on this request; a non-driver principal is a programming error. */
function driverIdOf(c: Context<AppEnv>): string {
  const id = callerOf(c).driver_id;
  if (id === null) throw new ApiError("unauthenticated", "a driver token is needed");
  return id;
}

/** The driver's open runs, one run, its expenses and the run actions a driver records. */
export function driverRunRoutes(api: Api): void {
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
