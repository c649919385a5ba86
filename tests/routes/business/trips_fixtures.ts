/** A business with money in its wallet, and a booking body of Business API 2.1, for trip tests. */
import assert from "node:assert/strict";
import { walletActor, type WalletEvent } from "../../../actors/platform/wallet.ts";
import type { Receiver } from "../../helpers/receiver.ts";
import type { CreatedBusiness, TestEnv } from "../../helpers/test_env.ts";

// Gaborone: the Main Mall to Block 8.
export const PARCEL = {
  type: "parcel",
  passenger_name: "Neo Kgosi",
  passenger_phone: "+26771234567",
  pickup_address: "Main Mall, Gaborone",
  pickup_lat: -24.6545,
  pickup_lng: 25.9086,
  dest_address: "Plot 9, Block 8",
  dest_lat: -24.6019,
  dest_lng: 25.935,
};

/** A ride: its destination is the dropoff_* set (business 2.1), the Main Mall to the airport. */
export const RIDE = {
  type: "ride",
  passenger_name: PARCEL.passenger_name,
  passenger_phone: PARCEL.passenger_phone,
  pickup_address: PARCEL.pickup_address,
  pickup_lat: PARCEL.pickup_lat,
  pickup_lng: PARCEL.pickup_lng,
  dropoff_address: "SSKA Airport",
  dropoff_lat: -24.5552,
  dropoff_lng: 25.9182,
};

/** The ways a request says it is a test (business 7, 9.3): a body flag, or the header. */
export const TEST_FLAGS: readonly [Record<string, unknown>, Record<string, string>][] = [
  [{ test: true }, {}],
  [{ dry_run: true }, {}],
  [{}, { "X-Service-Test": "true" }],
];

export async function fundedBusiness(t: TestEnv, amount = "1000.00"): Promise<CreatedBusiness> {
  const b = await t.createBusiness();
  if (amount !== "0") {
    const r = await t.call("POST", `/operator/businesses/${b.id}/wallet`, {
      operator: true,
      body: { amount, currency: "BWP", reference: `fund-${crypto.randomUUID()}` },
    });
    if (r.status !== 201) throw new Error(`fund: ${r.status} ${JSON.stringify(r.body)}`);
  }
  return b;
}

/** A funded business whose webhooks go to `receiver`. */
export async function hooked(t: TestEnv, receiver: Receiver): Promise<CreatedBusiness> {
  const b = await fundedBusiness(t);
  const r = await t.call("PATCH", "/business/profile", {
    key: b.api_key,
    body: { webhook_url: receiver.url },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return b;
}

/** The debits the business's wallet made, from its event log. */
export async function debitsOf(t: TestEnv, businessId: string): Promise<number> {
  let n = 0;
  for await (const e of t.env.runtime.events(walletActor, businessId)) {
    const event = e.event as WalletEvent;
    if (event.kind === "wallet_transaction" && event.transaction.kind === "debit") n++;
  }
  return n;
}

export async function balanceOf(t: TestEnv, key: string): Promise<unknown> {
  const r = await t.call("GET", "/business/wallet", { key });
  return r.body.data;
}

export function book(
  t: TestEnv,
  key: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return t.call("POST", "/business/book", { key, body, headers });
}

/** Books `body` for the business of `key`, which must answer 201; answers the trip's reference. */
export async function bookedReference(
  t: TestEnv,
  key: string,
  body: Record<string, unknown> = PARCEL,
): Promise<string> {
  const booked = await book(t, key, body);
  assert.equal(booked.status, 201, JSON.stringify(booked.body));
  return booked.body.data.reference as string;
}

/** GET /business/wallet of a business paying from its wallet, holding `balance` BWP. */
export function bwp(balance: number) {
  return { billing_type: "wallet", credit_limit: null, balances: [{ currency: "BWP", balance }] };
}
