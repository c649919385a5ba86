/**
 * The parts an actor runtime is wired from (runtime.ts): its turns and mailboxes, timers,
 * outboxes, recovery markers, the sweeps of partitions it gains and, when its placement is
 * clustered, fencing and forwarding. Each part calls back into the runtime through its hooks.
 */
import type { ColdSource } from "./turn.ts";
import { Turns } from "./turn.ts";
import { type Forwarded, Forwarding } from "./forwarding.ts";
import type { RuntimeOptions } from "./runtime_options.ts";
import { Mailboxes } from "./mailboxes.ts";
import { MarkerSweeper } from "./markers.ts";
import { Outboxes } from "./outbox.ts";
import type { AskResult } from "./plan.ts";
import { republish } from "./publication.ts";
import type { ActorKey, DueTimer, HeldPartitions } from "./store.ts";
import { type Placement, WholePlacement } from "./placement.ts";
import { Fencing } from "./fencing.ts";
import { GainedSweeps, heldPartitions, holdsActor } from "./held.ts";
import { TimerFiring } from "./timer_firing.ts";

export interface RuntimeParts {
  readonly outboxes: Outboxes;
  readonly gains: GainedSweeps;
  readonly turns: Turns;
  readonly mailboxes: Mailboxes;
  readonly timers: TimerFiring;
  readonly markers: MarkerSweeper;
  /** Set when the placement's partitions are leased (fencing.ts). */
  readonly fencing: Fencing | null;
  /** Undefined under WholePlacement: one instance alone forwards nothing. */
  readonly forwarding: Forwarding | undefined;
}

/** What the parts ask of the runtime they make up. */
export interface RuntimeHooks {
  readonly busPrefix: string;
  readonly placement: Placement;
  readonly onError: (error: unknown, where: string) => void;
  readonly coldSource: (type: string) => ColdSource | undefined;
  readonly closed: () => boolean;
  readonly fireTimer: (t: DueTimer) => Promise<unknown>;
  /** A forwarded call, made here where its partition is held. */
  readonly here: (call: Forwarded) => Promise<AskResult<unknown>>;
  readonly recoverUnpublished: (held: HeldPartitions) => Promise<number>;
  readonly fireDueTimers: () => Promise<number>;
  readonly sweepOutboxes: () => Promise<number>;
}

/** Wires the runtime's parts from its options, in the order they depend on one another. */
export function runtimeParts(options: RuntimeOptions, hooks: RuntimeHooks): RuntimeParts {
  const { placement, busPrefix, onError } = hooks;
  // Timers, outbox items and lost changes are this instance's in the partitions it holds.
  const held = () => heldPartitions(placement);
  const holds = (key: ActorKey) => holdsActor(placement, key);
  const outboxes = new Outboxes({
    store: options.store,
    onError,
    now: () => options.clock.now(),
    held,
    holds,
  });
  // A partition gained: its lost changes, its outbox items, the timers due (held.ts).
  const gains = new GainedSweeps(async (ps) => {
    await hooks.recoverUnpublished(ps);
    await outboxes.sweepPartitions(ps);
    await hooks.fireDueTimers();
  }, onError);
  const turns = new Turns({
    store: options.store,
    bus: options.bus,
    busPrefix,
    clock: options.clock,
    groupCommit: options.groupCommit !== false,
    onError,
    onCommit: options.onCommit,
    onOutbox: (items) => outboxes.committed(items),
    coldSource: hooks.coldSource,
    fence: placement.fences ? (key) => fencing!.fenceOf(key) : undefined,
  });
  const mailboxes: Mailboxes = new Mailboxes({
    store: options.store,
    turns,
    markers: () => markers,
    onError,
    ...(options.actorsActiveMax === undefined ? {} : { activeMax: options.actorsActiveMax }),
  });
  const timers = new TimerFiring({
    store: options.store,
    clock: options.clock,
    fire: hooks.fireTimer,
    onError,
    closed: hooks.closed,
    sweepOutboxes: hooks.sweepOutboxes,
    held,
  });
  const markers: MarkerSweeper = new MarkerSweeper({
    store: options.store,
    bus: options.bus,
    onError,
    cells: () => mailboxes.values(),
    republish: async (cell) => {
      const from = cell.markerFrom ?? 1;
      await republish(options.store, options.bus, busPrefix, cell.def, cell.key, from);
    },
    holds,
  });
  const fencing = placement.fences
    ? new Fencing(placement, (moved) => mailboxes.forgetPartitions(moved))
    : null;
  const forwarding = placement instanceof WholePlacement ? undefined : new Forwarding({
    bus: options.bus,
    busPrefix,
    placement,
    ...(options.forwardWaitMs === undefined ? {} : { waitMs: options.forwardWaitMs }),
    ...(options.onForward === undefined ? {} : { onForward: options.onForward }),
    released: (partition) => mailboxes.forgetPartitions(new Set([partition])),
    local: hooks.here,
  });
  return { outboxes, gains, turns, mailboxes, timers, markers, fencing, forwarding };
}
