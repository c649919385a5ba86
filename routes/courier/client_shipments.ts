/**
 * Courier 4.6, the client's shipments: the paged list, booking one in a single call, bulk and CSV
 * booking, the CSV template, and one shipment with its custody timeline. A client sees only its
 * own shipments (another's waybill is not found); the client() guard refuses every call while
 * the courier platform is switched off.
 *
 * Idempotency (one rule for the three booking calls): a request or row is known by, first that
 * applies, its `idempotency_key` (POST /client/shipments also takes the `Idempotency-Key`
 * header); its `client_order_reference` when the client has unique_external_reference (courier
 * 7: only then is a repeated reference a duplicate order); with an `Idempotency-Key` header on
 * a bulk or CSV call, that key plus the row's index or the CSV line's content. Sent again, it
 * answers the shipment it booked (`already_booked: true`); with other details it is refused (409
 * duplicate_order for an order reference, idempotency_key_reused for a key). A refused row books
 * nothing and frees its identity, so a corrected batch can be sent again whole.
 */
import { clientShipmentPage } from "../../src/courier/queries/shipments.ts";
import { afterCursor, nextCursor } from "../../src/http/cursor.ts";
import type { Context } from "hono";
import { clientShipmentIn } from "../../src/courier/flows/shipments.ts";
import {
  bookRequest,
  bookRows,
  type Caller,
  formerOneCallIdentity,
  oneCallIdentity,
  REQUEST_REFUSALS,
  serviceLevelCodes,
} from "../../src/courier/flows/booking/mod.ts";
import { HEADLINES } from "../../src/courier/rules/lifecycle.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { callerClient, client, clientPrincipalOf } from "../../src/courier/auth.ts";
import { principalName } from "../../src/platform/auth/principal.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { ApiError } from "../../src/http/errors.ts";
import { idempotencyHeader } from "../../src/http/idempotency.ts";
import { define, z } from "../../src/http/route.ts";
import { Waybill, wholeNumber } from "../../src/http/schemas.ts";
import {
  BULK_SHIPMENTS_MAX,
  CSV_BOOKING_LINES_MAX,
  UPLOAD_BODY_BYTES_MAX,
} from "../../src/limits.ts";
import {
  BookingAnswer,
  bookingView,
  ONE_CALL_BOOKING_DOCS,
  ShipmentRequest,
  withRequestRetryAfter,
} from "./answers/booking.ts";
import {
  BulkBookedAnswer,
  ClientShipmentAnswer,
  ClientShipmentDetailAnswer,
  CsvBookedAnswer,
  detailView,
  errorView,
  lineErrors,
  listView,
  rowBooked,
  rowOutcome,
  summary,
} from "./answers/client_shipments.ts";
import { csvTemplate, readCsv, uploadText } from "./answers/shipment_csv.ts";
import { bulkRequests, csvRequests } from "./answers/shipment_rows.ts";
import type { ShipmentFields } from "./answers/shipments.ts";

const tag = "Client API";
const security = "client" as const;
const SHIPMENTS_PAGE_DEFAULT = 50;
const SHIPMENTS_PAGE_MAX = 200;

const ListQuery = z.object({
  status: z.enum(HEADLINES).optional(),
  reference: z.string().trim().min(1).max(120).optional(),
  limit: wholeNumber(1, SHIPMENTS_PAGE_MAX).default(SHIPMENTS_PAGE_DEFAULT),
  cursor: z.string().max(200).optional(),
});

const BulkBody = z.object({
  shipments: z.array(z.unknown()).min(1).max(
    BULK_SHIPMENTS_MAX,
    `at most ${BULK_SHIPMENTS_MAX} shipments per call`,
  ).openapi({
    description: "ShipmentRequest rows; each row is checked and booked on its own",
    // Checked a row at a time (a bad row is answered in `results`), documented as each is read.
    items: { $ref: "#/components/schemas/ShipmentRequest" },
  }),
}).openapi("BulkShipments");

const WaybillParam = z.object({ waybill: Waybill });

async function callerOf(c: Context<AppEnv>): Promise<Caller> {
  const p = clientPrincipalOf(c);
  return {
    courierId: p.business.id,
    clientId: p.client_id,
    client: await callerClient(c),
    by: principalName(p),
  };
}

export function clientShipmentRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/client/shipments",
    summary: "The client's shipments, newest booked first; filter by status, or by reference " +
      "(waybill, client_order_reference, external_customer_code, external_billing_reference); " +
      "`meta.next_cursor` pages on",
    tag,
    security,
    middleware: [client()],
    query: ListQuery,
    paged: "cursor",
    response: z.array(ClientShipmentAnswer),
  }, async (c, { query }) => {
    const p = clientPrincipalOf(c);
    // spec: courier 4.6: always within the courier and the calling client.
    const page = await clientShipmentPage(c.get("env").db, p.business.id, p.client_id, query, {
      limit: query.limit,
      after: afterCursor(query.cursor),
    });
    return ok(c, page.rows.map((s) => listView(s as ShipmentFields)), 200, {
      limit: query.limit,
      next_cursor: nextCursor(page.next),
    });
  });

  define(api, {
    method: "post",
    path: "/client/shipments",
    summary: "Book one shipment in one call: the price request (courier 2.1) plus " +
      "`service_level` and `dangerous_goods_confirmed`. 201 with waybill and tracking_url. " +
      "Idempotent on `idempotency_key`, or the `Idempotency-Key` header when the body has " +
      "none, else on " +
      "`client_order_reference` (with unique_external_reference): the same request again answers 200 `already_booked: true`; " +
      "the same key with other details answers 409",
    tag,
    security,
    middleware: [client()],
    body: ShipmentRequest,
    status: 201,
    ...ONE_CALL_BOOKING_DOCS,
    response: BookingAnswer,
    refusals: {
      ...REQUEST_REFUSALS,
      validation_failed: `${REQUEST_REFUSALS.validation_failed}; a bad Idempotency-Key header`,
    },
  }, async (c, { body }) => {
    const header = idempotencyHeader(c);
    const caller = await callerOf(c);
    const identity = oneCallIdentity(body, header, caller.client);
    const formerly = formerOneCallIdentity(body, header);
    const former = formerly === null ? null : { identity: formerly, owner: caller.clientId };
    const booked = await bookRequest(c.get("env"), caller, body, identity, undefined, former)
      .catch(withRequestRetryAfter);
    return ok(c, bookingView(c, booked), booked.already_booked ? 200 : 201);
  });

  define(api, {
    method: "post",
    path: "/client/shipments/bulk",
    summary: `Book up to ${BULK_SHIPMENTS_MAX} shipments (rows as POST /client/shipments). ` +
      "Each row answers `{index, waybill, tracking_url, already_booked}` or `{index, error: " +
      "{code, message}}`; a bad row stops no other. A row is known by its idempotency_key, " +
      "else its client_order_reference (with unique_external_reference), else the call's " +
      "Idempotency-Key and its index: " +
      "sending the batch again books no row twice",
    tag,
    security,
    middleware: [client()],
    body: BulkBody,
    idempotencyKey: "With a row's index, the identity of a row that has no idempotency_key or " +
      "(under unique_external_reference) client_order_reference of its own",
    response: BulkBookedAnswer,
    refusals: {
      validation_failed: "a bad Idempotency-Key header (a bad row is answered in `results`)",
    },
  }, async (c, { body }) => {
    const header = idempotencyHeader(c);
    const caller = await callerOf(c);
    const levels = await serviceLevelCodes(c.get("env"), caller.courierId);
    const checked = bulkRequests(body.shipments, header, caller.client, levels);
    const valid = checked.filter((r): r is Exclude<typeof r, ApiError> => !(r instanceof ApiError));
    const booked = (await bookRows(c.get("env"), caller, valid)).map((r) => rowOutcome(c, r));
    let next = 0;
    const results = checked.map((r, index) => {
      const outcome = r instanceof ApiError ? r : booked[next++]!;
      return outcome instanceof ApiError
        ? { index, error: errorView(outcome) }
        : { index, ...rowBooked(c, outcome) };
    });
    return ok(c, summary(results));
  });

  define(api, {
    method: "post",
    path: "/client/shipments/csv",
    summary: "Book from a CSV upload (multipart field `file`, or a text/csv body), columns as " +
      "GET /client/shipments/csv/template, at most " +
      `${CSV_BOOKING_LINES_MAX} lines and ${UPLOAD_BODY_BYTES_MAX} bytes. Answers ` +
      "`{booked, failed, results: [{line, waybill, tracking_url, already_booked} or {line, " +
      "code, errors: [{column, message}]}]}` (the header is line 1). A line is known by its " +
      "idempotency_key, else its client_order_reference (with unique_external_reference), " +
      "else the call's Idempotency-Key and " +
      "the line's content: uploading the file again books no line twice",
    tag,
    security,
    middleware: [client()],
    upload: "text/csv",
    idempotencyKey:
      "With a line's content, the identity of a line that has no idempotency_key or " +
      "(under unique_external_reference) client_order_reference of its own",
    response: CsvBookedAnswer,
    refusals: {
      validation_failed: "no CSV file, or not valid UTF-8 CSV; no header or shipment lines, " +
        "missing or repeated columns, too many lines; a bad Idempotency-Key header (a bad line " +
        "is answered in `results`)",
    },
  }, async (c) => {
    const header = idempotencyHeader(c);
    const courierId = clientPrincipalOf(c).business.id;
    const file = readCsv(await uploadText(c), await serviceLevelCodes(c.get("env"), courierId));
    const caller = await callerOf(c);
    const rows = await csvRequests(file.lines, header, caller.client);
    const booked = (await bookRows(c.get("env"), caller, rows)).map((r) => rowOutcome(c, r));
    let next = 0;
    const results = file.lines.map((l) => {
      if (!("req" in l)) return { line: l.line, code: "validation_failed", errors: l.errors };
      const outcome = booked[next++]!;
      return outcome instanceof ApiError
        ? { line: l.line, code: outcome.code, errors: lineErrors(outcome) }
        : { line: l.line, ...rowBooked(c, outcome) };
    });
    return ok(c, { ...summary(results), ignored_columns: file.ignored_columns });
  });

  define(api, {
    method: "get",
    path: "/client/shipments/csv/template",
    summary: "The CSV booking template (text/csv): the header line and one example line",
    tag,
    security,
    middleware: [client()],
    produces: "text/csv",
  }, async (c) => {
    const courierId = clientPrincipalOf(c).business.id;
    const code = (await serviceLevelCodes(c.get("env"), courierId))[0] ?? "express";
    return c.body(csvTemplate(code), 200, {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": 'attachment; filename="shipments-template.csv"',
    });
  });

  define(api, {
    method: "get",
    path: "/client/shipments/{waybill}",
    summary: "One of the client's shipments: frozen pricing, where each piece is now, and the " +
      "custody timeline (no courier-internal notes)",
    tag,
    security,
    middleware: [client()],
    params: WaybillParam,
    response: ClientShipmentDetailAnswer,
  }, async (c, { params }) => {
    const p = clientPrincipalOf(c);
    // spec: courier 4.6: a client sees only its own shipments; another's waybill does not exist.
    const s = await clientShipmentIn(c.get("env").runtime, {
      tenant: p.business.id,
      clientId: p.client_id,
      waybill: params.waybill,
    });
    return ok(c, detailView(c, s));
  });
}
