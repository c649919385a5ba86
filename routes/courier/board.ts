/**
 * ARCHITECTURE "Boards", courier 4.4: the live operations board. A WebSocket streams one
 * courier's shipment rows and alerts from the bus as they commit; the page in src/web/ shows them.
 *
 * GET /business/courier/operations/live (WebSocket). The credential, checked as the
 * X-Business-API-Key header is (business key or staff session token; scope shipments:view-own;
 * courier platform on), comes as `?key=` or, to keep it out of URLs and logs, as the first
 * message `{"type": "auth", "key": "..."}`; it is checked again at every change of the courier's
 * account (a key rotated or revoked, a password changed, the platform switched off) and of the
 * staff session it names (signed out, expired), and every BOARD_RECHECK_MS.
 * Messages to the board, one JSON text frame each:
 *   {type: "ready", at}                       subscribed: every later change is on this socket
 *   {type: "shipment", version, row}          row = the board row (open_alerts null)
 *   {type: "alert", version, alert}           alert = as GET /business/courier/alerts answers it
 * Changes are coalesced per shipment and alert and pushed once per tick (STYLE 14).
 * Close codes: 4401 credential missing, unknown or no longer valid, 4403 refused (scope, platform
 * off), 4429 too many boards open or rate limited, 1008 a message the board may not send, 1011
 * internal error, 1013 the board fell behind (reload and reconnect).
 *
 * GET /business/courier/board and /business/courier/board/{file}: the page, public static files;
 * its data calls carry the key.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { WSContext, WSEvents } from "hono/ws";
import { upgradeWebSocket } from "hono/deno";
import type { AlertSummary } from "../../actors/courier/alert.ts";
import { businessActor } from "../../actors/platform/business/mod.ts";
import { SESSION_TENANT, sessionActor } from "../../actors/platform/session.ts";
import { type ActorChange, subjectOf, type Subscription } from "../../src/bus/bus.ts";
import { ChangeFeed, type FeedOptions, type FeedSink } from "../../src/web/feed.ts";
import { sha256Hex } from "../../src/domain/secrets.ts";
import type { Environment } from "../../src/http/context.ts";
import { operationsRow, type ShipmentSnapshot } from "../../src/courier/queries/operations_row.ts";
import type { Api } from "../../src/http/app.ts";
import { anonymous } from "../../src/http/guards.ts";
import { businessCredential, businessRefusals } from "../../src/platform/auth/auth.ts";
import { type BusinessPrincipal, STAFF_TOKEN_PREFIX } from "../../src/platform/auth/principal.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { ApiError } from "../../src/http/errors.ts";
import { refusalResponses, z } from "../../src/http/route.ts";
import { PLATFORM_DISABLED } from "../../src/http/refusals.ts";
import { staticFiles } from "../../src/web/static.ts";
import { alertView } from "./answers/alerts.ts";

/** A board that connected without `?key=` has this long to send its auth message. */
export const BOARD_AUTH_WAIT_MS = 10_000;
/** Boards open at once per courier and environment (each holds two bus subscriptions). */
export const BOARD_SOCKETS_PER_COURIER_MAX = 250;
/** An open board's credential is checked again this often: a revoked key or ended session stops. */
export const BOARD_RECHECK_MS = 5 * 60_000;
/** The board sends only its auth message; anything longer is not one. */
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

const LIVE_PATH = "/business/courier/operations/live";
const PAGE_PATH = "/business/courier/board";
const SCOPE = "shipments:view-own";

/** The socket a board's feed writes to: a WebSocket, or a test's stand-in. */
export type BoardSink = FeedSink;

/** One board's subscription: shipment and alert changes of one courier (src/web/feed.ts). */
export class BoardFeed extends ChangeFeed {
  constructor(sink: BoardSink, options: FeedOptions) {
    super(sink, options, {
      types: ["shipment", "alert"],
      messageOf,
      behind: { code: CLOSE.behind, reason: "board fell behind; reload it" },
    });
  }
}

/** A shipment's board row (open_alerts null) or an alert as the alert list answers it. */
function messageOf(change: ActorChange, now: number): Record<string, unknown> | null {
  const snapshot = change.snapshot;
  if (typeof snapshot !== "object" || snapshot === null) return null;
  try {
    if (change.type === "shipment") {
      const row = operationsRow(snapshot as ShipmentSnapshot, now, null);
      return { type: "shipment", version: change.version, row };
    }
    if (change.type === "alert") {
      return { type: "alert", version: change.version, alert: alertView(snapshot as AlertSummary) };
    }
  } catch (e) {
    console.error(`board: ${change.type} ${change.id} has a snapshot the board cannot show:`, e);
  }
  return null;
}

/**
 * Boards open per environment and courier (BOARD_SOCKETS_PER_COURIER_MAX), by its runtime: a
 * request's env is its own copy (Deps.requestId).
 */
const openBoards = new WeakMap<Environment["runtime"], Map<string, number>>();

function claimBoard(env: Environment, tenant: string): boolean {
  const counts = openBoards.get(env.runtime) ?? new Map<string, number>();
  openBoards.set(env.runtime, counts);
  const n = counts.get(tenant) ?? 0;
  if (n >= BOARD_SOCKETS_PER_COURIER_MAX) return false;
  counts.set(tenant, n + 1);
  return true;
}

function releaseBoard(env: Environment, tenant: string): void {
  const counts = openBoards.get(env.runtime);
  const n = (counts?.get(tenant) ?? 1) - 1;
  if (n <= 0) counts?.delete(tenant);
  else counts?.set(tenant, n);
}

/** The credential checked as the header would be, plus the courier platform guard. */
async function boardPrincipal(c: Context<AppEnv>, key: string): Promise<BusinessPrincipal> {
  const principal = await businessCredential(c, key, { scope: SCOPE });
  if (!principal.business.courier_platform_enabled) {
    throw new ApiError(
      "courier_platform_disabled",
      "the courier platform is not enabled for this business; ask the operator to enable it",
    );
  }
  return principal;
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

function sinkOf(ws: WSContext<WebSocket>): BoardSink {
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
interface EarlyCredential {
  readonly principal: BusinessPrincipal;
  readonly key: string;
}

/** One connection: authenticated before the upgrade (`?key=`) or by its first message. */
class BoardConnection {
  readonly #c: Context<AppEnv>;
  readonly #env: Environment;
  readonly #early: EarlyCredential | null;
  #feed: BoardFeed | null = null;
  #tenant: string | null = null;
  #authTimer: ReturnType<typeof setTimeout> | undefined;
  #recheck: ReturnType<typeof setInterval> | undefined;
  #watches: Subscription[] = [];
  #authenticating = false;
  #closed = false;

  constructor(c: Context<AppEnv>, early: EarlyCredential | null) {
    this.#c = c;
    this.#env = c.get("env");
    this.#early = early;
  }

  events(): WSEvents<WebSocket> {
    return {
      onOpen: (_e, ws) => this.#onOpen(sinkOf(ws)),
      onMessage: (e, ws) => this.#onMessage(sinkOf(ws), e.data),
      onClose: () => this.#onClose(),
    };
  }

  #onOpen(sink: BoardSink): void {
    if (this.#early) return this.#open(sink, this.#early.principal, this.#early.key);
    this.#authTimer = setTimeout(
      () => sink.close(CLOSE.unauthenticated, "no auth message in time"),
      BOARD_AUTH_WAIT_MS,
    );
  }

  #onMessage(sink: BoardSink, data: unknown): void {
    if (typeof data !== "string" || data.length > INBOUND_CHARS_MAX) {
      this.#feed?.stop();
      sink.close(CLOSE.policy, "the board sends only a short JSON auth message");
      return;
    }
    // After the credential, the board has nothing to say; its messages are ignored.
    if (!this.#early && !this.#authenticating) void this.#authenticate(sink, data);
  }

  #onClose(): void {
    this.#closed = true;
    clearTimeout(this.#authTimer);
    clearInterval(this.#recheck);
    for (const w of this.#watches) w.unsubscribe();
    this.#watches = [];
    this.#feed?.stop();
    if (this.#tenant !== null) releaseBoard(this.#env, this.#tenant);
    this.#tenant = null;
  }

  #refuse(sink: BoardSink, e: unknown): void {
    if (!(e instanceof ApiError)) console.error("board: authenticating failed:", e);
    this.#feed?.stop();
    sink.close(closeCodeOf(e), e instanceof ApiError ? e.message : "internal error");
  }

  async #authenticate(sink: BoardSink, data: string): Promise<void> {
    this.#authenticating = true;
    clearTimeout(this.#authTimer);
    let key = "";
    try {
      const m = JSON.parse(data) as { type?: unknown; key?: unknown };
      if (m.type === "auth" && typeof m.key === "string") key = m.key;
    } catch { /* not JSON: refused below */ }
    if (key === "") {
      sink.close(CLOSE.unauthenticated, 'the first message must be {"type":"auth","key":"..."}');
      return;
    }
    try {
      this.#open(sink, await boardPrincipal(this.#c, key), key);
    } catch (e) {
      this.#refuse(sink, e);
    }
  }

  #open(sink: BoardSink, principal: BusinessPrincipal, key: string): void {
    if (this.#closed) return;
    const env = this.#env;
    if (!claimBoard(env, principal.business.id)) {
      sink.close(CLOSE.tooMany, "too many boards open for this courier");
      return;
    }
    const tenant = principal.business.id;
    this.#tenant = tenant;
    const checkAgain = () => void boardPrincipal(this.#c, key).catch((e) => this.#refuse(sink, e));
    this.#recheck = setInterval(checkAgain, BOARD_RECHECK_MS);
    this.#watches = credentialSubjects(env, tenant, key)
      .map((subject) => env.bus.subscribe(subject, checkAgain));
    const feed = new BoardFeed(sink, {
      bus: env.bus,
      env: env.runtime.busPrefix,
      tenant,
      now: () => env.clock.now(),
    });
    this.#feed = feed;
    feed.start().catch((e) => {
      console.error("board: subscribing failed:", e);
      feed.close(CLOSE.internal, "the board could not subscribe; reload it");
    });
  }
}

/**
 * spec: business 4.3 (a rotated key is invalid at once), 5.5 (revocable): the credential is
 * checked again when the courier's account changes (keys, passwords, the platform switch) and
 * when the staff session it names does (signed out, expired), not minutes later.
 */
function credentialSubjects(env: Environment, tenant: string, key: string): string[] {
  const prefix = env.runtime.busPrefix;
  const subjects = [subjectOf(prefix, tenant, businessActor.type, tenant)];
  const token = key.trim();
  if (token.startsWith(STAFF_TOKEN_PREFIX)) {
    subjects.push(subjectOf(prefix, SESSION_TENANT, sessionActor.type, sha256Hex(token)));
  }
  return subjects;
}

/** Static files of the page: name to content type. Nothing else under src/web/ is served. */
const WEB_FILES: Readonly<Record<string, string>> = {
  "board.html": "text/html; charset=utf-8",
  "board.js": "text/javascript; charset=utf-8",
  "board_page.js": "text/javascript; charset=utf-8",
  "board_text.js": "text/javascript; charset=utf-8",
  "board_api.js": "text/javascript; charset=utf-8",
  "board_session.js": "text/javascript; charset=utf-8",
  "board_live.js": "text/javascript; charset=utf-8",
  "board_render.js": "text/javascript; charset=utf-8",
  "board_row.js": "text/javascript; charset=utf-8",
  "board_alert_list.js": "text/javascript; charset=utf-8",
  "board_alert_actions.js": "text/javascript; charset=utf-8",
  "board.css": "text/css; charset=utf-8",
};
/** The page's files under it (its script's modules and its style sheet), as the API lists them. */
const PAGE_FILES = Object.keys(WEB_FILES).filter((name) => name !== "board.html");
const webFile = staticFiles("board", WEB_FILES);

/** The page and its files are anyone's, counted per address (anonymous). */
const ADDRESS_LIMITED = {
  rate_limited: "too many calls from this address; wait `Retry-After` seconds",
};

function registerDocs(api: Api): void {
  const tags = ["Operations board"];
  api.openAPIRegistry.registerPath({
    method: "get",
    path: LIVE_PATH,
    summary: "Live board (WebSocket): the courier's shipment rows and alerts as they change. " +
      "Credential as `?key=` or the first message `{type: auth, key}`; messages `ready`, " +
      "`shipment` {version, row}, `alert` {version, alert}",
    tags,
    security: [{ businessKey: [] }],
    request: {
      query: z.object({
        key: z.string().optional().openapi({
          description: "The business key or staff session token; or send it as the first message",
        }),
      }),
    },
    responses: {
      101: { description: "Switching to the WebSocket protocol" },
      // With `?key=` the credential is refused before the upgrade; sent as a message, by a close.
      ...refusalResponses({
        upgrade_required: "not a WebSocket request",
        ...businessRefusals({ scope: SCOPE }, "the key"),
        ...PLATFORM_DISABLED,
      }),
      default: { description: "Error: `{success: false, code, message}`" },
    },
  });
  api.openAPIRegistry.registerPath({
    method: "get",
    path: PAGE_PATH,
    summary: "The operations board page (HTML); it signs in with the courier's key",
    tags,
    security: [],
    responses: {
      200: { description: "The page, text/html" },
      ...refusalResponses(ADDRESS_LIMITED),
    },
  });
  api.openAPIRegistry.registerPath({
    method: "get",
    path: `${PAGE_PATH}/{file}`,
    summary: "The board page's script and style sheet",
    tags,
    security: [],
    request: { params: z.object({ file: z.enum(PAGE_FILES) }) },
    responses: {
      200: { description: "A static file of the page" },
      ...refusalResponses({ not_found: "no such file of the page", ...ADDRESS_LIMITED }),
    },
  });
}

/**
 * spec: business 8: an upgrade without `?key=` names no caller until its first message: it is
 * anyone's, counted and throttled per address as the page is (429 past the limit, before the
 * upgrade), so sockets cannot be opened without limit. A wrong key is counted there as any
 * refused credential is; a known key counts against its courier.
 */
const keylessByAddress: MiddlewareHandler<AppEnv> = (c, next) =>
  c.req.query("key") === undefined ? anonymous(c, next) : next();

export function boardRoutes(api: Api): void {
  registerDocs(api);
  // Registered before GET /business/courier/operations/{reference}, which would match "live".
  api.get(LIVE_PATH, keylessByAddress, async (c) => {
    if ((c.req.header("Upgrade") ?? "").toLowerCase() !== "websocket") {
      // Thrown, so that the refusal counts against the address and carries the rate headers
      // (spec: business 8: on every response), as any refusal of an unknown caller does.
      throw new ApiError(
        "upgrade_required",
        "the live board is a WebSocket: connect with ws:// or wss://",
      );
    }
    const key = c.req.query("key");
    const early = key === undefined ? null : { principal: await boardPrincipal(c, key), key };
    return await upgradeWebSocket(c, new BoardConnection(c, early).events());
  });
  // spec: business 8: rate headers on every response; the page is anyone's, counted per address.
  api.get(PAGE_PATH, anonymous, () => webFile("board.html"));
  api.get(`${PAGE_PATH}/:file`, anonymous, (c) => webFile(c.req.param("file")));
}
