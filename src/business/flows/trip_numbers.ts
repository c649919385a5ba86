/**
 * Trip ids (Business API 2.2 `id`, an integer) handed out from blocks each business's sequence
 * (actors/business/trip_sequence.ts) reserved for this instance: a booking takes its number from
 * memory, so the sequence is no longer a commit every booking of a business waits for. Numbers are
 * unique per business and in booking order on one instance; gaps are allowed. A block is sized to
 * demand, so a quiet business leaves few numbers unused when the instance stops (those are gaps).
 * One allocator per environment, started with the business feature; the reservation is an ask like
 * any other, forwarded to the sequence's holder, so two instances' blocks never overlap.
 */
import { tripSequenceActor } from "../../../actors/business/trip_sequence.ts";
import type { Deps, Reactor } from "../../environment.ts";

/** Numbers of a business's first block after a start: a quiet business loses at most this. */
export const TRIP_BLOCK_FIRST = 1;
/** Numbers in a block at most: what one business may lose at a stop or a crash. */
export const TRIP_BLOCK_MAX = 64;
/** A block used up within this long was too small: the next holds twice as many. */
export const TRIP_BLOCK_QUICK_MS = 1_000;
/** A block that lasted longer than this was too big: the next holds half as many. */
export const TRIP_BLOCK_SLOW_MS = 60_000;

/** Where completeBooking takes a trip's number (its `id`). */
export interface TripNumbers {
  /**
   * Starts reserving the next block of `business` if it has no number left, so that the take
   * that follows (after the booking's charge) finds one instead of waiting for a reservation.
   */
  ready(business: string): void;
  /** The next number of `business` on this instance. */
  take(business: string): Promise<number>;
}

/** Reserves `count` consecutive numbers of `business`: the first of them. */
export type ReserveNumbers = (business: string, count: number) => Promise<number>;

interface Waiter {
  readonly resolve: (n: number) => void;
  readonly reject: (e: unknown) => void;
}

/** One business's block on this instance: numbers `next` to `end - 1` are free. */
interface Block {
  next: number;
  end: number;
  /** The size of the next reservation. */
  size: number;
  reservedAt: number;
  /** When the block's last number was taken (null: not used up). */
  spentAt: number | null;
  /** Bookings waiting for the reservation in flight, in booking order. */
  readonly waiting: Waiter[];
  reserving: boolean;
}

/** The next block's size from how long the last one lasted (spec: business 2.2, gaps allowed). */
export function nextBlockSize(size: number, lastedMs: number): number {
  if (lastedMs <= TRIP_BLOCK_QUICK_MS) return Math.min(size * 2, TRIP_BLOCK_MAX);
  if (lastedMs >= TRIP_BLOCK_SLOW_MS) return Math.max(Math.floor(size / 2), TRIP_BLOCK_FIRST);
  return size;
}

/**
 * Hands out each business's numbers from its block; a booking that finds the block used up waits
 * for the one reservation in flight for that business (never two at once), which asks for enough
 * numbers for everybody waiting, so a burst costs one reservation per block, not per booking.
 * Holds one entry (a few numbers) per business booked through this instance.
 */
export class TripNumberBlocks implements TripNumbers, Reactor {
  readonly #blocks = new Map<string, Block>();
  readonly #reserve: ReserveNumbers;
  readonly #now: () => number;

  constructor(reserve: ReserveNumbers, now: () => number) {
    this.#reserve = reserve;
    this.#now = now;
  }

  /**
   * The reservation a booking would wait for after its charge, begun beside the charge instead:
   * for a business booking now and then, one round trip fewer on each booking's way. Numbers are
   * still taken after the charge, so a refused one leaves its number to the next booking.
   */
  ready(business: string): void {
    const b = this.#blocks.get(business) ?? this.#open(business);
    if (b.next < b.end || b.reserving) return;
    void this.#fill(business, b, true);
  }

  take(business: string): Promise<number> {
    const b = this.#blocks.get(business) ?? this.#open(business);
    if (b.waiting.length === 0 && b.next < b.end) return Promise.resolve(this.#give(b));
    return new Promise<number>((resolve, reject) => {
      b.waiting.push({ resolve, reject });
      if (!b.reserving) void this.#fill(business, b);
    });
  }

  /** The size the block of `business` will be reserved at next (figures, tests). */
  blockSize(business: string): number {
    return this.#blocks.get(business)?.size ?? TRIP_BLOCK_FIRST;
  }

  /** Unused numbers are gaps (the sequence never hands them out again). */
  close(): Promise<void> {
    this.#blocks.clear();
    return Promise.resolve();
  }

  #open(business: string): Block {
    const b: Block = {
      next: 0,
      end: 0,
      size: TRIP_BLOCK_FIRST,
      reservedAt: 0,
      spentAt: null,
      waiting: [],
      reserving: false,
    };
    this.#blocks.set(business, b);
    return b;
  }

  #give(b: Block): number {
    const n = b.next++;
    if (b.next === b.end) b.spentAt = this.#now();
    return n;
  }

  /**
   * Reserves until nobody waits (once at least when `ahead`: for the bookings to come); a failed
   * reservation fails the bookings waiting for it.
   */
  async #fill(business: string, b: Block, ahead = false): Promise<void> {
    b.reserving = true;
    try {
      for (let once = ahead; once || b.waiting.length > 0; once = false) {
        if (b.spentAt !== null) b.size = nextBlockSize(b.size, b.spentAt - b.reservedAt);
        const count = Math.min(Math.max(b.size, b.waiting.length), TRIP_BLOCK_MAX);
        const first = await this.#reserve(business, count);
        b.next = first;
        b.end = first + count;
        b.reservedAt = this.#now();
        b.spentAt = null;
        while (b.waiting.length > 0 && b.next < b.end) b.waiting.shift()!.resolve(this.#give(b));
      }
    } catch (e) {
      for (const w of b.waiting.splice(0)) w.reject(e);
    } finally {
      b.reserving = false;
    }
  }
}

/** The sequence's reservation, as an ask (forwarded to the actor's holder on another instance). */
export function reserveFromSequence(deps: Pick<Deps, "runtime">): ReserveNumbers {
  return async (business, count) => {
    const r = await deps.runtime.ask(tripSequenceActor, business, business, {
      kind: "reserve",
      count,
    });
    if (!r.ok) throw new Error(`trip numbers of ${business}: ${r.code}: ${r.message}`);
    return r.reply;
  };
}

/** The name the business feature gives its allocator among the environment's reactors. */
export const TRIP_NUMBERS = "trip_numbers";

/** The environment's allocator (started by the business feature). */
export function tripNumbersOf(env: { readonly reactors: Readonly<Record<string, Reactor>> }) {
  const n = env.reactors[TRIP_NUMBERS];
  if (!(n instanceof TripNumberBlocks)) throw new Error("the business feature is not started");
  return n;
}
