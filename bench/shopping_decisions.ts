/**
 * Shopping decision windows (issue 41, shopping 3), figures only: 10,000 lines awaiting the
 * customer's decision (substitutions under preference `ask`, 50 stores of 200 lines) whose windows
 * all end at one advance of the manual clock; the runtime's scheduler fires their durable timers
 * and each line becomes unavailable, decided_by preference. Windows expired per second, counted
 * from the advance until every line is refunded.
 */
import { shoppingStoreActor } from "../actors/shopping/store.ts";
import { MemoryBus } from "../src/bus/memory_bus.ts";
import { ActorRuntime } from "../src/runtime/runtime.ts";
import { KvActorStore } from "../src/runtime/kv_store.ts";
import { ManualClock } from "../src/runtime/clock.ts";
import { recordFigure } from "./summary.ts";

const STORES = Number(Deno.env.get("BENCH_DECISION_STORES") ?? 50);
const LINES = 200;
const ASK_MS = 5 * 60_000;
const TENANT = "biz_bench";

async function openStores(runtime: ActorRuntime): Promise<void> {
  await Promise.all(Array.from({ length: STORES }, async (_, s) => {
    const opened = await runtime.ask(shoppingStoreActor, TENANT, `store-${s}`, {
      kind: "open",
      order_reference: `BK-BENCH${s}`,
      business_id: TENANT,
      store_id: `store-${s}`,
      substitution_preference: "ask",
      store: {
        external_fulfilment_id: `F-${s}`,
        external_store_id: `S-${s}`,
        store_name: null,
        sequence: 1,
        estimated_amount_minor: 200_000,
        items: Array.from({ length: LINES }, (_, l) => ({
          external_item_id: `${s}-${l}`,
          name: `Product ${l}`,
          qty: 1,
          unit_price_minor: 999,
          barcode: null,
          image: null,
        })),
      },
    });
    if (!opened.ok) throw new Error(opened.message);
    // Each store's lines one after another (one actor), the stores side by side.
    for (let l = 0; l < LINES; l++) {
      const r = await runtime.ask(shoppingStoreActor, TENANT, `store-${s}`, {
        kind: "record_line",
        external_item_id: `${s}-${l}`,
        report: {
          outcome: "substituted",
          qty_found: 1,
          unit_price_paid_minor: 1_099,
          substitute: { name: "Other brand", barcode: null, unit_price_minor: 1_099 },
        },
        ask_timeout_ms: ASK_MS,
      });
      if (!r.ok) throw new Error(r.message);
    }
  }));
}

async function refunded(runtime: ActorRuntime): Promise<number> {
  let n = 0;
  for (let s = 0; s < STORES; s++) {
    const r = await runtime.read(shoppingStoreActor, TENANT, `store-${s}`, { kind: "get" });
    if (!r.ok || !r.reply) throw new Error(`store-${s} not found`);
    n += r.reply.lines.filter((l) => l.outcome === "unavailable" && l.decided_by === "preference")
      .length;
  }
  return n;
}

export async function shoppingDecisionsBench(): Promise<void> {
  const dir = await Deno.makeTempDir();
  const store = await KvActorStore.open(`${dir}/kv.sqlite`);
  const clock = new ManualClock();
  const runtime = new ActorRuntime({
    env: "bench",
    store,
    bus: new MemoryBus(),
    clock,
    definitions: [shoppingStoreActor],
  });
  try {
    await runtime.start();
    await openStores(runtime);
    const windows = STORES * LINES;
    clock.advanceBy(ASK_MS);
    const started = performance.now();
    const fired = await runtime.fireDueTimers();
    const seconds = (performance.now() - started) / 1_000;
    const done = await refunded(runtime);
    if (done !== windows || fired < windows) {
      throw new Error(`decision windows: ${done} of ${windows} refunded, ${fired} timers fired`);
    }
    const perSecond = windows / seconds;
    console.log(
      `shopping decisions: ${perSecond.toFixed(0)} decision windows expired/s when ${windows} ` +
        `expire at one clock advance (${seconds.toFixed(2)} s, each line refunded)`,
    );
    recordFigure("shopping_decision_windows_expired_per_second", perSecond);
  } finally {
    await runtime.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) await shoppingDecisionsBench();
