/**
 * Waybills and the references of the offers they book (courier 2.2, 2.3). An offer's reference
 * carries a number of the service's waybill sequence, and its waybill is that number: unique by
 * construction, the same on every retry of the booking, and in the order offers were made, so the
 * actor store writes a day's shipments side by side instead of all over its B-tree (random keys
 * made each booking's writes several times dearer). References made before the sequence keep
 * their derived waybill (booking_flow.ts `waybillOf`).
 */
import {
  PLATFORM_TENANT,
  WAYBILL_SEQUENCE_ID,
  waybillSequenceActor,
} from "../../actors/waybill_sequence.ts";
import type { ActorRuntime } from "../runtime/runtime.ts";

/** Base 32 without I, O, 0 and 1 (misread on paper), in ASCII order so text order is number order. */
const SEQUENCE_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ";
/** 13 characters: one more than the derived waybills' 12, so the two kinds never meet. */
const SEQUENCE_CHARS = 13;
/** Numbers an instance reserves at once: one commit per this many offers. */
export const WAYBILL_BLOCK = 1_000;

const SEQUENCED_REFERENCE = /^(?:prc|qt)_W([2-9A-HJ-NP-Z]{13})$/;

/** `n` as SEQUENCE_CHARS characters of SEQUENCE_ALPHABET, most significant first. */
export function sequenceText(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`not a sequence number: ${n}`);
  let out = "";
  for (let rest = n; out.length < SEQUENCE_CHARS; rest = Math.floor(rest / 32)) {
    out = SEQUENCE_ALPHABET[rest % 32] + out;
  }
  return out;
}

/** The waybill an offer reference names by its sequence number, or null for an older one. */
export function sequencedWaybill(reference: string): string | null {
  const m = SEQUENCED_REFERENCE.exec(reference);
  return m ? `WB${m[1]}` : null;
}

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
  return `${kind === "quote" ? "qt" : "prc"}_W${sequenceText(await n.next())}`;
}
