/** The read tables' tests' shipments: snapshots with pieces and scans at random (fast-check). */
import fc from "fast-check";
import type { ShipmentSnapshot } from "../../../src/courier/queries/operations_row.ts";

export const DAY = Date.UTC(2026, 2, 2);

const piece = fc.record({
  holder: fc.option(fc.constantFrom("driver 1", "depot", "a|b"), { nil: null }),
  facility_id: fc.option(fc.constantFrom("GBE", "FRW", "-", "MUB"), { nil: null }),
  last_scan_at: fc.option(fc.integer({ min: DAY, max: DAY + 5 }), { nil: null }),
});

/** A shipment snapshot with what the read table takes from it, pieces and scans at random. */
export const shipment = fc.record({
  pieces: fc.array(piece, { minLength: 1, maxLength: 5 }),
  last_scan: fc.option(
    fc.record({
      event: fc.constantFrom("scan", "collected"),
      at: fc.integer({ min: DAY, max: DAY + 9 }),
      facility_id: fc.option(fc.constant("GBE"), { nil: null }),
      note: fc.option(fc.string({ maxLength: 8 }), { nil: null }),
    }),
    { nil: null },
  ),
  first_due_at: fc.option(fc.integer({ min: DAY, max: DAY + 10 }), { nil: null }),
  closed_at: fc.option(fc.integer({ min: DAY, max: DAY + 10 }), { nil: null }),
  reference: fc.option(fc.constantFrom("PO-1", "PO-2"), { nil: null }),
}).map((r) => (waybill: string) =>
  ({
    waybill,
    client_id: "cli_1",
    status: r.closed_at === null ? "in_transit" : "delivered",
    health: "on_schedule",
    health_reason: "on its way",
    references: {
      external_customer_code: "CUST-7",
      external_billing_reference: null,
      client_order_reference: r.reference,
    },
    external_customer_code: "CUST-7",
    external_billing_reference: null,
    client_order_reference: r.reference,
    pieces: r.pieces.map((p, i) => ({ id: `${waybill}-${i + 1}`, ...p })),
    last_scan: r.last_scan,
    next_milestone: r.first_due_at === null ? null : "delivery",
    next_due_at: r.first_due_at,
    next_owner: r.first_due_at === null ? null : "courier",
    first_due_at: r.first_due_at,
    estimated_delivery_on: "2026-03-04",
    pricing: {
      tax_minor: r.reference === null ? 1092 : 0,
      promise: {
        collection_on: "2026-03-02",
        earliest_delivery: "2026-03-03",
        latest_delivery: "2026-03-05",
      },
    },
    booked_at: DAY,
    closed_at: r.closed_at,
    delivered_at: r.closed_at,
  }) as unknown as ShipmentSnapshot
);
