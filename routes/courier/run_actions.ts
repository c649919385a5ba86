/**
 * Courier 2.10, 4.5, the actions recorded on a network run: the run's own (depart, arrive, unload,
 * reorder, transfer, report, close, waiting) for operations, and its stops' (border, cross,
 * deliver, collect, fail) for operations and the run's driver. Both record the same steps through
 * the same flows (src/courier/flows/runs); a handler parses, calls one flow and maps the answer.
 */
import * as flows from "../../src/courier/flows/runs/mod.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { mergeRefusals } from "../../src/http/refusals.ts";
import { define, z } from "../../src/http/route.ts";
import {
  DriverStopActionAnswer,
  NetworkRunAnswer,
  runView,
  StopActionAnswer,
  stopActionView,
} from "./answers/runs.ts";
import { DRIVERS_RUN, RUN_ACTION_REFUSALS, STOP_ACTION_REFUSALS } from "./answers/run_refusals.ts";
import {
  RUN_ACTIONS,
  RunActionBody,
  STOP_ACTIONS,
  StopActionBody,
  StopParams,
  Text,
} from "./answers/run_requests.ts";
import { asDriver, callerOf, operate, RUN_ACTION_FLOWS, RUNS_TAG } from "./answers/run_calls.ts";

const tag = RUNS_TAG;

const STOP_ACTION_FLOWS = {
  border: flows.border,
  cross: flows.cross,
  deliver: flows.deliver,
  collect: flows.collect,
  fail: flows.fail,
} as const;

/** The run actions and the stop actions, for operations and the run's driver. */
export function runActionRoutes(api: Api): void {
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
