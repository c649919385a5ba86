/**
 * One actor's change as bus messages NATS takes: a message past the server's max_payload is
 * refused, and a change kept off the bus keeps its recovery marker, failing again at every sweep.
 * A change past BUS_CHANGE_BYTES_MAX (the events of many commits, published again after a crash)
 * goes as several messages in order, each with the snapshot (a reactor reads an event beside it,
 * as it does when one change carries several commands' events) and, as its version, the seq of
 * its last event: each is newer than the one before, as a change of its own would be, and the
 * last is the change's version.
 */
import type { ActorChange } from "../bus/bus.ts";
import { BUS_CHANGE_BYTES_MAX } from "../limits.ts";

const encoder = new TextEncoder();

/**
 * The messages of `change`. `roughBytes`: what the store keeps of its events and state (each at
 * least one byte a UTF-16 unit, so UTF-8 is at most three times it), when known: a change far
 * under the bound is then never measured.
 */
export function changeSlices(
  change: ActorChange,
  roughBytes: number | undefined,
  max = BUS_CHANGE_BYTES_MAX,
): ActorChange[] {
  // Half the bound: room for a snapshot somewhat larger than the state it is made of.
  if (roughBytes !== undefined && 3 * roughBytes <= max / 2) return [change];
  if (utf8Bytes(JSON.stringify(change)) <= max) return [change];
  const { events, ...rest } = change;
  const budget = max - utf8Bytes(JSON.stringify({ ...rest, events: [] }));
  const slices: ActorChange["events"][] = [];
  let slice: ActorChange["events"][number][] = [];
  let bytes = 0;
  for (const e of events) {
    const size = utf8Bytes(JSON.stringify(e)) + 1; // and its comma
    if (size > budget) {
      throw new Error(
        `change of ${change.type} ${change.id} too large for the bus: event ${e.seq} takes ${size} bytes beside the snapshot, max ${budget}`,
      );
    }
    if (bytes + size > budget) {
      slices.push(slice);
      slice = [];
      bytes = 0;
    }
    slice.push(e);
    bytes += size;
  }
  if (slice.length > 0 || slices.length === 0) slices.push(slice);
  return slices.map((s, i) => ({
    ...rest,
    version: i === slices.length - 1 ? change.version : s.at(-1)!.seq,
    events: s,
  }));
}

function utf8Bytes(json: string): number {
  return encoder.encode(json).length;
}
