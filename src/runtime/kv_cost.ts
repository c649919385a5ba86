/**
 * What one write adds to one atomic commit of Deno KV, counted as the store counts it (Deno's
 * op_kv_atomic_write): its checks and mutations; its bytes, being every key checked or written,
 * and each set's key again with its value; the bytes of the keys it sets, which KV bounds on
 * their own (GROUP_COMMIT_KEY_BYTES_MAX); and its longest key (STORE_KEY_BYTES_MAX).
 */
import {
  addWrite,
  eventEntriesOf,
  FENCE,
  keptRepliesOf,
  type KvOps,
  OUTBOX_ITEM_BYTES,
  partsOf,
} from "./kv_layout.ts";
import { type ActorWrite, type CommitCost, storedBytes } from "./store.ts";

/**
 * Bytes allowed for each value set beside what is measured of it: V8's header of a value, and the
 * whole of a small one (an index entry's target, a timer's mark, a split record's head).
 */
const VALUE_OVERHEAD_BYTES = 128;

/** What one write costs; `partsBefore`: the parts its record had, deleted when it needs fewer. */
export function writeCost(w: ActorWrite, partsBefore: number): CommitCost {
  const tally = new Tally();
  addWrite(tally, w, partsBefore);
  // Its lease checked by the commit (kv_leases.ts): counted for each write, at most once needed.
  if (w.fence) tally.check({ key: [FENCE, w.fence.partition], versionstamp: null });
  // What KV keeps of the values as they are written: a split record's or event's UTF-8 parts (up
  // to three bytes a UTF-16 unit), else two bytes a unit past Latin-1 (storedBytes).
  const parts = partsOf(w);
  const record = parts.length > 0
    ? parts.reduce((n, p) => n + p.length, 0)
    : storedBytes(w.recordJson);
  const events = eventEntriesOf(w).reduce((n, e) => n + e.bytes, 0);
  const replies = keptRepliesOf(w).reduce((n, r) => n + r.bytes, 0);
  const outbox = (w.outbox ?? []).reduce(
    (n, i) => n + i.bytes + OUTBOX_ITEM_BYTES + (i.requestId?.length ?? 0),
    0,
  );
  return {
    mutations: tally.mutations,
    checks: tally.checks,
    bytes: record + events + replies + outbox + tally.keyPayload +
      VALUE_OVERHEAD_BYTES * tally.sets,
    keyBytes: tally.keyBytes,
    keyMax: tally.keyMax,
  };
}

/** An atomic operation that only counts what is added to it. */
class Tally implements KvOps {
  mutations = 0;
  checks = 0;
  sets = 0;
  /** Key bytes as the commit's total counts them: every key once, a set's key twice. */
  keyPayload = 0;
  /** Bytes of the keys set. */
  keyBytes = 0;
  keyMax = 0;

  check(...checks: Deno.AtomicCheck[]): this {
    for (const c of checks) {
      this.checks++;
      this.#key(c.key);
    }
    return this;
  }

  set(key: Deno.KvKey): this {
    this.mutations++;
    this.sets++;
    const n = this.#key(key);
    this.keyPayload += n;
    this.keyBytes += n;
    return this;
  }

  delete(key: Deno.KvKey): this {
    this.mutations++;
    this.#key(key);
    return this;
  }

  #key(key: Deno.KvKey): number {
    const n = encodedKeyBytes(key);
    this.keyPayload += n;
    if (n > this.keyMax) this.keyMax = n;
    return n;
  }
}

const encoder = new TextEncoder();
const PRINTABLE = /^[ -~]*$/;

/**
 * A key's size as Deno KV encodes it (the tuple encoding it shares with FoundationDB): a string
 * or bytes part is a tag, its bytes (UTF-8) with each zero byte escaped by a second byte, and a
 * terminator; a number a tag and 8 bytes; a bigint a tag and its magnitude's bytes (past 8 of
 * them, a length too); a boolean a tag.
 */
export function encodedKeyBytes(key: Deno.KvKey): number {
  let n = 0;
  for (const part of key) {
    if (typeof part === "string") {
      // Printable ASCII (every key the runtime makes but a user's) is one byte a character.
      n += 2 + (PRINTABLE.test(part) ? part.length : escapedLength(encoder.encode(part)));
    } else if (part instanceof Uint8Array) n += 2 + escapedLength(part);
    else if (typeof part === "number") n += 9;
    else if (typeof part === "bigint") n += bigintBytes(part);
    else n += 1;
  }
  return n;
}

function bigintBytes(n: bigint): number {
  const magnitude = n < 0n ? -n : n;
  const bytes = magnitude === 0n ? 0 : Math.ceil(magnitude.toString(16).length / 2);
  return 1 + bytes + (bytes > 8 ? 1 : 0);
}

function escapedLength(bytes: Uint8Array): number {
  let zeros = 0;
  for (const b of bytes) if (b === 0) zeros++;
  return bytes.length + zeros;
}
