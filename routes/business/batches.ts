/**
 * Business API 4.2 batches: POST /business/batches (2.3), the list with each stop's status, and
 * one batch with its stops. Each stop is a trip of its own (GET /business/trips/{id}), dispatched,
 * tracked and notified as any trip. `{id}` is the batch's id.
 */
import { bookBatch, readBatch, type StopTrips } from "../../src/business/flows/batches.ts";
import { dispatcherOf } from "../../src/business/reactors/dispatcher.ts";
import { tripNumbersOf } from "../../src/business/flows/trip_numbers.ts";
import { batchPage } from "../../src/business/queries/batches.ts";
import { BATCH_STOPS_MAX } from "../../src/business/rules/batch.ts";
import { BATCH_SLIP_PAGES_MAX } from "../../src/business/rules/documents/facts.ts";
import {
  BOOKING_RETRY_AFTER_SECONDS,
  IDEMPOTENCY_KEY_CHARS_MAX,
  IN_PROGRESS_CODES,
} from "../../src/business/rules/booking.ts";
import { retryAfter } from "../../src/http/errors.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { idempotencyHeader } from "../../src/http/idempotency.ts";
import { define, z } from "../../src/http/route.ts";
import { afterCursor, nextCursor } from "../../src/http/cursor.ts";
import { wholeNumber } from "../../src/http/schemas.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { BatchBody, toBatchRequest } from "../../src/business/batch_schema.ts";
import { BatchAnswer, batchView } from "./answers/batches.ts";

// Loaded on first use: pdf-lib's import costs every start and every test file's isolate about
// 450 ms, and most never draw a document.
const batchDocuments = () => import("../../src/business/flows/batch_documents.ts");

// spec: business 4.2, the section's title (the Postman collection's Business folder).
const tag = "Batches and subscriptions";
const security = "business" as const;
// spec: business 5: the deliveries scope's table names no batch endpoint, so a partner key
// reaches none of these (403 scope_denied); the business's own key and staff do.
const guard = [business()];
const BatchId = z.object({ id: z.string().min(1).max(40).openapi({ example: "BT-7Q2M9X4K1C0D" }) });

// spec: business 7: a stop still being booked answers Retry-After (5 seconds).
const withRetryAfter = retryAfter(IN_PROGRESS_CODES, BOOKING_RETRY_AFTER_SECONDS);

/** Batches per page, at most. */
const BATCHES_PAGE_MAX = 50;

function createRoute(api: Api): void {
  define(api, {
    method: "post",
    path: "/business/batches",
    summary: "Book a batch of up to 50 stops for one driver and one vehicle",
    description: `Up to ${BATCH_STOPS_MAX} stops, each booked as a trip of its own and priced on ` +
      "its own size by the fare calculator, all with one vehicle fitted to the largest stop, " +
      "put in a driving order (cheapest insertion, then 2-opt) from the first stop's pickup. " +
      "One driver collects every stop, so every pickup is in the first stop's zone (GET " +
      "/business/zones), else 422 validation_failed names each stop outside it. " +
      "The wallet pays each stop as a single booking; the whole batch must be affordable or " +
      "nothing is created. The same external_reference (else batch_reference, else " +
      "Idempotency-Key) with the same body answers the first batch (200, replayed); a retry " +
      "also books any stop a failure left unbooked. A batch whose request stopped part way " +
      "(with or without a reference) is completed by a sweep within a few minutes, each stop " +
      "booked and charged once, what was held for it freed.",
    tag,
    security,
    middleware: guard,
    body: BatchBody,
    status: 201,
    replay: "The same external_reference (else batch_reference, else Idempotency-Key) with the " +
      "same body",
    idempotencyKey: "Up to 64 characters; a body external_reference or batch_reference wins " +
      "over it",
    response: BatchAnswer,
    refusals: {
      reference_conflict: "the batch reference (or Idempotency-Key) was used with other " +
        "details: the first batch's id is named, nothing changed",
      no_vehicle_fits: "no vehicle type can carry a stop (named): nothing is created",
      outside_service_area: "no zone serves a stop's pickup (named): nothing is created",
      insufficient_balance: "the wallet cannot pay the whole batch: nothing is created",
      test_mode_moved_to_sandbox: "test, dry_run or X-Service-Test on live: nothing is created",
      test_booking_refused: "on live, a stop's name or address starting with __TEST, [TEST], " +
        "TEST ORDER or DO NOT DELIVER: nothing is created; operations is alerted",
      booking_in_progress: "a stop of the first request is still being booked: retry",
      request_in_progress: "a stop of the first request is still being booked: retry",
      claim_released: "another request of this body gave the batch's claim back while this one " +
        "held the money: the money is given back, nothing is booked; send it again",
    },
  }, async (c, { body }) => {
    const { env, tenant, by } = businessCall(c);
    // spec: business 8: the header is up to 64 characters, as on POST /business/book.
    const idempotencyKey = idempotencyHeader(c, IDEMPOTENCY_KEY_CHARS_MAX);
    const booked = await bookBatch(
      { ...env, offers: dispatcherOf(env), numbers: tripNumbersOf(env) },
      tenant,
      { request: toBatchRequest(body), body, idempotencyKey, by },
    ).catch(withRetryAfter);
    const trips: StopTrips = new Map(
      booked.trips.map((t) => [t.reference, { id: t.id, status: t.status }]),
    );
    const view = batchView(booked.batch, trips, { replayed: booked.replayed });
    return ok(c, view, booked.replayed ? 200 : 201);
  });
}

const BatchesQuery = z.object({
  reference: z.string().trim().min(1).max(80).optional().openapi({
    description: "The batch's id, or its external_reference (else batch_reference), exactly",
  }),
  per_page: wholeNumber(1, BATCHES_PAGE_MAX).default(20),
  cursor: z.string().max(200).optional(),
});

function readRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/business/batches",
    summary: "Batches, newest first, with each stop's status",
    description: "From the batches' and trips' read tables, which trail a booking by the " +
      "projection lag (a stop not yet projected shows booking); `meta.next_cursor` asks the " +
      "next page. One batch reads the trips themselves.",
    tag,
    security,
    middleware: guard,
    query: BatchesQuery,
    paged: "cursor",
    response: z.array(BatchAnswer),
  }, async (c, { query }) => {
    const { env, tenant } = businessCall(c);
    const page = await batchPage(env.db, tenant, { reference: query.reference }, {
      limit: query.per_page,
      after: afterCursor(query.cursor),
    });
    return ok(c, page.rows.map((b) => batchView(b, page.trips)), 200, {
      limit: query.per_page,
      next_cursor: nextCursor(page.next),
    });
  });

  define(api, {
    method: "get",
    path: "/business/batches/{id}",
    summary: "One batch with its stops in the driving order",
    tag,
    security,
    middleware: guard,
    params: BatchId,
    response: BatchAnswer,
  }, async (c, { params }) => {
    const { env, tenant } = businessCall(c);
    const { batch, trips } = await readBatch(env, tenant, params.id);
    return ok(c, batchView(batch, trips));
  });
}

function packingSlipsRoute(api: Api): void {
  define(api, {
    method: "get",
    path: "/business/batches/{id}/packing-slips",
    summary: "Every stop's packing slip in one PDF, in the driving order",
    description: "Each stop's slip as GET /business/trips/{id}/packing-slip prints it (the " +
      "packing slip settings, pieces from its order_payload). With_labels=1 puts each stop's " +
      "custody label (the scanning add-on) after its slip, to cut off and stick on the parcel; " +
      "a batch booked without the add-on has none (404 custody_scanning_off). A stop still " +
      "being booked has no slip yet; a cancelled stop has none (it is not packed or carried), " +
      "and a batch whose every stop was cancelled is refused 422 batch_cancelled. One " +
      `request builds at most ${BATCH_SLIP_PAGES_MAX} pages (a slip a piece, plus the labels): ` +
      "a batch above is refused 422 batch_slip_pages_exceeded, nothing built; print its " +
      "trips' slips one by one (GET /business/trips/{id}/packing-slip).",
    tag,
    security,
    middleware: guard,
    params: BatchId,
    query: z.object({
      with_labels: z.enum(["0", "1"]).optional().openapi({
        description: "1: each stop's custody label after its slip",
      }),
    }),
    produces: "application/pdf",
    refusals: {
      not_found: "no batch of the business has this id",
      custody_scanning_off: "with_labels=1 for a batch booked without the custody scanning add-on",
      batch_cancelled: "every stop of the batch was cancelled: nothing to pack",
      batch_slip_pages_exceeded: `the slips would run to more than ${BATCH_SLIP_PAGES_MAX} pages`,
    },
  }, async (c, { params, query }) => {
    const { env, tenant } = businessCall(c);
    const { batchPackingSlips } = await batchDocuments();
    const doc = await batchPackingSlips(env, tenant, params.id, query.with_labels === "1");
    return new Response(doc.pdf, {
      headers: {
        "Content-Type": "application/pdf",
        "Content-Disposition": `inline; filename="${doc.reference}-packing-slips.pdf"`,
        "Cache-Control": "private, no-store",
      },
    });
  });
}

export function batchRoutes(api: Api): void {
  createRoute(api);
  readRoutes(api);
  packingSlipsRoute(api);
}
