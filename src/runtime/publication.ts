/**
 * What the runtime puts on the bus after a commit: one actor's change (its new events, unless
 * kept off the bus, and its projected snapshot) on `<env>.<tenant>.<type>.<id>`; and, at start,
 * the changes a crash kept off the bus, found by the store's recovery markers.
 */
import { type ActorChange, type Bus, subjectOf } from "../bus/bus.ts";
import type { AnyActorDefinition } from "./actor.ts";
import { changeSlices } from "./bus_slices.ts";
import { partitionOf } from "./placement.ts";
import type { ActorKey, ActorStore, HeldPartitions, StoredEvent } from "./store.ts";

/** One actor's committed change, as its commit left it. */
export interface Committed {
  readonly def: AnyActorDefinition;
  readonly key: ActorKey;
  readonly tenant: string;
  /** The seq of its last event. */
  readonly version: number;
  readonly events: readonly StoredEvent[];
  readonly state: unknown;
  /** The request its commands came from, if one did (ActorChange.request_id). */
  readonly requestId?: string | undefined;
  /** Its stored record's JSON length, when known: a small change is never measured again. */
  readonly stateBytes?: number;
}

/** Puts the change on the bus, as several messages if it is past one (bus_slices.ts). */
export function publishChange(bus: Bus, busPrefix: string, c: Committed): Promise<void> {
  return Promise.try(() => {
    const change = changeOf(busPrefix, c);
    const rough = c.stateBytes === undefined
      ? undefined
      : c.stateBytes + c.events.reduce((n, e) => n + e.bytes, 0);
    const subject = subjectOf(busPrefix, c.tenant, c.key.type, c.key.id);
    // Named, so the work it calls for is done by the partition's holder alone (issue 43 item 3).
    const options = { partition: partitionOf(c.key) };
    const slices = changeSlices(change, rough);
    if (slices.length === 1) return bus.publish(subject, change, options);
    // Published in one go, in order: the actor's next change cannot come between them.
    return Promise.all(slices.map((s) => bus.publish(subject, s, options))).then(() => {});
  });
}

function changeOf(busPrefix: string, c: Committed): ActorChange {
  const { def, key, tenant } = c;
  const change: ActorChange = {
    env: busPrefix,
    tenant,
    type: key.type,
    id: key.id,
    version: c.version,
    events: busEvents(def, c.events).map((e) => ({ seq: e.seq, at: e.at, event: e.event })),
    ...(def.project ? snapshotOf(def.project(c.state)) : {}),
    ...(c.requestId === undefined ? {} : { request_id: c.requestId }),
  };
  return change;
}

/** The events of a change that go on the bus (ActorDefinition.publishEvents and onBus). */
export function busEvents(
  def: AnyActorDefinition,
  events: readonly StoredEvent[],
): readonly StoredEvent[] {
  if (def.publishEvents === false) return [];
  return def.onBus ? events.filter((e) => def.onBus!(e.event)) : events;
}

function snapshotOf(snapshot: unknown): { snapshot?: unknown } {
  return snapshot === undefined ? {} : { snapshot };
}

/**
 * Publishes again one actor's changes from event `from` on, with its stored state: what a crash
 * or a failed publication kept off the bus. Answers the store version it published, or null when
 * the actor or its type is gone.
 */
export async function republish(
  store: ActorStore,
  bus: Bus,
  busPrefix: string,
  def: AnyActorDefinition | undefined,
  key: ActorKey,
  from: number,
): Promise<string | null> {
  const stored = await store.load(key);
  if (!def || !stored) return null;
  const events: StoredEvent[] = [];
  for await (const e of store.events(key, from)) events.push(e);
  const r = stored.record;
  const state = def.load ? def.load(r.state, r.v) : r.state;
  await publishChange(bus, busPrefix, {
    def,
    key,
    tenant: r.tenant,
    version: r.seq,
    events,
    state,
  });
  await bus.flush();
  return stored.version;
}

/**
 * Publishes again the changes of every actor whose recovery marker is still set (a crash came
 * between its commit and the bus), each once it is on the bus clearing its marker. Answers how
 * many actors it republished. With `scope`, those of the partitions this instance holds only
 * (issue 43 item 3): a marker is cleared only while its partition is still held, as the holder's
 * handlers alone take the change; one lost meanwhile is its new holder's to republish. An actor
 * whose changes cannot be published again (its state unreadable, a part missing, the bus down)
 * is reported to `onError` and keeps its marker for the next recovery: one bad actor never stops
 * the others', nor the start.
 */
export async function recoverUnpublished(
  store: ActorStore,
  bus: Bus,
  busPrefix: string,
  defs: ReadonlyMap<string, AnyActorDefinition>,
  onError: (error: unknown, where: string) => void,
  scope?: { readonly held: HeldPartitions; readonly holds: (key: ActorKey) => boolean },
): Promise<number> {
  let republished = 0;
  // Markers left set on purpose: a batch of only these ends the recovery.
  const left = new Set<string>();
  for (let round = 0; round < 10_000; round++) {
    // Listed past those left, which stay stored: a full listing of them would hide the rest.
    const listed = 100 + left.size;
    const batch = await store.unpublished(listed, scope?.held);
    if (batch.every((u) => left.has(`${u.type}/${u.id}`))) break;
    for (const u of batch) {
      const k = `${u.type}/${u.id}`;
      if (left.has(k)) continue;
      let version: string | null;
      try {
        version = await republish(store, bus, busPrefix, defs.get(u.type), u, u.from);
      } catch (error) {
        onError(error, `republishing ${u.type} ${u.id} from seq ${u.from} (its marker stays)`);
        version = null;
      }
      // Gone (or of no type run here), failed, or its partition lost meanwhile: left as it is.
      if (version === null || (scope && !scope.holds(u))) {
        left.add(k);
        continue;
      }
      await store.markPublished([{ key: u, version }]);
      republished++;
    }
  }
  return republished;
}
