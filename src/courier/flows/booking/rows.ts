/**
 * Courier 4.6: bulk and CSV booking, many requests of one call, each booked on its own
 * (bookRequest) and answered in order.
 */
import { courierCatalogueActor } from "../../../../actors/courier/courier_catalogue.ts";
import type { Deps } from "../../../environment.ts";
import { BOOKING_ROWS_CONCURRENCY } from "../../../limits.ts";
import { orRefuse } from "../../../runtime/actor.ts";
import type { Booked } from "./replay.ts";
import { type BookingRequest, bookRequest, type Caller } from "./request.ts";

/** One row of a call: its request and its identity (identityOf). */
export interface BookingRow {
  readonly req: BookingRequest;
  readonly identity: string | null;
}

/** A row that did not book: its refusal (Refused) or the failure that stopped it. */
export interface RowFailed {
  readonly failed: unknown;
}

/**
 * Books rows with bounded concurrency; each answers its booking or what stopped it, in order.
 * Rows that share an identity book one after another, in row order: booked side by side, a later
 * one would find the first still in flight and answer request_in_progress, or duplicate_order,
 * by chance (spec: courier 7: a repeated reference is a duplicate order, every time).
 */
export async function bookRows(
  deps: Pick<Deps, "runtime" | "clock" | "db">,
  caller: Caller,
  rows: readonly BookingRow[],
): Promise<(Booked | RowFailed)[]> {
  const out = new Array<Booked | RowFailed>(rows.length);
  const chains = chainsOf(rows);
  let next = 0;
  const worker = async () => {
    while (next < chains.length) {
      for (const i of chains[next++]!) {
        const row = rows[i]!;
        try {
          out[i] = await bookRequest(deps, caller, row.req, row.identity);
        } catch (e) {
          out[i] = { failed: e };
        }
      }
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(BOOKING_ROWS_CONCURRENCY, chains.length) }, worker),
  );
  return out;
}

/**
 * Row indexes grouped by what names them, in row order: its identity, and its
 * client_order_reference (rows with their own keys may still repeat an order reference, a
 * duplicate order under unique_external_reference). A row named by nothing is alone.
 */
function chainsOf(rows: readonly BookingRow[]): number[][] {
  const chains: number[][] = [];
  const byName = new Map<string, number[]>();
  for (const [i, { req, identity }] of rows.entries()) {
    const reference = req.client_order_reference;
    const names = [identity, reference ? `order:${reference}` : null].filter((n) => n !== null);
    const found = [...new Set(names.map((n) => byName.get(n)).filter((x) => x !== undefined))];
    const chain = found[0] ?? [];
    if (found.length === 0) chains.push(chain);
    chain.push(i);
    // A row naming two chains joins them, in row order (rare: one chain's key, another's order).
    for (const other of found.slice(1)) {
      chain.push(...other.splice(0));
      for (const [name, c] of byName) if (c === other) byName.set(name, chain);
    }
    chain.sort((a, b) => a - b);
    for (const n of names) byName.set(n, chain);
  }
  return chains.filter((c) => c.length > 0);
}

/** The codes of the courier's service levels, which bulk and CSV rows are checked against. */
export async function serviceLevelCodes(
  deps: Pick<Deps, "runtime">,
  courierId: string,
): Promise<string[]> {
  const catalogue = orRefuse(
    await deps.runtime.read(courierCatalogueActor, courierId, courierId, { kind: "get" }),
  );
  return catalogue.service_levels.map((s) => s.code);
}
