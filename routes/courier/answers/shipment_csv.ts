/**
 * Courier 4.6, booking from a CSV upload: the documented columns, the template, and one file read
 * into shipment requests, each with its line number (the header is line 1) or the errors of its
 * line by column. A file that cannot be read as a whole (no header, a missing required column,
 * over the line cap, broken quoting) is refused before anything is booked.
 */
import type { Context } from "hono";
import { parse } from "csv-parse/sync";
import { CSV_BOOKING_LINES_MAX, UPLOAD_BODY_BYTES_MAX } from "../../../src/limits.ts";
import type { AppEnv } from "../../../src/http/context.ts";
import { validationFailed } from "../../../src/http/errors.ts";
import { boundedBody, boundedForm, isMultipart } from "../../../src/http/upload.ts";
import { unsupportedMedia } from "../../../src/http/media_type.ts";
import { storableText, UNSTORABLE_TEXT } from "../../../src/http/route.ts";
import { csvLines } from "../../../src/domain/csv.ts";
import { ShipmentRequest, type ShipmentRequestBody, unknownServiceLevel } from "./booking.ts";

type Kind = "text" | "number" | "pieces" | "boolean";

/** The columns, in template order; names are the fields of POST /client/shipments. */
export const CSV_COLUMNS: Readonly<Record<string, Kind>> = {
  client_order_reference: "text",
  service_level: "text",
  sender_name: "text",
  sender_address: "text",
  sender_lat: "number",
  sender_lng: "number",
  recipient_name: "text",
  recipient_phone: "text",
  recipient_address: "text",
  recipient_lat: "number",
  recipient_lng: "number",
  from_country: "text",
  to_country: "text",
  /** Identical parcels of weight_kg and the three sides (default 1). */
  pieces: "pieces",
  weight_kg: "number",
  length_cm: "number",
  width_cm: "number",
  height_cm: "number",
  contents: "text",
  declared_value: "text",
  liability_cover: "boolean",
  dangerous_goods_confirmed: "boolean",
  external_customer_code: "text",
  external_billing_reference: "text",
  idempotency_key: "text",
};

export const CSV_REQUIRED_COLUMNS = [
  "service_level",
  "from_country",
  "to_country",
  "weight_kg",
  "length_cm",
  "width_cm",
  "height_cm",
] as const;

const PARCEL_COLUMNS = new Set(["weight_kg", "length_cm", "width_cm", "height_cm"]);
const PIECES_MAX = 50;

export interface CsvError {
  readonly column: string | null;
  readonly message: string;
}

/** One data line: the request it makes, or what is wrong with it. */
export type CsvLine =
  & { readonly line: number; readonly content: string }
  & ({ readonly req: ShipmentRequestBody } | { readonly errors: readonly CsvError[] });

export interface CsvFile {
  readonly lines: readonly CsvLine[];
  /** Header cells that are not columns of the template (ignored). */
  readonly ignored_columns: readonly string[];
}

/** The template: the header and one example line. */
export function csvTemplate(serviceLevel: string): string {
  const example: Record<string, string> = {
    client_order_reference: "ORD-1001",
    service_level: serviceLevel,
    sender_name: "Molapo Pharmacy",
    sender_address: "Plot 123, Main Mall, Gaborone",
    recipient_name: "Neo Kgosi",
    recipient_phone: "+26771234567",
    recipient_address: "Plot 9, Block 8, Gaborone",
    from_country: "BW",
    to_country: "BW",
    pieces: "1",
    weight_kg: "2.5",
    length_cm: "30",
    width_cm: "20",
    height_cm: "10",
    contents: "Medicines",
    declared_value: "250.00",
    liability_cover: "false",
    dangerous_goods_confirmed: "false",
  };
  const columns = Object.keys(CSV_COLUMNS);
  // The service level is the courier's own code: written as any other cell, safe to open.
  return csvLines([columns, columns.map((c) => example[c] ?? "")]);
}

/** Reads a whole upload; refuses the file when it cannot be read as a whole. */
/** `serviceLevels`: the courier's codes; a line naming another is refused with its other errors. */
export function readCsv(text: string, serviceLevels?: readonly string[]): CsvFile {
  if (!storableText(text)) throw validationFailed([{ path: "file", message: UNSTORABLE_TEXT }]);
  let records: { record: string[]; info: { lines: number; empty_lines: number } }[];
  try {
    records = parse(text, {
      info: true,
      bom: true,
      trim: true,
      skip_empty_lines: true,
      relax_column_count: true,
    }) as unknown as typeof records; // `info: true` answers {record, info} pairs
  } catch (e) {
    const line = (e as { lines?: number }).lines;
    throw validationFailed([{
      path: "file",
      message: `not valid CSV${line ? ` at line ${line}` : ""}: ${(e as Error).message}`,
    }]);
  }
  const [head, ...rest] = records;
  if (!head) throw validationFailed([{ path: "file", message: "empty: a header line is needed" }]);
  const header = head.record.map((h) => h.toLowerCase());
  checkHeader(header);
  const lines: CsvLine[] = [];
  // csv-parse counts a CRLF inside a quoted cell as two lines; the file shows one (a CSV saved
  // on Windows): each such line end read so far is taken back off its count.
  let crlf = crlfIn(head.record);
  let end = head.info.lines - crlf;
  let empty = head.info.empty_lines;
  for (const { record, info } of rest) {
    const line = end + 1 + (info.empty_lines - empty);
    crlf += crlfIn(record);
    end = info.lines - crlf;
    empty = info.empty_lines;
    if (record.every((cell) => cell === "")) continue; // a spreadsheet's blank row
    if (lines.length === CSV_BOOKING_LINES_MAX) {
      throw validationFailed([{
        path: "file",
        message:
          `at most ${CSV_BOOKING_LINES_MAX} lines of shipments per upload: more from line ${line}`,
      }]);
    }
    lines.push({
      line,
      content: JSON.stringify(record),
      ...lineRequest(header, record, serviceLevels),
    });
  }
  if (lines.length === 0) throw validationFailed([{ path: "file", message: "no shipment lines" }]);
  return { lines, ignored_columns: header.filter((h) => !(h in CSV_COLUMNS)) };
}

/** The CRLF line ends within a record's cells. */
function crlfIn(record: readonly string[]): number {
  return record.reduce((n, cell) => n + cell.split("\r\n").length - 1, 0);
}

function checkHeader(header: readonly string[]): void {
  const missing = CSV_REQUIRED_COLUMNS.filter((c) => !header.includes(c));
  const twice = header.filter((h, i) => h !== "" && header.indexOf(h) !== i);
  const errors = [
    ...(missing.length
      ? [{ path: "file", message: `missing columns: ${missing.join(", ")}` }]
      : []),
    ...(twice.length
      ? [{ path: "file", message: `columns named twice: ${twice.join(", ")}` }]
      : []),
  ];
  if (errors.length) throw validationFailed(errors);
}

function lineRequest(
  header: readonly string[],
  record: readonly string[],
  serviceLevels: readonly string[] | undefined,
): { req: ShipmentRequestBody } | { errors: CsvError[] } {
  if (record.length !== header.length) {
    return {
      errors: [{
        column: null,
        message: `expected ${header.length} fields, found ${record.length}`,
      }],
    };
  }
  const errors: CsvError[] = [];
  const body: Record<string, unknown> = {};
  header.forEach((column, i) => {
    const kind = CSV_COLUMNS[column];
    const cell = record[i]!;
    if (!kind || cell === "") return;
    const value = cellValue(kind, cell);
    if (value instanceof Error) errors.push({ column, message: value.message });
    else body[column] = value;
  });
  const unknown = serviceLevels && unknownServiceLevel(body.service_level, serviceLevels);
  if (unknown) errors.push({ column: "service_level", message: unknown });
  const pieces = typeof body.pieces === "number" ? body.pieces : 1;
  const parcel = Object.fromEntries([...PARCEL_COLUMNS].map((c) => [c, body[c]]));
  const req = {
    ...Object.fromEntries(Object.entries(body).filter(([k]) => !PARCEL_COLUMNS.has(k))),
    parcels: Array.from({ length: pieces }, () => parcel),
  };
  const parsed = ShipmentRequest.safeParse(req);
  if (parsed.success && errors.length === 0) return { req: parsed.data };
  const reported = new Set(errors.map((e) => e.column));
  for (const issue of parsed.success ? [] : parsed.error.issues) {
    const column = columnOf(issue.path.map(String));
    // One message per column: a piece count of 20 would repeat a parcel's error 20 times.
    if (reported.has(column)) continue;
    reported.add(column);
    errors.push({
      column,
      message: /received undefined/.test(issue.message) ? "required" : issue.message,
    });
  }
  return { errors };
}

function cellValue(kind: Kind, cell: string): unknown {
  switch (kind) {
    case "text":
      return cell;
    case "number":
      return /^-?\d+(\.\d+)?$/.test(cell) ? Number(cell) : new Error(`not a number: ${cell}`);
    case "pieces": {
      const n = /^\d+$/.test(cell) ? Number(cell) : NaN;
      return n >= 1 && n <= PIECES_MAX
        ? n
        : new Error(`a whole number from 1 to ${PIECES_MAX}: ${cell}`);
    }
    case "boolean": {
      const v = cell.toLowerCase();
      if (["true", "yes", "1"].includes(v)) return true;
      if (["false", "no", "0"].includes(v)) return false;
      return new Error(`true or false: ${cell}`);
    }
  }
}

/** A field path of the request as the column that holds it (`parcels.0.weight_kg`: weight_kg). */
export function columnOf(path: readonly string[]): string | null {
  if (path.length === 0 || path[0] === "body") return null;
  if (path[0] === "parcels") {
    const last = path.at(-1)!;
    return PARCEL_COLUMNS.has(last) ? last : "pieces";
  }
  return path[0]! in CSV_COLUMNS ? path[0]! : null;
}

/** An upload is text: its bytes must be UTF-8. */
export function csvText(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw validationFailed([{ path: "file", message: "not UTF-8 text" }]);
  }
}

const CSV_UPLOAD_TYPES = "text/csv (or text/plain), or multipart/form-data with a file field";

/** The CSV of the upload: a multipart `file` field, or the body itself. */
export async function uploadText(c: Context<AppEnv>): Promise<string> {
  const type = c.req.header("Content-Type") ?? "";
  // Media types are case-insensitive (RFC 9110 8.3.1): Text/CSV is text/csv.
  const media = type.toLowerCase();
  const tooLarge = `upload over ${UPLOAD_BODY_BYTES_MAX} bytes`;
  if (isMultipart(c)) {
    const form = await boundedForm(c, UPLOAD_BODY_BYTES_MAX, tooLarge);
    const file = form.get("file");
    if (file instanceof File) return csvText(new Uint8Array(await file.arrayBuffer()));
    if (typeof file === "string" && file !== "") return file;
    throw validationFailed([{ path: "file", message: "a CSV file is required" }]);
  }
  if (media.startsWith("text/csv") || media.startsWith("text/plain")) {
    return csvText(await boundedBody(c, UPLOAD_BODY_BYTES_MAX, tooLarge));
  }
  throw unsupportedMedia(c, CSV_UPLOAD_TYPES);
}
