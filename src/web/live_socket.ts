/**
 * One live page's WebSocket (ARCHITECTURE "Boards"): authenticated before the upgrade (`?key=`
 * or the page's credential header) or by its first message `{"type": "auth", "key": "..."}`
 * (keeping the key out of URLs and logs), then fed by a ChangeFeed of the caller's tenant. The
 * credential is checked again whenever one of the subjects it rests on changes (a key rotated, a
 * session ended) and every recheck interval.
 * Sockets are counted per environment, page and tenant. The page's route says who may open one
 * and what the feed shows; this is the socket's life.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { WSContext, WSEvents } from "hono/ws";
import { EVERY_INSTANCE, type Subscription } from "../bus/bus.ts";
import type { AppEnv, Environment } from "../http/context.ts";
import { ApiError } from "../http/errors.ts";
import { anonymous } from "../http/guards.ts";
import type { ChangeFeed, FeedSink } from "./feed.ts";

/** A socket that connected without `?key=` has this long to send its auth message. */
export const LIVE_AUTH_WAIT_MS = 10_000;
/** The page sends only its auth message; anything longer is not one. */
const INBOUND_CHARS_MAX = 4_096;
/** RFC 6455: a close reason is at most 123 bytes of UTF-8. */
const CLOSE_REASON_BYTES_MAX = 123;

export const CLOSE = {
  unauthenticated: 4401,
  refused: 4403,
  tooMany: 4429,
  policy: 1008,
  behind: 1013,
  internal: 1011,
} as const;

/** What a live page's route decides: who may open it and what its feed shows. */
export interface LivePage<P> {
  /** Names the page in log lines and in the open-sockets count. */
  readonly name: string;
  /** Checks the credential as the page's header would be; throws an ApiError when refused. */
  authenticate(c: Context<AppEnv>, key: string): Promise<P>;
  tenantOf(principal: P): string;
  /** The subjects whose changes may end the credential (the account, the staff session). */
  watchedSubjects(env: Environment, tenant: string, key: string): string[];
  feedOf(sink: FeedSink, env: Environment, principal: P): ChangeFeed;
  readonly socketsMax: number;
  readonly recheckMs: number;
}

/** Sockets open per environment (by its runtime: a request's env is its own copy) and page. */
const openSockets = new WeakMap<Environment["runtime"], Map<string, number>>();

function claimSocket(env: Environment, key: string, max: number): boolean {
  const counts = openSockets.get(env.runtime) ?? new Map<string, number>();
  openSockets.set(env.runtime, counts);
  const n = counts.get(key) ?? 0;
  if (n >= max) return false;
  counts.set(key, n + 1);
  return true;
}

function releaseSocket(env: Environment, key: string): void {
  const counts = openSockets.get(env.runtime);
  const n = (counts?.get(key) ?? 1) - 1;
  if (n <= 0) counts?.delete(key);
  else counts?.set(key, n);
}

function closeCodeOf(e: unknown): number {
  if (!(e instanceof ApiError)) return CLOSE.internal;
  if (e.status === 401) return CLOSE.unauthenticated;
  if (e.status === 429) return CLOSE.tooMany;
  return CLOSE.refused;
}

function closeReason(text: string): string {
  const encoder = new TextEncoder();
  let reason = text;
  while (encoder.encode(reason).length > CLOSE_REASON_BYTES_MAX) reason = reason.slice(0, -1);
  return reason;
}

function sinkOf(ws: WSContext<WebSocket>): FeedSink {
  return {
    send: (text) => {
      if (ws.readyState === 1) ws.send(text);
    },
    close: (code, reason) => ws.close(code, closeReason(reason)),
    get bufferedAmount() {
      return ws.raw?.bufferedAmount ?? 0;
    },
  };
}

/** A credential checked before the upgrade (`?key=`). */
export interface EarlyCredential<P> {
  readonly principal: P;
  readonly key: string;
}

/** One connection: authenticated before the upgrade (`?key=`) or by its first message. */
export class LiveConnection<P> {
  readonly #c: Context<AppEnv>;
  readonly #env: Environment;
  readonly #page: LivePage<P>;
  readonly #early: EarlyCredential<P> | null;
  #feed: ChangeFeed | null = null;
  #claimed: string | null = null;
  #authTimer: ReturnType<typeof setTimeout> | undefined;
  #recheck: ReturnType<typeof setInterval> | undefined;
  #watches: Subscription[] = [];
  #authenticating = false;
  #refused = false;
  #closed = false;

  constructor(c: Context<AppEnv>, page: LivePage<P>, early: EarlyCredential<P> | null) {
    this.#c = c;
    this.#env = c.get("env");
    this.#page = page;
    this.#early = early;
  }

  events(): WSEvents<WebSocket> {
    return {
      onOpen: (_e, ws) => this.#onOpen(sinkOf(ws)),
      onMessage: (e, ws) => this.#onMessage(sinkOf(ws), e.data),
      onClose: () => this.#onClose(),
    };
  }

  #onOpen(sink: FeedSink): void {
    if (this.#early) return this.#open(sink, this.#early.principal, this.#early.key);
    this.#authTimer = setTimeout(
      () => this.#refuse(sink, new ApiError("unauthenticated", "no auth message in time")),
      LIVE_AUTH_WAIT_MS,
    );
  }

  #onMessage(sink: FeedSink, data: unknown): void {
    if (typeof data !== "string" || data.length > INBOUND_CHARS_MAX) {
      this.#feed?.stop();
      sink.close(CLOSE.policy, `the ${this.#page.name} sends only a short JSON auth message`);
      return;
    }
    // After the credential, the page has nothing to say; its messages are ignored.
    if (!this.#early && !this.#authenticating) void this.#authenticate(sink, data);
  }

  #onClose(): void {
    this.#closed = true;
    this.#stop();
    if (this.#claimed !== null) releaseSocket(this.#env, this.#claimed);
    this.#claimed = null;
  }

  /** No more checks, watches or changes: the socket is closing. */
  #stop(): void {
    clearTimeout(this.#authTimer);
    clearInterval(this.#recheck);
    for (const w of this.#watches) w.unsubscribe();
    this.#watches = [];
    this.#feed?.stop();
  }

  #refuse(sink: FeedSink, e: unknown): void {
    // Refused once: the checks still under way, or a change heard before the close ends, would
    // refuse (and log, and count) again.
    if (this.#refused) return;
    this.#refused = true;
    if (e instanceof ApiError) this.#logRefusal(e);
    else console.error(`${this.#page.name}: authenticating failed:`, e);
    this.#stop();
    sink.close(closeCodeOf(e), e instanceof ApiError ? e.message : "internal error");
  }

  /**
   * Issue (the operator's eyes): a refusal is a line with its code, as an HTTP one is
   * (request_log.ts); the upgrade answered 101, so its request line says nothing of it.
   */
  #logRefusal(e: ApiError): void {
    this.#env.log.info({
      event: "refused",
      request_id: this.#c.get("requestId"),
      status: e.status,
      code: e.code,
      page: this.#page.name,
    }, "refused");
  }

  async #authenticate(sink: FeedSink, data: string): Promise<void> {
    this.#authenticating = true;
    clearTimeout(this.#authTimer);
    let key = "";
    try {
      const m = JSON.parse(data) as { type?: unknown; key?: unknown };
      if (m.type === "auth" && typeof m.key === "string") key = m.key;
    } catch { /* not JSON: refused below */ }
    if (key === "") {
      const refusal = 'the first message must be {"type":"auth","key":"..."}';
      return this.#refuse(sink, new ApiError("unauthenticated", refusal));
    }
    try {
      this.#open(sink, await this.#page.authenticate(this.#c, key), key);
    } catch (e) {
      this.#refuse(sink, e);
    }
  }

  #open(sink: FeedSink, principal: P, key: string): void {
    if (this.#closed || this.#refused) return;
    const env = this.#env;
    const page = this.#page;
    const tenant = page.tenantOf(principal);
    const claim = `${page.name}\u0000${tenant}`;
    if (!claimSocket(env, claim, page.socketsMax)) {
      // A refusal as any other (4429): a line with its code, as an HTTP 429 is.
      const tooMany = `too many ${page.name}s open for this business`;
      return this.#refuse(sink, new ApiError("rate_limited", tooMany));
    }
    this.#claimed = claim;
    const checkAgain = () =>
      void page.authenticate(this.#c, key).catch((e) => this.#refuse(sink, e));
    this.#recheck = setInterval(checkAgain, page.recheckMs);
    this.#watches = page.watchedSubjects(env, tenant, key)
      // This instance's socket: every change is heard here, whoever holds it (issue 43 item 3).
      .map((subject) => env.bus.subscribe(subject, checkAgain, { handledBy: EVERY_INSTANCE }));
    // A credential ended between its check and these watches (a key rotated, a session signed
    // out meanwhile) would be heard by none of them: checked once more once they hear everything
    // (business 4.3: a rotated key is invalid at once).
    env.bus.flush().then(() => {
      if (!this.#closed && !this.#refused) checkAgain();
    }, (e) => this.#refuse(sink, e));
    const feed = page.feedOf(sink, env, principal);
    this.#feed = feed;
    feed.start().catch((e) => {
      console.error(`${page.name}: subscribing failed:`, e);
      feed.close(CLOSE.internal, `the ${page.name} could not subscribe; reload it`);
    });
  }
}

/**
 * The credential sent with the upgrade: `?key=` (a browser's WebSocket cannot set headers), else
 * the page's credential header, as its OpenAPI security declares; undefined: it comes as the
 * first message.
 */
export function upgradeKey(c: Context, header: string): string | undefined {
  return c.req.query("key") ?? c.req.header(header);
}

/**
 * spec: business 8: an upgrade without a key (upgradeKey) names no caller until its first
 * message: it is anyone's, counted and throttled per address as the page is (429 past the limit,
 * before the upgrade), so sockets cannot be opened without limit. A wrong key is counted there as
 * any refused credential is; a known key counts against its business.
 */
export function keylessByAddress(header: string): MiddlewareHandler<AppEnv> {
  return (c, next) => upgradeKey(c, header) === undefined ? anonymous(c, next) : next();
}
