/**
 * The business's dispatch board (issue 38 item 7; Business API 1.2, 3.1): a page for the
 * business's operations, like the courier's operations board (ARCHITECTURE "Boards"). It shows
 * the business's trips by status, the pool's drivers on shift with their newest positions and the
 * offers waiting, drawn on a map from coordinates, and follows them live.
 *
 * GET /business/dispatch-board/state: what the page opens with (X-Business-API-Key: the business
 * key or a staff session token; partner keys are outside it).
 * GET /business/dispatch-board/live (WebSocket): the credential in the X-Business-API-Key header
 * or as `?key=` with the upgrade, or as the first message
 * `{"type": "auth", "key": "..."}` (src/web/live_socket.ts). Messages, one JSON text frame each:
 *   {type: "ready", at}                    subscribed: every later change is on this socket
 *   {type: "trip", version, trip}          one of the business's trips (DispatchBoardTrip)
 *   {type: "driver", version, driver}      a pool driver's shift (DispatchBoardDriver, no position)
 *   {type: "position", version, driver_id, position}   a driver's newest position; position null
 *                                          (no version): none to show now, the shown one cleared
 *                                          (their trips here wait queued behind another trip)
 *   {type: "driver_left", driver_id}       the driver no longer holds or is offered its trips
 * The drivers are those holding or offered one of the business's trips in progress, no other; a
 * driver whose trips here are queued behind their trip under way is shown without a position
 * (spec: business 3.1 queued: where they are belongs to that trip, maybe another business's), as
 * is one merely offered a trip here while carrying another business's trip, or not seen since
 * giving up their last trip (a position observed on it may be another business's).
 * Coalesced per trip and driver and pushed once per tick; a slow socket is left to drain
 * (src/web/feed.ts). Close codes as the courier board's (CLOSE).
 * GET /business/dispatch-board and /business/dispatch-board/{file}: the page, public static files.
 */
import type { Context } from "hono";
import { upgradeWebSocket } from "hono/deno";
import type { PoolDriver } from "../../actors/business/pool_driver.ts";
import type { Trip } from "../../actors/business/trip/mod.ts";
import { PLATFORM_TENANT } from "../../actors/platform/platform_settings.ts";
import {
  boardDriver,
  dispatchBoardState,
  newestPosition,
  tripsInProgress,
} from "../../src/business/flows/dispatch_board.ts";
import {
  boardDriverIds,
  BoardDrivers,
  offeredSince,
} from "../../src/business/rules/board_drivers.ts";
import type { Deps } from "../../src/environment.ts";
import {
  type LivePositions,
  livePositionsOf,
  type Position,
} from "../../src/business/reactors/live_positions.ts";
import { DRIVER_POSITION } from "../../src/business/reactors/position_signals.ts";
import type { ActorChange } from "../../src/bus/bus.ts";
import { iso } from "../../src/domain/iso.ts";
import { type Api, ok } from "../../src/http/app.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { ApiError } from "../../src/http/errors.ts";
import { anonymous } from "../../src/http/guards.ts";
import { define, refusalResponses, z } from "../../src/http/route.ts";
import { TEST_FLAG_REFUSED } from "../../src/http/refusals.ts";
import { business, businessCredential, businessRefusals } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { credentialSubjects } from "../../src/platform/auth/credential_subjects.ts";
import type { BusinessPrincipal } from "../../src/platform/auth/principal.ts";
import { ChangeFeed, type FeedOptions, type FeedSink } from "../../src/web/feed.ts";
import {
  CLOSE,
  keylessByAddress,
  LiveConnection,
  type LivePage,
  upgradeKey,
} from "../../src/web/live_socket.ts";
import { staticFiles } from "../../src/web/static.ts";
import {
  boardDriverView,
  boardPositionView,
  boardTripView,
  DispatchBoardAnswer,
} from "./answers/dispatch_board.ts";

const PAGE_PATH = "/business/dispatch-board";
const LIVE_PATH = `${PAGE_PATH}/live`;
const STATE_PATH = `${PAGE_PATH}/state`;
/** The header the upgrade may carry the credential in, as the OpenAPI security declares. */
const KEY_HEADER = "X-Business-API-Key";
const TAG = "Dispatch board";
const tags = [TAG];

/** Boards open at once per business and environment (each holds three bus subscriptions). */
export const DISPATCH_BOARDS_PER_BUSINESS_MAX = 250;
/** An open board's credential is checked again this often: a revoked key or ended session stops. */
export const DISPATCH_BOARD_RECHECK_MS = 5 * 60_000;

/** The trip actor's type; the board shows its snapshots (the business's own tenant only). */
const TRIP_TYPE = "business_trip";
const DRIVER_TYPE = "pool_driver";

/** One board's message for a change: a trip, a driver's shift or a driver's position. */
export function dispatchMessageOf(change: ActorChange): Record<string, unknown> | null {
  const snapshot = change.snapshot;
  if (typeof snapshot !== "object" || snapshot === null) return null;
  try {
    switch (change.type) {
      case TRIP_TYPE:
        return { type: "trip", version: change.version, trip: boardTripView(snapshot as Trip) };
      case DRIVER_TYPE: {
        const { position: _none, ...driver } = boardDriverView(snapshot as PoolDriver, null);
        return { type: "driver", version: change.version, driver };
      }
      case DRIVER_POSITION:
        return {
          type: "position",
          version: change.version,
          driver_id: change.id,
          position: boardPositionView(snapshot as Position),
        };
    }
  } catch (e) {
    console.error(`dispatch board: ${change.type} ${change.id} cannot be shown:`, e);
  }
  return null;
}

/** What a board's feed reads besides the bus: the drivers who come onto it. */
export interface BoardFeedDeps extends Pick<Deps, "db" | "runtime"> {
  readonly positions: LivePositions;
}

/**
 * One dispatch board's feed: the business's trips, and the pool drivers holding or offered one of
 * them in progress with their positions (BoardDrivers), never another business's drivers. A
 * driver who comes onto the board is sent with their newest position; one who leaves it (their
 * trips ended, their offer went to another) is sent as `driver_left`.
 */
export class DispatchBoardFeed extends ChangeFeed {
  readonly #drivers: BoardDrivers;
  readonly #deps: BoardFeedDeps;
  readonly #tenant: string;

  constructor(sink: FeedSink, options: FeedOptions, deps: BoardFeedDeps) {
    const drivers = new BoardDrivers();
    const self: { feed?: DispatchBoardFeed } = {};
    super(sink, options, {
      types: [TRIP_TYPE],
      also: [
        { tenant: PLATFORM_TENANT, types: [DRIVER_TYPE] },
        { tenant: PLATFORM_TENANT, types: [DRIVER_POSITION], signal: true },
      ],
      messageOf: (change) => {
        const feed = self.feed;
        if (change.type === TRIP_TYPE) feed?.heard(change.snapshot as Trip | null);
        else if (!drivers.has(change.id)) return null;
        else if (change.type === DRIVER_TYPE) feed?.carrying(change.id, change.snapshot);
        else if (change.type === DRIVER_POSITION && !drivers.sees(change.id, observedAt(change))) {
          // spec: business 3.1 queued: observed on the driver's trip under way, maybe another's.
          return null;
        }
        return dispatchMessageOf(change);
      },
      behind: { code: CLOSE.behind, reason: "board fell behind; reload it" },
    });
    self.feed = this;
    this.#drivers = drivers;
    this.#deps = deps;
    this.#tenant = options.tenant;
  }

  /** Learns the drivers of the trips in progress, then subscribes. */
  override async start(): Promise<void> {
    for (const t of await tripsInProgress(this.#deps, this.#tenant)) this.#drivers.trip(t);
    await super.start();
  }

  /**
   * A trip's change: the drivers it brings onto the board, or takes off it, and those staying
   * whose position the board may now see, or no longer (a trip of theirs queued or started).
   */
  heard(t: Trip | null): void {
    if (t === null || typeof t !== "object" || typeof t.reference !== "string") return;
    const named = new Set([...this.#drivers.named(t.reference), ...boardDriverIds(t)]);
    const before = new Map([...named].map((id) => [id, this.#drivers.since(id)]));
    const { added, removed } = this.#drivers.trip(t);
    for (const id of removed) {
      this.push(`${DRIVER_TYPE}:${id}`, { type: "driver_left", driver_id: id });
    }
    for (const id of added) {
      this.#introduce(id).catch((e) => console.error(`dispatch board: driver ${id}:`, e));
    }
    for (const [id, since] of before) {
      if (added.includes(id) || !this.#drivers.has(id) || this.#drivers.since(id) === since) {
        continue;
      }
      newestPosition(this.#deps, this.#deps.positions, id).then((p) => this.#locate(id, p))
        .catch((e) => console.error(`dispatch board: driver ${id}:`, e));
    }
  }

  /**
   * A driver's holdings as they are now: one merely offered a trip here is seen only while
   * carrying no other business's trip (tenant isolation), so a change there shows or clears them.
   */
  carrying(id: string, d: unknown): void {
    const before = this.#drivers.since(id);
    const held = typeof d === "object" && d !== null ? d as PoolDriver : null;
    this.#drivers.carrying(id, held === null ? null : offeredSince(held, this.#tenant));
    if (this.#drivers.since(id) === before) return;
    newestPosition(this.#deps, this.#deps.positions, id).then((p) => this.#locate(id, p))
      .catch((e) => console.error(`dispatch board: driver ${id}:`, e));
  }

  async #introduce(id: string): Promise<void> {
    const found = await boardDriver(this.#deps, this.#deps.positions, id);
    // Gone again meanwhile, or off shift (their shift message brings them when they come on).
    if (found === null || !this.#drivers.has(id)) return;
    this.#drivers.carrying(id, offeredSince(found.driver, this.#tenant));
    const { position: _none, ...driver } = boardDriverView(found.driver, null);
    this.push(`${DRIVER_TYPE}:${id}`, { type: "driver", driver });
    if (found.position !== null && this.#drivers.sees(id, found.position.at)) {
      this.#locate(id, found.position);
    }
  }

  /**
   * The driver's position as the board may see it now: the newest, or null (spec: business 3.1
   * queued: none observed on their trip under way), which clears the one shown.
   */
  #locate(id: string, p: Position | null): void {
    if (!this.#drivers.has(id)) return;
    const key = `${DRIVER_POSITION}:${id}`;
    if (p === null || !this.#drivers.sees(id, p.at)) {
      this.push(key, { type: "position", driver_id: id, position: null });
      return;
    }
    const position = boardPositionView(p);
    this.push(key, { type: "position", version: p.at, driver_id: id, position });
  }
}

/** When a position signal's position was observed (NaN when it carries none: never seen). */
function observedAt(change: ActorChange): number {
  const at = (change.snapshot as { at?: unknown } | null)?.at;
  return typeof at === "number" ? at : NaN;
}

/** The credential as the header is checked; a partner key is outside the board. */
function boardPrincipal(c: Context<AppEnv>, key: string): Promise<BusinessPrincipal> {
  return businessCredential(c, key);
}

const DISPATCH_BOARD: LivePage<BusinessPrincipal> = {
  name: "dispatch board",
  authenticate: boardPrincipal,
  tenantOf: (principal) => principal.business.id,
  watchedSubjects: credentialSubjects,
  feedOf: (sink, env, principal) =>
    new DispatchBoardFeed(sink, {
      bus: env.bus,
      env: env.runtime.busPrefix,
      tenant: principal.business.id,
      now: () => env.clock.now(),
    }, { db: env.db, runtime: env.runtime, positions: livePositionsOf(env) }),
  socketsMax: DISPATCH_BOARDS_PER_BUSINESS_MAX,
  recheckMs: DISPATCH_BOARD_RECHECK_MS,
};

/** Static files of the page: name to content type. Nothing else under src/web/ is served. */
const WEB_FILES: Readonly<Record<string, string>> = {
  "dispatch_board.html": "text/html; charset=utf-8",
  "dispatch_board.js": "text/javascript; charset=utf-8",
  "dispatch_board_live.js": "text/javascript; charset=utf-8",
  "dispatch_board_map.js": "text/javascript; charset=utf-8",
  "dispatch_board_render.js": "text/javascript; charset=utf-8",
  "dispatch_board_page.js": "text/javascript; charset=utf-8",
  "board_text.js": "text/javascript; charset=utf-8",
  "board_shell.js": "text/javascript; charset=utf-8",
  "board_feed.js": "text/javascript; charset=utf-8",
  "board.css": "text/css; charset=utf-8",
  "dispatch_board.css": "text/css; charset=utf-8",
};
const PAGE_FILES = Object.keys(WEB_FILES).filter((name) => name !== "dispatch_board.html");
const webFile = staticFiles("dispatch board", WEB_FILES);

const ADDRESS_LIMITED = {
  rate_limited: "too many calls from this address; wait `Retry-After` seconds",
  // Every request on live meets the test flag's refusal first (src/http/app.ts requestGate).
  ...TEST_FLAG_REFUSED,
};

function registerDocs(api: Api): void {
  api.openAPIRegistry.registerPath({
    method: "get",
    path: LIVE_PATH,
    summary: "Live dispatch board (WebSocket): the business's trips, and the pool drivers on " +
      "shift holding or offered one of them, with their positions, as they change. Credential " +
      "in the X-Business-API-Key header, as `?key=` or as the first message `{type: auth, key}`; " +
      "messages `ready`, `trip` {version, " +
      "trip}, `driver` {version, driver}, `position` {version, driver_id, position} (position " +
      "null: none to show now, as while the driver's trips here wait queued behind another " +
      "trip, or while a driver merely offered a trip here carries another business's trip or " +
      "has reported no position since giving up their last trip), " +
      "`driver_left` {driver_id}",
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
      ...refusalResponses({
        ...TEST_FLAG_REFUSED,
        upgrade_required: "not a WebSocket request",
        ...businessRefusals({}, "the key"),
      }),
      default: { description: "Error: `{success: false, code, message}`" },
    },
  });
  api.openAPIRegistry.registerPath({
    method: "get",
    path: PAGE_PATH,
    summary: "The dispatch board page (HTML); it signs in with the business's key",
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
    summary: "The dispatch board page's scripts and style sheets",
    tags,
    security: [],
    request: { params: z.object({ file: z.enum(PAGE_FILES) }) },
    responses: {
      200: { description: "A static file of the page" },
      ...refusalResponses({ not_found: "no such file of the page", ...ADDRESS_LIMITED }),
    },
  });
}

export function dispatchBoardRoutes(api: Api): void {
  registerDocs(api);
  define(api, {
    method: "get",
    path: STATE_PATH,
    summary: "What the dispatch board opens with: trips in progress, their drivers on shift",
    description: "The business's trips in progress (from the trips' read table, which trails a " +
      "booking by the projection lag) with their driver and waiting offer, and the pool " +
      "drivers on shift holding or offered one of them, with their newest position (no other " +
      "driver; null while the driver's trips here wait queued behind another trip, or while " +
      "one merely offered a trip here carries another business's trip; such a driver's " +
      "position observed before they gave up their last trip is never shown). The live socket " +
      "brings every later change.",
    tag: TAG,
    security: "business",
    middleware: [business()],
    response: DispatchBoardAnswer,
  }, async (c) => {
    const { env, tenant } = businessCall(c);
    const state = await dispatchBoardState(env, livePositionsOf(env), tenant);
    return ok(c, {
      at: iso(env.clock.now()),
      trips: state.trips.map((t) => boardTripView(t)),
      drivers: state.drivers.map((d) => boardDriverView({ ...d, online: true }, d.position)),
      vehicle_types: [...state.vehicle_types],
      position_fresh_seconds: state.position_fresh_seconds,
    });
  });
  // Registered before the page's files, whose `:file` would match "live".
  api.get(LIVE_PATH, keylessByAddress(KEY_HEADER), async (c) => {
    if ((c.req.header("Upgrade") ?? "").toLowerCase() !== "websocket") {
      throw new ApiError(
        "upgrade_required",
        "the live dispatch board is a WebSocket: connect with ws:// or wss://",
      );
    }
    const key = upgradeKey(c, KEY_HEADER);
    const early = key === undefined ? null : { principal: await boardPrincipal(c, key), key };
    return await upgradeWebSocket(c, new LiveConnection(c, DISPATCH_BOARD, early).events());
  });
  // spec: business 8: rate headers on every response; the page is anyone's, counted per address.
  api.get(PAGE_PATH, anonymous, () => webFile("dispatch_board.html"));
  api.get(`${PAGE_PATH}/:file`, anonymous, (c) => webFile(c.req.param("file")));
}
