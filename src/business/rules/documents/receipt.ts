/**
 * The receipt of a Business API trip (4.1 GET /business/trips/{trip}/receipt): who paid, for
 * which trip, the fare's lines and total exactly as charged (2.2 billing_amount), and a refund
 * when the trip was cancelled after the charge. Pure.
 */
import { detailRows, table } from "../../../domain/documents/blocks.ts";
import { dateTime } from "../../../domain/documents/text.ts";
import type { TripFacts } from "./facts.ts";
import { finished, money, openDocument, titledPage } from "./page.ts";

const LABEL_WIDTH = 120;

/** The fare calculator's line codes as printed. */
const FARE_LINE_LABELS: Readonly<Record<string, string>> = {
  base_fare: "Base fare",
  distance: "Distance",
  parcel_size: "Parcel size",
  stops: "Stops",
  minimum_fare: "Minimum fare",
};

export async function receiptPdf(f: TripFacts): Promise<Uint8Array<ArrayBuffer>> {
  const o = await openDocument("Receipt", f);
  const w = titledPage(o, "Receipt", f);
  detailRows(w, [
    ["Billed to", f.sender.name ?? "-"],
    ["Date", dateTime(f.booked_at)],
    ["Order number", f.order_number],
    ["Service", `${f.service}, ${f.vehicle}`],
    ["From", f.sender.address],
    ...f.stops.map((s, i): [string, string] => [`Stop ${i + 1}`, s]),
    ["To", f.recipient.address],
    ["Distance", `${(f.distance_m / 1_000).toFixed(1)} km`],
    ["Status", f.status],
  ], { labelWidth: LABEL_WIDTH, maxLines: 2 });
  w.rule();
  const amount = (minor: number) => money(minor, f.currency);
  table(w, {
    columns: [0, 360],
    heading: ["Fare", "Amount"],
    rows: [
      ...f.fare_lines.map((l) => [FARE_LINE_LABELS[l.code] ?? l.code, amount(l.amount_minor)]),
      ["Total", amount(f.billing_amount_minor)],
    ],
  });
  w.rule();
  detailRows(w, [
    [
      "Paid",
      f.charged_minor === null ? "Not charged" : `${amount(f.charged_minor)} from the wallet`,
    ],
    ...(f.refunded_minor === null
      ? []
      : [["Refunded", amount(f.refunded_minor)] as [string, string]]),
  ], { labelWidth: LABEL_WIDTH });
  return await finished(o, `Receipt ${f.reference}`);
}
