/**
 * Business API 4.1 GET /business/trips/{id}/label: the A6 custody label PDF of a trip booked with
 * the custody scanning add-on (2.2 scan_label_url), under the same key as the trip.
 */
import type { Api } from "../../src/http/app.ts";
import { define, z } from "../../src/http/route.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";

// Loaded on first use: pdf-lib's import costs every start and every test file's isolate about
// 450 ms, and most never draw a document.
const custodyLabels = () => import("../../src/business/flows/custody_labels.ts");

export function custodyLabelRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/business/trips/{id}/label",
    summary: "The trip's A6 custody label: the scan_code as a barcode the driver scans",
    tag: "Bookings and trips",
    security: "business",
    middleware: [business({ scope: "deliveries" })],
    params: z.object({
      id: z.string().min(1).max(40).openapi({ description: "The integer id or the reference" }),
    }),
    produces: "application/pdf",
    refusals: {
      not_found: "no trip of the business has this id or reference",
      custody_scanning_off: "the trip was booked without the custody scanning add-on",
      trip_cancelled: "the trip was cancelled: nothing to carry",
    },
  }, async (c, { params }) => {
    const { env, tenant } = businessCall(c);
    const { custodyLabel } = await custodyLabels();
    const label = await custodyLabel(env, tenant, params.id);
    return new Response(label.pdf, {
      headers: {
        "Content-Type": "application/pdf",
        "Content-Disposition": `inline; filename="${label.reference}-label.pdf"`,
        "Cache-Control": "private, no-store",
      },
    });
  });
}
