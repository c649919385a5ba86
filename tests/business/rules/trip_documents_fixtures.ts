/** A shop's order as the Business API's trip documents (4.1) are drawn from it. */
import { orderItems, type TripFacts } from "../../../src/business/rules/documents/facts.ts";

export const BOOKED_AT = Date.UTC(2026, 10, 3, 8, 30);

/** Two stores, aisles out of order, priced lines, one item short and one substituted. */
export const ORDER_PAYLOAD = {
  store_name: "Molapo Crossing",
  pieces: 2,
  items: [
    {
      name: "Milk 2L",
      qty: 2,
      qty_packed: 1,
      aisle: "10",
      barcode: "6001234567890",
      unit_price: 24.5,
    },
    { name: "Bread", qty: 1, qty_packed: 1, aisle: "2", sku: "BRD-01", unit_price: 12 },
    {
      name: "Rooibos tea",
      qty: 3,
      qty_packed: 3,
      aisle: "7",
      substitute: "Five Roses tea",
      substitution_preference: "same brand or none",
      unit_price: 31.99,
    },
    {
      name: "Paracetamol",
      qty: 1,
      store: "Clicks Airport Junction",
      aisle: "1",
      substitute: false,
    },
    { name: "Apples", qty: 6, aisle: "1", unit_price: 3.25 },
  ],
};

export function facts(over: Partial<TripFacts> = {}): TripFacts {
  return {
    reference: "ARY-7KQ2M9XH",
    order_number: "SO-55012",
    booked_at: BOOKED_AT,
    status: "searching",
    service: "Parcel delivery",
    vehicle: "Motorbike",
    parcel_size: "Small",
    weight_kg: 2.5,
    sender: { name: "Molapo Groceries", phone: null, address: "Main Mall, Gaborone" },
    recipient: { name: "Neo Mpho Kgosi", phone: "+26771234567", address: "Plot 9, Block 8" },
    stops: [],
    store_name: ORDER_PAYLOAD.store_name,
    pickup_at: BOOKED_AT + 20 * 60_000,
    items: orderItems(ORDER_PAYLOAD, "BWP"),
    pieces: 2,
    currency: "BWP",
    cod_amount_minor: 15_050,
    age_verification_required: true,
    handover_required: true,
    fare_lines: [
      { code: "base_fare", amount_minor: 2_500 },
      { code: "distance", amount_minor: 3_175 },
    ],
    billing_amount_minor: 5_675,
    charged_minor: 5_675,
    refunded_minor: null,
    distance_m: 6_350,
    ...over,
  };
}
