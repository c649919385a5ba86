/**
 * What an actor module exports: a pure `decide` and `evolve` over its own state.
 * Loading, saving, timers and publishing live once, in the runtime (STYLE 1).
 */

/** The context a decision may read: the injected clock and fresh identifiers. */
export interface Ctx {
  /** Epoch milliseconds from the injected clock, fixed for one command. */
  readonly now: number;
  /** A fresh random identifier with the given prefix (`biz_...`). */
  newId(prefix: string): string;
}

/** A durable timer set or cancelled by a decision; it fires as a `timer` command. */
export type TimerOp =
  | { readonly op: "set"; readonly name: string; readonly at: number; readonly payload?: unknown }
  | { readonly op: "cancel"; readonly name: string };

/** The command every actor receives when one of its timers is due. */
export interface TimerFired {
  readonly kind: "timer";
  readonly name: string;
  readonly payload: unknown;
}

/** A domain refusal: a stable code and a message naming the problem (STYLE 3). */
export interface Rejection {
  readonly ok: false;
  readonly code: string;
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

/**
 * A refusal thrown out of a chain of asks (a flow several calls deep): a domain refusal, never an
 * HTTP error. The HTTP layer answers it as the rejection it carries; a reactor or sweep that
 * meets one knows the work cannot be done as asked.
 */
export class Refused extends Error {
  override readonly name = "Refused";
  constructor(readonly rejection: Rejection) {
    super(`${rejection.code}: ${rejection.message}`);
  }
}

/** Throws the refusal `code` (STYLE 3's codes, the HTTP table's too) out of a flow. */
export function refuse(
  code: string,
  message: string,
  details?: Record<string, unknown>,
): never {
  throw new Refused(reject(code, message, details));
}

/** Throws a rejection an actor answered; answers the reply of an acceptance. */
export function orRefuse<R>(r: { readonly ok: true; readonly reply: R } | Rejection): R {
  if (!r.ok) throw new Refused(r);
  return r.reply;
}

export interface Acceptance<S, E, R> {
  readonly ok: true;
  readonly events: readonly E[];
  /**
   * Computes the reply from the state after the events; `seq` is the actor's sequence number then
   * (the state is the fold of its events 1..seq), so a reply can name the state it answered.
   */
  readonly reply?: (next: S, at?: { readonly seq: number }) => R;
  readonly timers?: readonly TimerOp[];
}

export type Decision<S, E, R> = Acceptance<S, E, R> | Rejection;

/** A secondary key under which an actor can be found (an API key hash, an e-mail). */
export interface IndexEntry {
  readonly index: string;
  readonly key: string;
}

export interface ActorDefinition<S, C, E, R> {
  /** The actor type, part of its key and its bus subject. */
  readonly type: string;
  /** What a caller calls one (`client`, `billing event`) in a not-found answer; default: the type. */
  readonly noun?: string;
  /** Version of the stored state shape; bump when the shape changes and migrate in `load`. */
  readonly version: number;
  readonly initial: S;
  decide(state: S, command: C | TimerFired, ctx: Ctx): Decision<S, E, R>;
  evolve(state: S, event: E): S;
  /** Validates a stored snapshot (rivetkit persisted.ts); throws when it is not of this shape. */
  load?(stored: unknown, version: number): S;
  /** Secondary keys derived from the state; the runtime writes the difference at commit. */
  indexes?(state: S): readonly IndexEntry[];
  /**
   * Indexes whose keys one actor at a time may hold (a code, an e-mail). A command whose commit
   * would take a key another actor holds is refused `index_taken` (details: index, key), even
   * when two actors take it at once: the commit checks the key is free.
   */
  readonly uniqueIndexes?: readonly string[];
  /**
   * The version at which `indexes` last changed the shape of its keys. An actor is indexed at
   * each commit with events, so one unchanged since keeps entries of the old shape: the runtime's
   * start rewrites them once for every stored actor of the type (src/runtime/reindex.ts).
   */
  readonly indexesChangedAt?: number;
  /** The snapshot that projections receive on the bus; omit secrets. Undefined: none is sent. */
  project?(state: S): unknown;
  /**
   * False when nobody downstream needs the events themselves (the snapshot says it all): they
   * stay in the actor's log but are not put on the bus. Default true.
   */
  readonly publishEvents?: boolean;
  /**
   * The events downstream needs, when not all of them: the others stay in the log only, and a
   * change left with none and no snapshot is not sent. Default: every event.
   */
  onBus?(event: E): boolean;
  /**
   * False for actors whose state says everything and never changes after creation (a held
   * offer): events are applied but not stored in the log, halving what each commit writes.
   */
  readonly logEvents?: boolean;
  /**
   * The form of an event kept in the log and put on the bus, when not the whole event: a large
   * part the state already holds (an outbound event's body, up to hundreds of KB) is then written
   * once per commit instead of twice, within the store's size of one commit, and never crosses
   * the bus. Default: the event itself. The state is always evolved from the whole event.
   */
  logged?(event: E): unknown;
  /**
   * Commands decided in one commit, at most (default ACTOR_BATCH_COMMANDS_MAX). A batch whose
   * write would not fit one store transaction is decided again in halves by the runtime; lower
   * this for an actor whose events are large, to spare it that.
   */
  readonly batchMax?: number;
  /**
   * Largest serialized state record, in bytes (default STATE_BYTES_MAX, one store value). An actor
   * that must hold more (a network run of hundreds of stops) raises it: the store then splits the
   * state over several values written in the same atomic commit.
   */
  readonly stateBytesMax?: number;
  /**
   * What is kept of a reply under an idempotency key, when not the whole reply (a store value is
   * at most 64 KiB and one commit keeps a batch's replies): a replay answers this kept form.
   */
  keptReply?(reply: R): R;
  /**
   * Follow-up work an event calls for (a billing event to send), added to a durable outbox in the
   * same commit as the event: the outbox's handler (ActorRuntime.handleOutbox) does it after the
   * commit, and a crash before it is done leaves the item for the sweep. `next`: the state after
   * the event. Pure, like `evolve`; a handler must be idempotent (an item may be handled twice).
   */
  outbox?(event: E, next: S): readonly OutboxAdd[];
}

/** One item an event adds to an outbox: which outbox, and what its handler needs. */
export interface OutboxAdd {
  readonly outbox: string;
  readonly payload: unknown;
}

// deno-lint-ignore no-explicit-any
export type AnyActorDefinition = ActorDefinition<any, any, any, any>;

export type CommandOf<D> = D extends ActorDefinition<infer _S, infer C, infer _E, infer _R> ? C
  : never;
export type ReplyOf<D> = D extends ActorDefinition<infer _S, infer _C, infer _E, infer R> ? R
  : never;

export function accept<S, E, R>(
  events: readonly E[],
  reply?: (next: S, at?: { readonly seq: number }) => R,
  timers?: readonly TimerOp[],
): Acceptance<S, E, R> {
  return {
    ok: true,
    events,
    ...(reply ? { reply } : {}),
    ...(timers ? { timers } : {}),
  };
}

/**
 * The decision with its reply passed through `f` (a field added to what it answers); a rejection,
 * or an acceptance without a reply, unchanged.
 */
export function mapReply<S, E, R>(
  d: Decision<S, E, R>,
  f: (reply: R, at?: { readonly seq: number }) => R,
): Decision<S, E, R> {
  if (!d.ok || d.reply === undefined) return d;
  const reply = d.reply;
  return { ...d, reply: (next, at) => f(reply(next, at), at) };
}

export function reject(
  code: string,
  message: string,
  details?: Record<string, unknown>,
): Rejection {
  return { ok: false, code, message, ...(details ? { details } : {}) };
}

/** One bad field of a request: where, and what is wrong with it. */
export interface FieldError {
  readonly path: string;
  readonly message: string;
}

/**
 * The refusal of a request with bad fields (CONTRACT "Errors not named in the spec"): 422
 * `validation_failed`, naming each field in `errors`, as the HTTP layer's own request checks do.
 */
export function invalidFields(errors: readonly FieldError[]): Rejection {
  const summary = errors.map((e) => `${e.path || "body"}: ${e.message}`).join("; ");
  return reject("validation_failed", `invalid request: ${summary}`, { errors });
}

/** Exhaustive switch guard (STYLE 2). */
export function unreachable(x: never): never {
  throw new Error(`unreachable: ${JSON.stringify(x)}`);
}

/**
 * Refusals that say "not now", not "never" (answered 5xx): the actor was too busy to take the
 * command, the ledger is catching up, the service failed. Work that meets one is tried again.
 */
export const NOT_NOW_CODES: ReadonlySet<string> = new Set([
  "actor_busy",
  "ledger_catching_up",
  "internal_error",
]);

/**
 * A read's reply, or null when its actor says not found; any other refusal (a busy actor, a
 * failure) is thrown: "not now" is no answer that nothing is there.
 */
export function foundOrNull<R>(r: { readonly ok: true; readonly reply: R } | Rejection): R | null {
  if (r.ok) return r.reply;
  if (r.code === "not_found") return null;
  throw new Refused(r);
}

/** The refusal an error is when it is one for good; null for a failure worth a retry. */
export function lastingRefusal(error: unknown): Rejection | null {
  if (!(error instanceof Refused)) return null;
  return NOT_NOW_CODES.has(error.rejection.code) ? null : error.rejection;
}

/** An actor's not-found refusal, in the caller's words (a 404 names no internal type). */
export function notFound(
  def: { readonly type: string; readonly noun?: string },
  id: string,
): Rejection {
  return {
    ok: false,
    code: "not_found",
    message: `${def.noun ?? def.type.replaceAll("_", " ")} not found: ${id}`,
  };
}

/**
 * What a caller of another tenant is told about an actor: exactly what the actor answers when it
 * does not exist (its own refusal from its initial state), so the answer never tells that the id
 * is taken elsewhere (courier 1.1: an integrator cannot see another's data). A command the
 * initial state would accept (a create) is refused as not found.
 */
export function asIfMissing<S, C, E, R>(
  def: ActorDefinition<S, C, E, R>,
  id: string,
  command: C,
  ctx: Ctx,
): Rejection {
  try {
    const d = def.decide(def.initial, command, ctx);
    if (!d.ok) return d;
  } catch {
    // The initial state cannot answer this command: the plain refusal below.
  }
  return notFound(def, id);
}

/** How a command is asked: its idempotency key and how long the key holds. */
export interface AskOptions {
  /** Same key, same actor: the first successful reply is returned and nothing is applied again. */
  readonly idempotencyKey?: string;
  /**
   * Keep the key for good instead of IDEMPOTENCY_TTL_MS: for facts that must never be booked
   * twice however late they are sent again (courier 2.6 rule 2: the same source event books once).
   */
  readonly permanent?: boolean;
  /**
   * The id is all but certainly new (a random reference, a waybill derived from one, an event
   * id derived from a change heard for the first time): skip reading the store and decide on the
   * initial state. Safe whatever is stored: the commit checks that nothing is stored under the
   * key (a failed check reads it and decides again), and a decision that writes nothing is made
   * again on the stored state.
   */
  readonly fresh?: boolean;
  /**
   * The request the command is asked for (its `X-Request-Id`), carried by hand rather than in an
   * async context (which every promise of the process would then pay for): the change its commit
   * publishes names it (ActorChange.request_id) when every command of the batch came from it.
   */
  readonly requestId?: string | undefined;
  /**
   * Committed ahead of ordinary writes (the group commit's urgent lane, group_commit.ts): a step
   * someone waits on that must not queue behind a burst of other commits, such as a dispatch
   * offer behind a burst of bookings' commits (issue 38). Keep it to small, rare writes.
   */
  readonly urgent?: boolean;
}
