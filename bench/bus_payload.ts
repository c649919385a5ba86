/**
 * What handing a bus payload to subscribers costs: the structured clone the in-process bus made
 * of every payload before, against the deep freeze it makes now (src/bus/frozen.ts), on a real
 * booking's shipment change. Figures, not a test.
 *
 *   env -u DATABASE_URL -u NATS_URL deno run --allow-all bench/bus_payload.ts
 */
import type { BusMessage } from "../src/bus/bus.ts";
import { deepFreeze } from "../src/bus/frozen.ts";
import { subjectPattern } from "../src/bus/bus.ts";
import { bookShipment, newClient, newCourier, topUp } from "../tests/helpers/courier.ts";
import { openTestEnv } from "../tests/helpers/test_env.ts";

const ROUNDS = 5_000;

/** The JSON of one booking's shipment change, as the bus carried it. */
async function shipmentChange(): Promise<string> {
  const t = await openTestEnv();
  try {
    const seen: BusMessage[] = [];
    t.env.bus.subscribe(subjectPattern(t.env.runtime.busPrefix, "*", "shipment"), (m) => {
      seen.push(m);
    });
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "1000");
    await bookShipment(t, client);
    await t.settle();
    return JSON.stringify(seen[0]!.payload);
  } finally {
    await t.close();
  }
}

function timed(name: string, json: string, work: (payload: unknown) => unknown): void {
  const copies = Array.from({ length: ROUNDS }, () => JSON.parse(json));
  const start = performance.now();
  for (const c of copies) work(c);
  const us = (performance.now() - start) * 1000 / ROUNDS;
  console.log(`${name}: ${us.toFixed(1)} µs a payload (${json.length} bytes of JSON)`);
}

if (import.meta.main) {
  const json = await shipmentChange();
  for (let round = 0; round < 3; round++) {
    timed("structuredClone", json, (p) => structuredClone(p));
    timed("deepFreeze", json, deepFreeze);
    // A scan publishes the record again: its unchanged parts are frozen already.
    const once = deepFreeze(JSON.parse(json));
    timed("deepFreeze, published before", json, () => deepFreeze({ ...once }));
  }
}
