/**
 * The change feed port: NATS in production, in-process when NATS_URL is unset. Subjects are
 * `<env>.<tenant>.<actor type>.<id>`, built only by `subjectOf` (STYLE 14).
 */

export interface BusMessage {
  readonly subject: string;
  readonly payload: unknown;
  /**
   * The partition of the actor whose change this is (src/runtime/placement.ts), when the
   * publisher named one: a subscription handled by the partition's holder takes it only there.
   */
  readonly partition?: number;
}

/** What a publisher says of a message beside its subject and payload. */
export interface PublishOptions {
  /** The partition of the changed actor (partitionOf): see SubscribeOptions.handledBy. */
  readonly partition?: number;
}

/** Which partitions this instance holds (a Placement answers it): an epoch for each held one. */
export interface Holding {
  held(partition: number): number | undefined;
}

/**
 * Who handles a message of a partition (issue 43 item 3: work done once). A `Holding`: only the
 * instance holding the message's partition, so the work a change calls for (a projection's row,
 * a reactor's event, a webhook) is done once across the cluster, in order per actor.
 * `EVERY_INSTANCE`: each instance, for state every instance keeps of its own (a cache that must
 * stay fresh, a board's socket). A message naming no partition (a sync sentinel, a live signal)
 * reaches every matching handler either way.
 */
export type HandledBy = Holding | typeof EVERY_INSTANCE;

/** Each instance handles the message (HandledBy). */
export const EVERY_INSTANCE = "every instance";

export type BusHandler = (message: BusMessage) => void | Promise<void>;

export interface SubscribeOptions {
  /**
   * The handler takes messages in publish order but need not finish one before it is given the
   * next: it answers a promise of being done with it, and the message counts as handled (for
   * `flush`) once that settles. For writers that batch what arrives while they write
   * (projections), whose work must still be covered by a flush.
   */
  readonly pipelined?: boolean;
  /** Who handles a message of a partition (HandledBy); absent: every instance. */
  readonly handledBy?: HandledBy;
}

export interface Subscription {
  unsubscribe(): void;
}

/** Answers one request (`Bus.serve`): a JSON payload in, a JSON answer out. */
export type RequestHandler = (payload: unknown) => Promise<unknown>;

/** Nobody serves the subject asked: the request reached no handler and nothing was done. */
export class NoResponders extends Error {
  override readonly name = "NoResponders";
  constructor(readonly subject: string) {
    super(`no responders on ${subject}`);
  }
}

/** No answer came within the time asked: the handler may or may not have run. */
export class RequestTimeout extends Error {
  override readonly name = "RequestTimeout";
  constructor(readonly subject: string, readonly timeoutMs: number) {
    super(`no answer on ${subject} within ${timeoutMs} ms`);
  }
}

export interface Bus {
  /**
   * Publishes a JSON payload. The in-process bus hands subscribers this very object, frozen
   * from here on: the publisher must not change it afterwards either.
   */
  publish(subject: string, payload: unknown, options?: PublishOptions): Promise<void>;
  /**
   * `*` matches one token, a final `>` matches one or more (NATS wildcards). Handlers of one
   * message share its payload object, deeply frozen: none can change what another sees.
   */
  subscribe(pattern: string, handler: BusHandler, options?: SubscribeOptions): Subscription;
  /**
   * Resolves once everything published so far has reached the server and this instance's own
   * handlers have finished every message published before the flush.
   */
  flush(): Promise<void>;
  /** Lets subscribers finish what they hold, then closes. */
  drain(): Promise<void>;
  /**
   * Sends a JSON payload to whoever serves `subject` and answers its JSON answer (NATS
   * request/reply). Refused `NoResponders` when nobody serves it, `RequestTimeout` past
   * `timeoutMs`; when several serve it, the first answer wins.
   */
  request(subject: string, payload: unknown, options: { timeoutMs: number }): Promise<unknown>;
  /**
   * Answers the requests sent to `subject` (no wildcards) until unsubscribed. A handler that
   * throws leaves the request unanswered (its sender times out): answer failures as values.
   */
  serve(subject: string, handler: RequestHandler): Subscription;
  /**
   * The bus lag: messages this instance's handlers have been given and not yet finished, one per
   * handler (metrics). Absent where a bus cannot tell.
   */
  backlog?(): number;
  /**
   * Whether the bus reaches its server now (NATS: false from a disconnect until it reconnects).
   * An instance cut off from the others holds no partition (leases.ts). Absent: always.
   */
  reachable?(): boolean;
}

/** Whether a handler `handledBy` takes a message of `partition` on this instance. */
export function handledHere(
  handledBy: HandledBy | undefined,
  partition: number | undefined,
): boolean {
  if (partition === undefined || handledBy === undefined || handledBy === EVERY_INSTANCE) {
    return true;
  }
  return handledBy.held(partition) !== undefined;
}

/** Characters a subject token may not contain in NATS: separators, wildcards, white space. */
const UNSAFE_TOKEN = /[.*>\s]/g;

function token(value: string): string {
  if (value.length === 0) throw new RangeError("subject token must not be empty");
  return value.replace(UNSAFE_TOKEN, "_");
}

export function subjectOf(env: string, tenant: string, type: string, id: string): string {
  return [env, tenant, type, id].map(token).join(".");
}

/**
 * Where the holder of one partition answers forwarded asks (src/runtime/forwarding.ts). Its own
 * first token keeps forwards off every change feed (`<env>.>`), whose subscribers would else
 * each receive a copy of every forward.
 */
export function partitionSubject(busPrefix: string, partition: number): string {
  if (!Number.isInteger(partition) || partition < 0) {
    throw new RangeError(`not a partition: ${partition}`);
  }
  return ["forward", token(busPrefix), String(partition)].join(".");
}

/** Every actor of one type in one tenant (`*` for every tenant). */
export function subjectPattern(env: string, tenant: string | "*", type: string | "*"): string {
  return [token(env), tenant === "*" ? "*" : token(tenant), type === "*" ? "*" : token(type), "*"]
    .join(".");
}

/**
 * A live signal that is not a commit (a driver's newest position): `<env>.<tenant>.<topic>.<id>`
 * and a fifth token, so no actor pattern (four tokens: projections, caches) ever hears one.
 */
export function signalSubject(env: string, tenant: string, topic: string, id: string): string {
  return [env, tenant, topic, id, "signal"].map(token).join(".");
}

/** Every signal of one topic in one tenant. */
export function signalPattern(env: string, tenant: string, topic: string): string {
  return [token(env), token(tenant), token(topic), "*", "signal"].join(".");
}

/** The payload the runtime publishes after each commit of one actor. */
export interface ActorChange {
  /** The runtime's bus prefix: its environment and deployment (src/runtime/runtime.ts). */
  readonly env: string;
  readonly tenant: string;
  readonly type: string;
  readonly id: string;
  /** Sequence of the last event: the version projections compare. */
  readonly version: number;
  readonly events: readonly { seq: number; at: number; event: unknown }[];
  readonly snapshot?: unknown;
  /**
   * The request whose commands made the change, when one did (X-Request-Id): reactors work on it
   * in that request's scope (keyed.ts), so what they make names it too. Not kept in the store: a
   * change published again after a crash names none.
   */
  readonly request_id?: string;
}
