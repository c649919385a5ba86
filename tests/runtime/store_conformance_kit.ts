/** What the store conformance suite's cases share (store_conformance.ts): places, writes. */
import assert from "node:assert/strict";
import type { ActorRecord, ActorStore, ActorWrite } from "../../src/runtime/store.ts";
import { storedBytes } from "../../src/runtime/store.ts";

/** Stores sharing one body of data (instances of one deployment), closed together. */
export interface StorePlace {
  /** Opens an instance on this place's data. */
  open(): Promise<ActorStore>;
  /** Closes every store opened here and removes the data. */
  close(): Promise<void>;
}

export interface StoreFactory {
  /** The store's name in test names: `kv`, `pg`. */
  readonly name: string;
  /** A fresh, empty place. */
  place(): Promise<StorePlace>;
  /** Skips the suite (the store's server is not there). */
  readonly ignore?: boolean;
}

export type Case = (f: StoreFactory) => { name: string; fn: () => Promise<void> };

/** Runs `fn` on a fresh place's first store and closes the place. */
export async function withStore(
  f: StoreFactory,
  fn: (store: ActorStore, place: StorePlace) => Promise<void>,
): Promise<void> {
  const place = await f.place();
  try {
    await fn(await place.open(), place);
  } finally {
    await place.close();
  }
}

/** A write of actor `type`/`id` at `seq` over the version read (`expected`), with the parts given. */
export function writeOf(
  type: string,
  id: string,
  expected: string | null,
  parts: Partial<Omit<ActorWrite, "type" | "id" | "expected" | "record">> & {
    state?: unknown;
    seq?: number;
    tenant?: string;
  } = {},
): ActorWrite {
  const { state = {}, seq = 1, tenant = "biz_1", ...rest } = parts;
  const record: ActorRecord = { v: 1, tenant, state, seq, timers: {}, indexes: [] };
  const recordJson = JSON.stringify(record);
  return {
    type,
    id,
    expected,
    record,
    events: [],
    indexSet: [],
    indexDelete: [],
    timerSet: [],
    timerDelete: [],
    replies: [],
    recordJson,
    recordBytes: recordJson.length,
    unpublishedFrom: null,
    ...rest,
  };
}

/** The events of seqs `from` to `to`, each `{n: seq}` unless `text` is given. */
export function eventsOf(from: number, to: number, text?: string) {
  return Array.from({ length: to - from + 1 }, (_, i) => {
    const event = text === undefined ? { n: from + i } : { n: from + i, text };
    return { seq: from + i, at: 1_000 + i, event, bytes: storedBytes(JSON.stringify(event)) };
  });
}

/** The version a successful commit of one write answered. */
export async function committed(store: ActorStore, w: ActorWrite): Promise<string> {
  const r = await store.commit([w]);
  assert.ok(r.ok, `commit of ${w.type} ${w.id}: ${JSON.stringify(r)}`);
  return r.versions[0]!;
}

export async function eventsFrom(store: ActorStore, key: { type: string; id: string }, from = 0) {
  const found: unknown[] = [];
  for await (const e of store.events(key, from)) found.push(e.event);
  return found;
}

export const CONFLICT = { ok: false, reason: "conflict" };
