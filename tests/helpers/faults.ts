/**
 * Fault injection for the workers the bus feeds: the environment's own runtime, except that the
 * first `times` asks (or reads) that `fails` picks throw, as a store failing for a moment would,
 * or, with `refuse`, are answered `actor_busy`, as a full mailbox answers. Everything else
 * reaches the real runtime: nothing stands in for KV, the bus or Postgres. And a bus whose
 * subscribers can be held back, as a lagging projection is.
 */
import type { Bus, BusHandler, BusMessage } from "../../src/bus/bus.ts";
import type { AnyActorDefinition } from "../../src/runtime/actor.ts";
import type { ActorRuntime } from "../../src/runtime/runtime.ts";

export interface FlakyRuntime {
  readonly runtime: ActorRuntime;
  /** The failures injected so far. */
  failed(): number;
}

export interface Faults {
  /** Which asks fail, by actor type and command. */
  readonly fails: (type: string, command: unknown) => boolean;
  /** How many of them fail before the rest go through (1 by default). */
  readonly times?: number;
  /** Answer `actor_busy` instead of throwing. */
  readonly refuse?: boolean;
}

type Method = (...args: unknown[]) => unknown;

export function flakyRuntime(runtime: ActorRuntime, faults: Faults): FlakyRuntime {
  const { fails, times = 1, refuse = false } = faults;
  let failed = 0;
  const proxy = new Proxy(runtime, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      // Called on the runtime itself: its private fields are not the proxy's.
      const method = (...args: unknown[]) => (value as Method).apply(target, args);
      if (property !== "ask" && property !== "read") return method;
      // ask and read: (def, tenant, id, command, options?)
      return (...args: unknown[]) => {
        const [def, , id, command] = args as [AnyActorDefinition, string, string, unknown];
        if (failed < times && fails(def.type, command)) {
          failed++;
          const message = `injected failure ${failed}: ${def.type} ${id}`;
          if (refuse) return Promise.resolve({ ok: false, code: "actor_busy", message });
          return Promise.reject(new Error(message));
        }
        return method(...args);
      };
    },
  });
  return { runtime: proxy, failed: () => failed };
}

/** A bus whose own subscribers hear nothing while it is held (see `heldBus`). */
export interface HeldBus {
  readonly bus: Bus;
  /** From now on, what is published is kept from this bus's subscribers. */
  hold(): void;
  /**
   * Hands over what was kept, in publish order, each once its handler took the one before; with
   * `count`, only that many of the oldest, and the rest stays held.
   */
  release(count?: number): Promise<void>;
}

/**
 * The environment's bus, except that what its subscribers hear can be held back, as a
 * projection falling behind the actors is (another instance's, a slow database): publishing
 * and flushing reach the real bus, and a message held counts as handled there at once.
 */
export function heldBus(bus: Bus): HeldBus {
  let held = false;
  const kept: { readonly handler: BusHandler; readonly message: BusMessage }[] = [];
  return {
    bus: {
      publish: (subject, payload, options) => bus.publish(subject, payload, options),
      subscribe: (pattern, handler, options) =>
        bus.subscribe(pattern, (message) => {
          if (!held) return handler(message);
          kept.push({ handler, message });
        }, options),
      flush: () => bus.flush(),
      drain: () => bus.drain(),
      // Requests (forwarded asks) are answers, not changes: never held.
      request: (subject, payload, options) => bus.request(subject, payload, options),
      serve: (subject, handler) => bus.serve(subject, handler),
    },
    hold() {
      held = true;
    },
    async release(count = Infinity) {
      // Still held while it empties: a message published meanwhile goes behind the kept ones.
      for (let n = 0; n < count && kept.length > 0; n++) {
        const next = kept.shift()!;
        await next.handler(next.message);
      }
      held = kept.length > 0;
    },
  };
}

/**
 * Runs `fn` while the environment's runtime is `flakyRuntime(runtime, faults)` (the process
 * dying between two steps of a request), then puts the real runtime back; answers how many asks
 * failed.
 */
export async function whileFlaky(
  env: { readonly runtime: ActorRuntime },
  faults: Faults,
  fn: () => Promise<void>,
): Promise<number> {
  const holder = env as { runtime: ActorRuntime };
  const real = holder.runtime;
  const flaky = flakyRuntime(real, faults);
  holder.runtime = flaky.runtime;
  try {
    await fn();
  } finally {
    holder.runtime = real;
  }
  return flaky.failed();
}

/** One ask held back by `holdAsk`. */
export interface HeldAsk {
  /** Resolves once the ask is held, before it reached its actor. */
  readonly reached: Promise<void>;
  /** Lets it through. */
  open(): void;
}

/**
 * Holds the next ask of the runtime that `picks` chooses before it reaches its actor, as a GC
 * pause, a stalled event loop or a slow store holds one step of a request between two others,
 * however long the manual clock moves meanwhile; every other ask, and those after it, go through.
 * Called more than once on one runtime, each hold wraps the ones before.
 */
export function holdAsk(
  runtime: ActorRuntime,
  picks: (type: string, command: unknown) => boolean,
): HeldAsk {
  let reached!: () => void, open!: () => void;
  const atAsk = new Promise<void>((r) => (reached = r));
  const gate = new Promise<void>((r) => (open = r));
  let armed = true;
  const ask = runtime.ask.bind(runtime);
  runtime.ask = (async (...args: Parameters<typeof ask>) => {
    const [def, , , command] = args;
    if (armed && picks(def.type, command)) {
      armed = false;
      reached();
      await gate;
    }
    return await ask(...args);
  }) as typeof runtime.ask;
  return { reached: atAsk, open };
}

/**
 * Runs `between` once, right after the next ask of the runtime that `picks` chooses is answered
 * and before its caller hears the answer: another request's commit landing just after that one,
 * while the caller's flow goes on. Every other ask goes through as it is.
 */
export function afterAsk(
  runtime: ActorRuntime,
  picks: (type: string, command: unknown) => boolean,
  between: () => Promise<unknown>,
): void {
  let armed = true;
  const ask = runtime.ask.bind(runtime);
  runtime.ask = (async (...args: Parameters<typeof ask>) => {
    const [def, , , command] = args;
    const mine = armed && picks(def.type, command);
    if (mine) armed = false;
    const answer = await ask(...args);
    if (mine) await between();
    return answer;
  }) as typeof runtime.ask;
}

/**
 * Fails every ask of the runtime that `picks` chooses, before it reaches its actor, until the
 * answer is called: as a process dying before that step leaves the work, each time, so the
 * caller's chain of asks stops there. Every other ask goes through.
 */
export function failAsks(
  runtime: ActorRuntime,
  picks: (type: string, command: unknown) => boolean,
): () => void {
  let failing = true;
  const ask = runtime.ask.bind(runtime);
  runtime.ask = ((...args: Parameters<typeof ask>) => {
    const [def, , id, command] = args;
    if (failing && picks(def.type, command)) {
      return Promise.reject(new Error(`injected failure: ${def.type} ${id}`));
    }
    return ask(...args);
  }) as typeof runtime.ask;
  return () => {
    failing = false;
  };
}

/**
 * Answers `actor_busy` (a full mailbox) to the first `times` asks of the runtime that `picks`
 * chooses, before they reach their actor, whoever asks (a request, a reactor, a sweep); every
 * other ask goes through. Answers how many were refused so far.
 */
export function busyAsks(
  runtime: ActorRuntime,
  picks: (type: string, command: unknown) => boolean,
  times: number,
): () => number {
  let refused = 0;
  const ask = runtime.ask.bind(runtime);
  runtime.ask = ((...args: Parameters<typeof ask>) => {
    const [def, , id, command] = args;
    if (refused < times && picks(def.type, command)) {
      refused++;
      const message = `injected busy ${refused}: ${def.type} ${id}`;
      return Promise.resolve({ ok: false, code: "actor_busy", message });
    }
    return ask(...args);
  }) as typeof runtime.ask;
  return () => refused;
}

/**
 * Picks asks by their command's kind, and by the actor's type when given (for `holdAsk` and
 * `Faults.fails`).
 */
export function commandKind(
  kind: string,
  actorType?: string,
): (type: string, command: unknown) => boolean {
  return (type, command) =>
    (actorType === undefined || type === actorType) &&
    (command as { kind?: string } | null)?.kind === kind;
}
