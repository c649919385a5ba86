/**
 * Waybills and the references of the offers they book (courier 2.2, 2.3). An offer's reference
 * carries a number of the service's waybill sequence, and its waybill is that number: unique by
 * construction, the same on every retry of the booking, and in the order offers were made, so the
 * actor store writes a day's shipments side by side instead of all over its B-tree (random keys
 * made each booking's writes several times dearer). References made before the sequence keep
 * their derived waybill (rules/waybill.ts `waybillOf`). The texts are in rules/waybill.ts.
 */
import { PLATFORM_TENANT } from "../../../actors/platform/platform_settings.ts";
import {
  WAYBILL_SEQUENCE_ID,
  waybillSequenceActor,
} from "../../../actors/courier/waybill_sequence.ts";
import { sequencedReference } from "../rules/waybill.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";

/** Numbers an instance reserves at once: one commit per this many offers. */
export const WAYBILL_BLOCK = 1_000;
/**
 * Where the sandbox's numbers start (2^52): each environment keeps its own sequence, and a label
 * printed in the sandbox must never name a live shipment when scanned.
 */
export const SANDBOX_WAYBILLS_FROM = 2 ** 52;

/** Hands out the sequence's numbers from blocks reserved by the sequence actor. */
class WaybillNumbers {
  #from = 0;
  #to = 0;
  #reserving: Promise<void> | null = null;
  readonly #runtime: ActorRuntime;

  constructor(runtime: ActorRuntime) {
    this.#runtime = runtime;
  }

  async next(): Promise<number> {
    while (this.#from >= this.#to) {
      // Callers that find the block spent wait for one reservation together.
      this.#reserving ??= this.#reserve().finally(() => {
        this.#reserving = null;
      });
      await this.#reserving;
    }
    return this.#from++;
  }

  async #reserve(): Promise<void> {
    const r = await this.#runtime.ask(waybillSequenceActor, PLATFORM_TENANT, WAYBILL_SEQUENCE_ID, {
      kind: "reserve",
      count: WAYBILL_BLOCK,
      at_least: this.#runtime.env === "sandbox" ? SANDBOX_WAYBILLS_FROM : 1,
    });
    if (!r.ok) throw new Error(`waybill numbers: ${r.code}: ${r.message}`);
    this.#from = r.reply.from;
    this.#to = r.reply.to;
  }
}

const numbers = new WeakMap<ActorRuntime, WaybillNumbers>();

/** A new offer's reference (`prc_` for prices, `qt_` for a quote), naming its waybill. */
export async function newOfferReference(
  runtime: ActorRuntime,
  kind: "prices" | "quote",
): Promise<string> {
  let n = numbers.get(runtime);
  if (!n) numbers.set(runtime, n = new WaybillNumbers(runtime));
  return sequencedReference(kind, await n.next());
}
