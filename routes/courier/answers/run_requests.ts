/**
 * What the network-run routes take (courier 2.10, 4.5): their params, capacities and forms, and
 * the run and stop actions with their bodies.
 */
import { z } from "../../../src/http/route.ts";
import { Currency, PlainText, Waybill } from "../../../src/http/schemas.ts";

export const Text = (max: number) => z.string().trim().min(1).max(max);
/** spec: courier 2.10: a run's capacities, and a collect stop's reserved capacity. */
export const Capacities = z.object({
  kg: z.number().nonnegative().max(100_000),
  m3: z.number().nonnegative().max(1_000),
  pieces: z.number().int().nonnegative().max(100_000),
  cold_slots: z.number().int().nonnegative().max(1_000).default(0),
});
/** An idempotency_key, as long as every request's may be (the expense form's too). */
export const IDEMPOTENCY_KEY_CHARS_MAX = 120;
export const IdempotencyKey = Text(IDEMPOTENCY_KEY_CHARS_MAX);
export const RunParam = z.object({ run: Text(64) });
/** The expense form as the OpenAPI document shows it; expenseForm reads and checks it. */
export const ExpenseForm = z.object({
  receipt: z.string().openapi({ format: "binary", description: "The receipt file (not empty)" }),
  idempotency_key: IdempotencyKey.openapi({ example: "expense-fuel-1" }),
  amount: z.string().openapi({
    description: "A positive amount in the currency, in major units",
    example: "250.00",
  }),
  currency: Currency,
  note: z.string().optional().openapi({
    description: "What the expense was for; no control characters but tab and line breaks",
  }),
});
export const StopParams = z.object({ run: Text(64), stop: Text(64) });

// Waybills as typed, in any case (src/http/schemas.ts Waybill; courier 2.3: the waybill
// identifies the shipment).
export const RunActionBody = z.object({
  idempotency_key: IdempotencyKey.optional(),
  waybills: z.array(Waybill).max(1_000).optional(),
  facility_id: Text(120).optional(),
  order: z.array(Text(64)).max(1_000).optional(),
  to_run: Text(64).optional(),
  waybill: Waybill.optional(),
  condition: z.enum(["missing", "damaged", "returned", "customs_hold"]).optional(),
  // spec: courier 2.6 rule 1: a wait's note is its charge's reason (PlainText).
  note: PlainText(500, { lines: true }).optional(),
  stop_id: Text(64).optional(),
  minutes: z.number().int().positive().max(24 * 60).optional(),
});

export const StopActionBody = z.object({
  idempotency_key: IdempotencyKey.optional(),
  side: z.enum(["exit", "entry"]).optional(),
  waybill: Waybill.optional(),
  labels: z.array(Text(80)).max(500).optional(),
  // spec: courier 2.6 rule 1: a failed collection's reason is its charge's reason (PlainText).
  reason: PlainText(500, { lines: true }).optional(),
  lab_handover: z.boolean().optional(),
  received_by: Text(120).optional(),
  note: z.string().max(500).optional(),
});

export const RUN_ACTIONS = [
  "depart",
  "arrive",
  "unload",
  "reorder",
  "transfer",
  "report",
  "close",
  "waiting",
] as const;
export const DRIVER_RUN_ACTIONS = ["depart", "arrive", "unload", "report"] as const;
export const STOP_ACTIONS = ["border", "cross", "deliver", "collect", "fail"] as const;
