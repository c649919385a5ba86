/**
 * One actor driven through its pure `decide` and `evolve` with a fixed context: no KV, no HTTP,
 * no runtime. Commands are folded one by one as the runtime would (events evolved in order, the
 * reply computed from the state after them); a refusal changes nothing.
 */
import assert from "node:assert/strict";
import type {
  ActorDefinition,
  Ctx,
  IndexEntry,
  Rejection,
  TimerFired,
  TimerOp,
} from "../../src/runtime/actor.ts";

/** What one accepted command did. */
export interface Step<S, E, R> {
  readonly state: S;
  readonly events: readonly E[];
  readonly reply: R | undefined;
  readonly timers: readonly TimerOp[];
}

export class ActorHarness<S, C, E, R> {
  state: S;
  /** The clock every decision reads; move it between commands. */
  now: number;
  /** Every event accepted so far, in order (the actor's log). */
  readonly log: E[] = [];
  #ids = 0;

  constructor(
    readonly def: ActorDefinition<S, C, E, R>,
    options: { readonly now?: number; readonly state?: S } = {},
  ) {
    this.state = options.state === undefined ? def.initial : options.state;
    this.now = options.now ?? 0;
  }

  /** The context of one decision: this clock, ids numbered from 1 (`<prefix>_1`, ...). */
  ctx(): Ctx {
    return { now: this.now, newId: (prefix) => `${prefix}_${++this.#ids}` };
  }

  /** Decides and, when accepted, applies: the step, or the refusal (state untouched). */
  send(command: C | TimerFired): Step<S, E, R> | Rejection {
    const d = this.def.decide(this.state, command, this.ctx());
    if (!d.ok) return d;
    let next = this.state;
    for (const e of d.events) next = this.def.evolve(next, e);
    this.state = next;
    this.log.push(...d.events);
    const reply = d.reply?.(next, { seq: this.log.length });
    return { state: next, events: d.events, reply, timers: d.timers ?? [] };
  }

  /** Sends a command that must be accepted. */
  must(command: C | TimerFired): Step<S, E, R> {
    const r = this.send(command);
    if ("ok" in r) assert.fail(`${kindOf(command)} refused: ${r.code}: ${r.message}`);
    return r;
  }

  /** Sends a command that must be refused with `code` (and `message`, when given). */
  refused(command: C | TimerFired, code: string, message?: string | RegExp): Rejection {
    const before = this.state;
    const logged = this.log.length;
    const r = this.send(command);
    assert.ok("ok" in r, `${kindOf(command)} should be refused ${code}`);
    assert.equal(r.code, code, r.message);
    if (typeof message === "string") assert.equal(r.message, message);
    else if (message) assert.match(r.message, message);
    assert.equal(this.state, before, "a refusal changes nothing");
    assert.equal(this.log.length, logged);
    return r;
  }

  /** Fires a timer as the runtime's scheduler does. */
  fire(name: string, payload?: unknown): Step<S, E, R> {
    return this.must({ kind: "timer", name, payload } as TimerFired);
  }

  /** The secondary keys the state declares. */
  indexes(): readonly IndexEntry[] {
    return this.def.indexes?.(this.state) ?? [];
  }

  /**
   * The state folded again from the log as stored (JSON), from the initial state: what a restart
   * that replays the events would hold.
   */
  replayed(): S {
    return replay(this.def, JSON.parse(JSON.stringify(this.log)) as E[]);
  }
}

/** Folds `events` with the actor's `evolve`, from its initial state or `from`. */
export function replay<S, E>(
  def: Pick<ActorDefinition<S, never, E, never>, "initial" | "evolve">,
  events: readonly E[],
  from: S = def.initial,
): S {
  return events.reduce((s, e) => def.evolve(s, e), from);
}

/** The kinds of a list of events, for short assertions. */
export function kinds(events: readonly unknown[]): string[] {
  return events.map((e) => (e as { kind: string }).kind);
}

function kindOf(command: unknown): string {
  return (command as { kind?: string }).kind ?? "command";
}
