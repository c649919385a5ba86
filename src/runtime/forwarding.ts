/**
 * Forwarding (issue 43 item 2; ARCHITECTURE "Growing past one machine"): an ask or a read for an
 * actor whose partition this instance does not hold is sent over the bus (request/reply) to the
 * partition's holder, which makes the same call and answers, so every answer, refusal and
 * credential check comes from the one instance that holds the truth. A holder serves exactly the
 * partitions it holds, subscribing on gain and unsubscribing on loss. Only made when placement
 * can differ from "all here" (runtime.ts): one instance alone forwards nothing, runs nothing.
 */
import { type Bus, NoResponders, partitionSubject, RequestTimeout } from "../bus/bus.ts";
import type { Subscription } from "../bus/bus.ts";
import { FORWARD_TIMEOUT_MS, FORWARD_WAIT_MS, PARTITIONS } from "../limits.ts";
import type { AskOptions, Rejection } from "./actor.ts";
import { assertJsonSafe } from "./json_safe.ts";
import { ActorFailure, type AskResult, NotHeld, TooLarge } from "./plan.ts";
import { partitionOf, type Placement } from "./placement.ts";

/** A call made here whose lease was lost before it committed. */
const NOT_HELD = Symbol("not held");

/** One call made at the holder: enough to make the very same call there. */
export interface Forwarded {
  readonly kind: "ask" | "read";
  readonly type: string;
  readonly tenant: string;
  readonly id: string;
  readonly command: unknown;
  readonly options: AskOptions;
}

/** The holder's answer: the call's result, the failure it threw, or that it no longer holds. */
type Answer =
  | { readonly answer: "result"; readonly result: AskResult<unknown> }
  | {
    readonly answer: "failure";
    readonly kind: "actor" | "too_large" | "error";
    readonly message: string;
    readonly refusal?: Rejection;
  }
  | { readonly answer: "not_owner"; readonly partition: number };

/**
 * No instance answered for the partition within the forward's bounded wait, or its holder did
 * not answer in time (the outcome then unknown): HTTP 503 `partition_unavailable`, Retry-After.
 */
export class PartitionUnavailable extends ActorFailure {
  readonly code = "partition_unavailable";
  /**
   * `actor`: its type and id, for the log only; the message, which a caller reads, names none
   * (an id may be derived from what a caller must not learn).
   */
  constructor(readonly partition: number, readonly actor: string, message: string) {
    super(message);
  }
}

/** One forward, for metrics: sent (by this instance) or served (for another), and its outcome. */
export interface ForwardObserved {
  readonly role: "sent" | "served";
  /** `ok` (a result or a failure crossed), `not_owner` (served), `failed` (sent, 503). */
  readonly outcome: "ok" | "not_owner" | "failed";
  readonly ms: number;
}

export interface ForwardingOptions {
  readonly bus: Bus;
  readonly busPrefix: string;
  readonly placement: Placement;
  /** Makes the call on this instance (the runtime's own ask or read, never forwarded again). */
  readonly local: (call: Forwarded) => Promise<AskResult<unknown>>;
  /** Told when this instance lets go of a partition: what it holds in memory is no longer truth. */
  readonly released: (partition: number) => void;
  /** How long to keep looking for a holder (default FORWARD_WAIT_MS). */
  readonly waitMs?: number;
  /** How long one holder has to answer (default FORWARD_TIMEOUT_MS). */
  readonly timeoutMs?: number;
  readonly onForward?: (o: ForwardObserved) => void;
}

/** Pauses between looks for a holder, growing to the last (milliseconds). */
const BACKOFF_MS = [2, 5, 10, 25, 50, 100, 200];

export class Forwarding {
  readonly #o: ForwardingOptions;
  readonly #served = new Map<number, Subscription>();
  #unlisten: (() => void) | undefined;
  #closed = false;

  constructor(options: ForwardingOptions) {
    this.#o = options;
  }

  /** Whether this instance holds the actor's partition (and so answers it itself). */
  holds(type: string, id: string): boolean {
    return this.#o.placement.held(partitionOf({ type, id })) !== undefined;
  }

  /** Serves the partitions held now and follows every gain and loss from here on. */
  start(): void {
    this.#unlisten ??= this.#o.placement.onChange((partition, held) => {
      if (held) this.#serve(partition);
      else this.#stop(partition);
    });
    for (let p = 0; p < PARTITIONS; p++) {
      if (this.#o.placement.held(p) !== undefined) this.#serve(p);
    }
  }

  /** Stops serving: askers meet no responder and look again until another instance holds. */
  close(): void {
    this.#closed = true;
    this.#unlisten?.();
    for (const sub of this.#served.values()) sub.unsubscribe();
    this.#served.clear();
  }

  /**
   * Makes the call at the partition's holder and answers what the holder answered: its result,
   * or the failure it threw, rebuilt. While nobody answers for the partition (or one answers that
   * it no longer holds it) the owner is read again and the call retried, for a bounded time; a
   * partition that comes here meanwhile is answered here.
   */
  async forward(call: Forwarded): Promise<AskResult<unknown>> {
    if (this.#closed) throw new ActorFailure("runtime is closed");
    // What JSON cannot carry would arrive changed: refused here, never altered on the way.
    assertJsonSafe(call.command, "command");
    const partition = partitionOf({ type: call.type, id: call.id });
    const started = performance.now();
    const deadline = started + (this.#o.waitMs ?? FORWARD_WAIT_MS);
    for (let attempt = 0;; attempt++) {
      if (this.#o.placement.held(partition) !== undefined) {
        const here = await this.#local(call);
        if (here !== NOT_HELD) return here;
      }
      const answer = await this.#request(partition, call, started);
      if (answer?.answer === "result") {
        this.#observe("sent", "ok", started);
        return answer.result;
      }
      if (answer?.answer === "failure") {
        this.#observe("sent", "ok", started);
        throw rebuilt(answer);
      }
      const left = deadline - performance.now();
      if (left <= 0) {
        const owner = this.#o.placement.ownerOf(partition) ?? "none";
        throw this.#failed(
          call,
          started,
          `no instance answers for partition ${partition} (last seen held by ${owner}), as ` +
            `when its lease moves; try again shortly`,
        );
      }
      await new Promise((r) => setTimeout(r, Math.min(BACKOFF_MS[attempt] ?? 200, left)));
    }
  }

  /** The holder's answer; undefined when nobody serves the partition (nothing was done). */
  async #request(partition: number, call: Forwarded, started: number): Promise<Answer | undefined> {
    try {
      return await this.#o.bus.request(partitionSubject(this.#o.busPrefix, partition), call, {
        timeoutMs: this.#o.timeoutMs ?? FORWARD_TIMEOUT_MS,
      }) as Answer;
    } catch (e) {
      if (e instanceof NoResponders) return undefined;
      // The holder may have made the call: only a retry under the same idempotency key is safe.
      if (e instanceof RequestTimeout) {
        throw this.#failed(
          call,
          started,
          `the instance holding partition ${partition} did not answer within ${e.timeoutMs} ms; ` +
            `the outcome is unknown: retry with the same Idempotency-Key`,
        );
      }
      throw e;
    }
  }

  #failed(call: Forwarded, started: number, message: string): PartitionUnavailable {
    this.#observe("sent", "failed", started);
    const partition = partitionOf({ type: call.type, id: call.id });
    return new PartitionUnavailable(partition, `${call.type} ${call.id}`, message);
  }

  #serve(partition: number): void {
    if (this.#closed || this.#served.has(partition)) return;
    const subject = partitionSubject(this.#o.busPrefix, partition);
    this.#served.set(partition, this.#o.bus.serve(subject, (p) => this.#answer(partition, p)));
  }

  #stop(partition: number): void {
    this.#served.get(partition)?.unsubscribe();
    this.#served.delete(partition);
    this.#o.released(partition);
  }

  /** Makes a forwarded call here, if this instance still holds its partition. */
  async #answer(partition: number, payload: unknown): Promise<Answer> {
    const started = performance.now();
    const call = payload as Forwarded;
    // Checked at each call, not only at unsubscribe: a request may be on its way as a lease
    // moves. Not held: no longer served either, or this answer would keep beating the new
    // holder's (the first answer wins) until the loss is heard of.
    if (this.#closed || this.#o.placement.held(partition) === undefined) {
      if (!this.#closed) this.#stop(partition);
      this.#observe("served", "not_owner", started);
      return { answer: "not_owner", partition };
    }
    let answer: Answer;
    try {
      if (partitionOf({ type: call.type, id: call.id }) !== partition) {
        throw new ActorFailure(`${call.type} ${call.id} is not of partition ${partition}`);
      }
      const result = await this.#local(call);
      if (result === NOT_HELD) {
        this.#observe("served", "not_owner", started);
        return { answer: "not_owner", partition };
      }
      assertJsonSafe(result, "reply");
      answer = { answer: "result", result };
    } catch (e) {
      answer = failureOf(e);
    }
    this.#observe("served", "ok", started);
    return answer;
  }

  /**
   * The call made here; NOT_HELD when the lease was lost before it committed (fencing refused
   * it, nothing landed), so it is safe to make again at the new holder.
   */
  async #local(call: Forwarded): Promise<AskResult<unknown> | typeof NOT_HELD> {
    try {
      return await this.#o.local(call);
    } catch (e) {
      if (e instanceof NotHeld) return NOT_HELD;
      throw e;
    }
  }

  #observe(role: ForwardObserved["role"], outcome: ForwardObserved["outcome"], started: number) {
    this.#o.onForward?.({ role, outcome, ms: performance.now() - started });
  }
}

/** A failure as it crosses: which kind, its message, and a too-large refusal's rejection. */
function failureOf(e: unknown): Answer {
  const message = e instanceof Error ? e.message : String(e);
  if (e instanceof TooLarge) {
    return { answer: "failure", kind: "too_large", message, refusal: e.refusal };
  }
  if (e instanceof ActorFailure) return { answer: "failure", kind: "actor", message };
  return { answer: "failure", kind: "error", message };
}

/** The failure the holder threw, as the asker would have met it had it made the call itself. */
function rebuilt(a: Extract<Answer, { answer: "failure" }>): Error {
  if (a.kind === "too_large" && a.refusal) return new TooLarge(a.refusal);
  if (a.kind === "actor") return new ActorFailure(a.message);
  return new Error(a.message);
}
