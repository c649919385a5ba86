/**
 * Business API 4.1: a trip's printable documents, GET /business/trips/{id}/waybill, /receipt,
 * /pick-list and /packing-slip (PDF, under the same key as the trip; the `deliveries` scope of
 * 5's table), and the packing slip settings, GET and PUT /business/packing-slip-settings (2.6).
 */
import {
  packingSlipSettingsOf,
  setPackingSlipSettings,
} from "../../src/business/flows/packing_slip_settings.ts";
import type { TripDocument } from "../../src/business/flows/trip_documents.ts";
import { PIECES_MAX, RETURNS_NOTE_CHARS_MAX } from "../../src/business/rules/documents/facts.ts";
import { iso } from "../../src/domain/iso.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { define, z } from "../../src/http/route.ts";
import { wholeNumber } from "../../src/http/schemas.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import type { PackingSlipSettingsState } from "../../actors/business/packing_slip_settings.ts";

// Loaded on first use: pdf-lib's import costs every start and every test file's isolate about
// 450 ms, and most never draw a document.
const tripDocuments = () => import("../../src/business/flows/trip_documents.ts");

const tag = "Bookings and trips";
const TripId = z.string().min(1).max(40).openapi({
  description: "The integer id or the reference",
});

const DOCUMENTS: readonly {
  readonly document: TripDocument;
  readonly summary: string;
  readonly description: string;
}[] = [
  {
    document: "waybill",
    summary: "The trip's printable waybill (A4 PDF)",
    description: "The reference as a Code 128 barcode, sender and recipient, stops, service, " +
      "vehicle, parcel size, weight, pieces, cash on delivery, and lines for the driver's and " +
      "the recipient's signatures. Never the delivery code or the custody code.",
  },
  {
    document: "receipt",
    summary: "The trip's receipt (A4 PDF)",
    description: "Who was billed, the trip's route, the fare's lines and total exactly as " +
      "charged (billing_amount), and the refund of a trip cancelled after its charge.",
  },
  {
    document: "pick-list",
    summary: "The order's pick list (A4 PDF)",
    description: "order_payload.items by store (an item's `store`, else store_name) then aisle " +
      "(`aisle`), each with its quantity, barcode or SKU (`barcode`, else `sku`), substitution " +
      "preference (`substitution_preference`, or `substitute: true/false`) and a tick box; the " +
      "order number (external_reference, else the reference), store and pickup time " +
      "(scheduled_at, else booking plus prep_minutes). Never prices.",
  },
  {
    document: "packing-slip",
    summary: "The order's packing slip, one per piece (A4 PDF)",
    description: "Sender, the recipient's first names and surname (the last word of " +
      "passenger_name), address, each item ordered (qty) against packed (qty_packed; blank " +
      "until sent) with its substitution (`substitute` as text), what is missing (refunded), " +
      "piece n of N (N from ?pieces=N, else order_payload.pieces, else 1), the returns note and " +
      "a signature line. Unit prices (`unit_price` in billing_currency), amounts and refunds " +
      "only when show_prices is on. Never a delivery or pickup code. A shopping order's slip " +
      "lists its stores' lines (packed: found or substituted as counted) and is ready once its " +
      "basket is collected (409 basket_not_collected before).",
  },
];

const SettingsBody = z.object({
  show_prices: z.boolean().optional().openapi({ description: "Print prices on packing slips" }),
  returns_note: z.string().trim().max(RETURNS_NOTE_CHARS_MAX).nullable().optional().openapi({
    description: `Printed on every packing slip, at most ${RETURNS_NOTE_CHARS_MAX} characters; ` +
      "null or empty removes it",
  }),
});

const SettingsAnswer = z.object({
  show_prices: z.boolean(),
  returns_note: z.string().nullable(),
  updated_at: z.string().nullable(),
}).openapi("PackingSlipSettings");

function settingsView(s: PackingSlipSettingsState): z.infer<typeof SettingsAnswer> {
  return {
    show_prices: s.show_prices,
    returns_note: s.returns_note,
    updated_at: iso(s.updated_at),
  };
}

function pdfAnswer(doc: { reference: string; pdf: Uint8Array<ArrayBuffer> }, name: string) {
  return new Response(doc.pdf, {
    headers: {
      "Content-Type": "application/pdf",
      "Content-Disposition": `inline; filename="${doc.reference}-${name}.pdf"`,
      "Cache-Control": "private, no-store",
    },
  });
}

const documentRoute = (d: typeof DOCUMENTS[number]) => ({
  method: "get",
  path: `/business/trips/{id}/${d.document}`,
  summary: d.summary,
  description: d.description,
  tag,
  security: "business",
  middleware: [business({ scope: "deliveries" })],
  params: z.object({ id: TripId }),
  produces: "application/pdf",
  refusals: {
    not_found: "no trip of the business has this id or reference",
    ...(d.document === "receipt"
      ? {}
      : { trip_cancelled: "the trip was cancelled: nothing to pick, pack or carry" }),
  },
} as const);

export function tripDocumentRoutes(api: Api): void {
  for (const d of DOCUMENTS.filter((d) => d.document !== "packing-slip")) {
    define(api, documentRoute(d), async (c, { params }) => {
      const { env, tenant } = businessCall(c);
      const { tripDocument } = await tripDocuments();
      const doc = await tripDocument(env, tenant, params.id, { document: d.document });
      return pdfAnswer(doc, d.document);
    });
  }
  const slip = DOCUMENTS.find((d) => d.document === "packing-slip")!;
  define(api, {
    ...documentRoute(slip),
    refusals: {
      ...documentRoute(slip).refusals,
      basket_not_collected: "a shopping order's slip is ready once its basket is collected",
    },
    query: z.object({
      pieces: wholeNumber(1, PIECES_MAX).optional().openapi({
        description: "How many pieces (one slip each); else order_payload.pieces, else 1",
      }),
    }),
  }, async (c, { params, query }) => {
    const { env, tenant } = businessCall(c);
    const { tripDocument } = await tripDocuments();
    const doc = await tripDocument(env, tenant, params.id, {
      document: "packing-slip",
      pieces: query.pieces,
    });
    return pdfAnswer(doc, "packing-slip");
  });
  settingsRoutes(api);
}

function settingsRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/business/packing-slip-settings",
    summary: "The packing slip settings: show_prices (off until set) and the returns note",
    tag,
    security: "business",
    middleware: [business()],
    response: SettingsAnswer,
  }, async (c) => {
    const { env, tenant } = businessCall(c);
    return ok(c, settingsView(await packingSlipSettingsOf(env, tenant)));
  });

  define(api, {
    method: "put",
    path: "/business/packing-slip-settings",
    summary: "Set show_prices and the returns note of packing slips",
    description: "A field left out keeps its value. A returns note past " +
      `${RETURNS_NOTE_CHARS_MAX} characters is refused (422 validation_failed); nothing changes.`,
    tag,
    security: "business",
    middleware: [business()],
    body: SettingsBody,
    response: SettingsAnswer,
  }, async (c, { body }) => {
    const { env, tenant } = businessCall(c);
    const note = body.returns_note === undefined ? {} : { returns_note: body.returns_note || null };
    const show = body.show_prices === undefined ? {} : { show_prices: body.show_prices };
    return ok(c, settingsView(await setPackingSlipSettings(env, tenant, { ...show, ...note })));
  });
}
