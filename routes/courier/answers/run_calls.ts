/**
 * What the network-run route files share (routes/courier/runs.ts, run_actions.ts, driver_runs.ts):
 * their tag and middleware, who calls as the run flows take it, the view a caller gets, the run
 * actions' flows, and an expense read from its form and recorded.
 */
import type { Context } from "hono";
import { EVIDENCE_FILE_BYTES_MAX } from "../../../src/courier/flows/evidence.ts";
import * as flows from "../../../src/courier/flows/runs/mod.ts";
import { isCurrencyCode } from "../../../src/domain/iso_codes.ts";
import { toMinor } from "../../../src/domain/money.ts";
import { business, driver } from "../../../src/platform/auth/auth.ts";
import { businessCall } from "../../../src/platform/auth/caller.ts";
import { courierPlatform } from "../../../src/courier/auth.ts";
import type { AppEnv } from "../../../src/http/context.ts";
import { validationFailed } from "../../../src/http/errors.ts";
import { unsupportedMedia } from "../../../src/http/media_type.ts";
import { storableText, UNSTORABLE_TEXT } from "../../../src/http/route.ts";
import {
  boundedForm,
  isMultipart,
  MULTIPART_OVERHEAD_BYTES_MAX,
} from "../../../src/http/upload.ts";
import { driverView, runView } from "./runs.ts";
import { IDEMPOTENCY_KEY_CHARS_MAX, type RUN_ACTIONS } from "./run_requests.ts";

/** The OpenAPI tag of every network-run route. */
export const RUNS_TAG = "Network runs";
/** Operations: a business key with runs:operate, on the courier platform. */
export const operate = [business({ scope: "runs:operate" }), courierPlatform];
/** The run's driver: a driver token, on the courier platform. */
export const asDriver = [driver, courierPlatform];

/** Who calls, as the run flows take it. */
export function callerOf(c: Context<AppEnv>): flows.RunCaller {
  const { principal, tenant, by } = businessCall(c);
  return {
    tenant,
    by,
    scopes: principal.scopes,
    driver_id: principal.kind === "driver" ? principal.driver_id : null,
  };
}

/** The view a caller gets: drivers never see values (courier 2.10). */
export function viewFor(c: Context<AppEnv>, run: Parameters<typeof runView>[0]) {
  return businessCall(c).principal.kind === "driver" ? driverView(run) : runView(run);
}

/** The flow recording each run action, for operations and the run's driver. */
export const RUN_ACTION_FLOWS: Readonly<Record<typeof RUN_ACTIONS[number], flows.RunAction>> = {
  depart: flows.depart,
  arrive: flows.arrive,
  unload: flows.unload,
  reorder: flows.reorder,
  transfer: flows.transfer,
  report: flows.report,
  close: flows.close,
  waiting: flows.waiting,
};

/** spec: courier 4.5: expenses need a receipt file and an idempotency_key. */
export async function expense(c: Context<AppEnv>, runId: string) {
  const env = c.get("env");
  const caller = callerOf(c);
  // The run (the driver's, for a driver) is found before its form is read.
  await flows.runFor(env, caller, runId);
  return await flows.recordExpense(env, caller, runId, await expenseForm(c));
}

/** The expense form's text fields; its one file is `receipt`. */
const EXPENSE_TEXTS: ReadonlySet<string> = new Set([
  "idempotency_key",
  "amount",
  "currency",
  "note",
]);

/**
 * A file where the form takes text, or one it does not take, is refused rather than dropped (a
 * note sent as a file was an expense without its note); text Postgres cannot keep would be
 * committed and never reach the query side (route.ts).
 */
function fieldProblems(form: FormData): { path: string; message: string }[] {
  const errors = [];
  for (const [name, value] of form.entries()) {
    if (name === "receipt") continue;
    if (typeof value !== "string") {
      const message = EXPENSE_TEXTS.has(name) ? "must be text, not a file" : "not a file field";
      errors.push({ path: name, message });
    } else if (EXPENSE_TEXTS.has(name) && !storableText(value)) {
      errors.push({ path: name, message: UNSTORABLE_TEXT });
    }
  }
  return errors;
}

/** The expense form (multipart): its receipt file, key, amount, currency and note. */
async function expenseForm(c: Context<AppEnv>): Promise<flows.ExpenseInput> {
  if (!isMultipart(c)) throw unsupportedMedia(c, "multipart/form-data");
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
  const errors = fieldProblems(form);
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
