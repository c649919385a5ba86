/** What the network-run routes take (courier 2.10, 4.5): their params, capacities and forms. */
import { z } from "../../../src/http/route.ts";
import { Currency } from "../../../src/http/schemas.ts";

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
