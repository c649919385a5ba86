/**
 * Business API documents (4.1, issue 40), figures only: PDFs made per second by each document's
 * pure layout (waybill, receipt, pick list, packing slip of 2 pieces, the A6 custody label), over
 * orders of 5 to 20 items, with their average size.
 */
import { custodyLabelPdf } from "../src/business/rules/custody_label.ts";
import { orderItems, type TripFacts } from "../src/business/rules/documents/facts.ts";
import { packingSlipPdf } from "../src/business/rules/documents/packing_slip.ts";
import { pickListPdf } from "../src/business/rules/documents/pick_list.ts";
import { receiptPdf } from "../src/business/rules/documents/receipt.ts";
import { waybillPdf } from "../src/business/rules/documents/waybill.ts";
import { recordFigure } from "./summary.ts";

const DOCUMENTS = Number(Deno.env.get("BENCH_BUSINESS_DOCUMENTS") ?? 500);
const BOOKED_AT = Date.UTC(2026, 10, 3, 8, 30);

function facts(i: number): TripFacts {
  const items = Array.from({ length: 5 + (i % 16) }, (_, n) => ({
    name: `Item ${n} of order ${i}`,
    qty: 1 + (n % 4),
    qty_packed: n % 5 === 0 ? 0 : 1 + (n % 4),
    store: n % 3 === 0 ? "Clicks Airport Junction" : "Molapo Crossing",
    aisle: String(1 + (n * 7) % 23),
    barcode: `600${String(i * 100 + n).padStart(10, "0")}`,
    substitution_preference: n % 2 ? "same brand or none" : "any brand",
    unit_price: `${10 + n}.${String(n % 100).padStart(2, "0")}`,
  }));
  return {
    reference: `ARY-${String(i).padStart(8, "0")}`,
    order_number: `SO-${i}`,
    booked_at: BOOKED_AT + i * 60_000,
    status: "searching",
    service: "Parcel delivery",
    vehicle: "Motorbike",
    parcel_size: "Small",
    weight_kg: 2.5,
    sender: { name: "Molapo Groceries", phone: null, address: "Main Mall, Gaborone" },
    recipient: { name: `Neo Kgosi ${i}`, phone: "+26771234567", address: "Plot 9, Block 8" },
    stops: [],
    store_name: "Molapo Crossing",
    pickup_at: BOOKED_AT + i * 60_000 + 20 * 60_000,
    items: orderItems({ items }, "BWP"),
    pieces: 2,
    currency: "BWP",
    cod_amount_minor: null,
    age_verification_required: false,
    handover_required: true,
    fare_lines: [{ code: "base_fare", amount_minor: 2_500 }, {
      code: "distance",
      amount_minor: 3_175,
    }],
    billing_amount_minor: 5_675,
    charged_minor: 5_675,
    refunded_minor: null,
    distance_m: 6_350,
  };
}

async function timed(
  name: string,
  make: (f: TripFacts) => Promise<Uint8Array>,
): Promise<void> {
  const inputs = Array.from({ length: DOCUMENTS }, (_, i) => facts(i));
  await make(inputs[0]!); // warm the fonts and the JIT once
  let bytes = 0;
  const t0 = performance.now();
  for (const f of inputs) bytes += (await make(f)).length;
  const seconds = (performance.now() - t0) / 1000;
  const perSecond = DOCUMENTS / seconds;
  console.log(
    `business documents: ${DOCUMENTS} ${name} PDFs in ${seconds.toFixed(2)} s: ` +
      `${perSecond.toFixed(0)}/s, ${(bytes / DOCUMENTS / 1024).toFixed(1)} KiB each`,
  );
  recordFigure(`business_${name.replaceAll(" ", "_")}_pdfs_per_second`, Math.round(perSecond));
}

export async function businessDocumentsBench(): Promise<void> {
  await timed("waybill", waybillPdf);
  await timed("receipt", receiptPdf);
  await timed("pick list", pickListPdf);
  await timed("packing slip", (facts) =>
    packingSlipPdf({
      facts,
      settings: { show_prices: true, returns_note: "Returns within 14 days at any store" },
      pieces: 2,
    }));
  await timed("label", (f) =>
    custodyLabelPdf({
      reference: f.reference,
      scan_code: `K7Q2-${f.reference.slice(-4)}`,
      recipient: f.recipient.name,
      destination: f.recipient.address,
      store_name: f.store_name,
      booked_at: f.booked_at,
    }));
}

if (import.meta.main) await businessDocumentsBench();
