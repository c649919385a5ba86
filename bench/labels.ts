/**
 * Client paper (courier 4.6), figures only: label PDFs made per second by the pure layout, over
 * 2,000 shipments of 1 to 3 pieces (one 4 x 6 in page per piece), and the pages per second that
 * makes; then the same for the waybill and the packing slip over a smaller set.
 */
import { clientPackingSlipPdf } from "../src/courier/rules/documents/client_packing_slip.ts";
import type {
  DocumentResult,
  ShipmentFacts,
  WaybillFacts,
} from "../src/courier/rules/documents/facts.ts";
import { labelPdf } from "../src/courier/rules/documents/label.ts";
import { waybillPdf } from "../src/courier/rules/documents/waybill.ts";

const LABELS = Number(Deno.env.get("BENCH_LABELS") ?? 2_000);
const OTHER_DOCUMENTS = Math.ceil(LABELS / 4);
const BOOKED_AT = Date.UTC(2026, 10, 2, 8, 0);

function facts(i: number): WaybillFacts {
  const waybill = `WB${String(i).padStart(12, "0")}`;
  const pieces = Array.from({ length: (i % 3) + 1 }, (_, n) => ({
    id: `${waybill}-${n + 1}`,
    weight_kg: 0.5 + n,
    length_cm: 30,
    width_cm: 20,
    height_cm: 10,
    contents: null,
  }));
  return {
    courier_name: "Kgalagadi Couriers",
    waybill,
    booked_at: BOOKED_AT + i * 60_000,
    service: { code: "express", name: "Express" },
    from_country: "BW",
    to_country: i % 2 ? "ZA" : "BW",
    sender: { name: "Molapo Pharmacy", address: "Plot 123, Main Mall, Gaborone", phone: null },
    recipient: {
      name: `Neo Kgosi ${i}`,
      address: "Plot 9, Block 8, Gaborone",
      phone: "+26771234567",
    },
    pieces,
    contents: "Medicines",
    references: {
      client_order_reference: `ORD-${i}`,
      external_customer_code: null,
      external_billing_reference: null,
    },
    dangerous_goods_confirmed: false,
    tracking_url: `https://couriers.example/api/s/tok_${i}`,
    promise: {
      collection_on: "2026-11-02",
      earliest_delivery: "2026-11-03",
      latest_delivery: "2026-11-04",
    },
    declared_value_minor: null,
    liability_cover: false,
    pricing: {
      prices_reference: `prc_${i}`,
      rate_card_version: 1,
      chargeable_kg: 2.5,
      lines: [
        { code: "transport", label: "Transport", amount_minor: 7800 },
        { code: "tax", label: "VAT", amount_minor: 1092, included: false, tax_minor: 1092 },
      ],
      total_minor: 8892,
      currency: "BWP",
      payer: "client",
      settlement_mode: "prepaid",
    },
  };
}

async function timed(
  name: string,
  count: number,
  make: (f: WaybillFacts) => Promise<DocumentResult>,
): Promise<void> {
  const inputs = Array.from({ length: count }, (_, i) => facts(i));
  await make(inputs[0]!); // warm the fonts and the JIT once
  let pages = 0;
  let bytes = 0;
  const t0 = performance.now();
  for (const f of inputs) {
    const r = await make(f);
    if (!r.ok) throw new Error(r.message);
    pages += r.pages;
    bytes += r.pdf.length;
  }
  const seconds = (performance.now() - t0) / 1000;
  console.log(
    `client paper: ${count} ${name} PDFs (${pages} pages) in ${seconds.toFixed(2)} s: ` +
      `${(count / seconds).toFixed(0)} ${name}s/s, ${(pages / seconds).toFixed(0)} pages/s, ` +
      `${(bytes / count / 1024).toFixed(1)} KiB each`,
  );
}

export async function labelsBench(): Promise<void> {
  await timed("label", LABELS, (f: ShipmentFacts) => labelPdf(f));
  await timed("waybill", OTHER_DOCUMENTS, waybillPdf);
  await timed("packing slip", OTHER_DOCUMENTS, (f: ShipmentFacts) => clientPackingSlipPdf(f));
}

if (import.meta.main) await labelsBench();
