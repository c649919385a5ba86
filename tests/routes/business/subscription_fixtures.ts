/** A recurring delivery's body (Business API 2.3, 4.2) and the calls its tests make. */
import { advance } from "../../helpers/receiver.ts";
import type { TestEnv } from "../../helpers/test_env.ts";
import { PARCEL } from "./trips_fixtures.ts";

const { type: _, ...delivery } = PARCEL;
/** Tuesdays and Thursdays at 09:30 in the business's zone (Botswana: UTC+2). */
export const WEEKLY = { ...delivery, days_of_week: [4, 2], pickup_time: "09:30" };
export const HOUR = 3600;

export function subscribe(
  t: TestEnv,
  key: string,
  body: Record<string, unknown> = WEEKLY,
  headers: Record<string, string> = {},
) {
  return t.call("POST", "/business/subscriptions", { key, body, headers });
}

/** Moves the clock, then waits for the occurrences it made due to be booked. */
export async function advanceAndBook(t: TestEnv, seconds: number): Promise<void> {
  await advance(t, seconds);
  await t.env.runtime.outboxesIdle();
}
