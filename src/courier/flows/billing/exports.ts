/**
 * The billing export (courier 3.1, 4.3): a file of one CSV row per ledger entry of a range, its
 * preview (changes nothing), and the export proper, which marks the range's pending entries
 * exported before the file is read, so an entry is never marked without being in the file.
 */
import { billingCsvStream, type ExportRange, markExported } from "../../queries/billing_export.ts";
import { rangeBound } from "../../../domain/range_bound.ts";
import { newId } from "../../../runtime/ids.ts";
import type { Deps } from "../../../environment.ts";
import { type BillingCaller, readAccount, refuseField } from "./account.ts";

/** A range as sent: a client, and days (`YYYY-MM-DD`, the whole day, UTC) or times. */
export interface ExportInput {
  readonly client_id?: string | undefined;
  readonly from?: string | undefined;
  readonly to?: string | undefined;
}

/** An export's file, streamed, and the range it covers. */
export interface ExportFile {
  readonly range: ExportRange;
  readonly csv: ReadableStream<Uint8Array>;
}

/** The file of a range in the entries' stored states; marks nothing (courier 3.1 rule 4). */
export async function previewExport(
  deps: Pick<Deps, "runtime" | "db" | "clock" | "settle">,
  courier: string,
  input: ExportInput,
): Promise<ExportFile> {
  const range = await exportRange(deps, courier, input);
  return { range, csv: await billingCsvStream(deps.db, range) };
}

/**
 * Marks the range's pending entries exported, then streams the file from the same range: the
 * file shows them exported (courier 3.1), with those an earlier export missed (the projection
 * lags) and without those that arrived after the marking (the next export takes them). Should
 * the file be lost, the preview of the same range gives its entries again.
 */
export async function exportEntries(
  deps: Pick<Deps, "runtime" | "db" | "clock" | "settle">,
  caller: BillingCaller,
  input: ExportInput,
): Promise<ExportFile & { readonly export_id: string; readonly marked: number }> {
  const range = await exportRange(deps, caller.courier, input);
  const exportId = newId("exp");
  const marked = await markExported(deps.db, range, exportId, caller.by);
  const csv = await billingCsvStream(deps.db, range, exportId);
  return { range, csv, export_id: exportId, marked };
}

/** The export range, after the query side has caught up with every committed entry. */
async function exportRange(
  deps: Pick<Deps, "runtime" | "clock" | "settle">,
  courier: string,
  input: ExportInput,
): Promise<ExportRange> {
  const now = deps.clock.now();
  // Another courier's client is not found, never exported.
  if (input.client_id !== undefined) await readAccount(deps.runtime, courier, input.client_id);
  const from = input.from === undefined ? null : boundOf(input.from, "start", "from");
  const to = input.to === undefined ? null : boundOf(input.to, "end", "to");
  if (from !== null && to !== null && from > to) refuseField("to", "must not be before from");
  // Everything committed before the file was asked for is in it.
  await deps.settle();
  return { tenant: courier, client_id: input.client_id ?? null, from, to, as_of: new Date(now) };
}

function boundOf(text: string, edge: "start" | "end", path: string): Date {
  // spec: courier 4.3: the range names calendar days, each checked to exist.
  const bound = rangeBound(text, edge);
  if (!bound.ok) refuseField(path, bound.message);
  return bound.at;
}
