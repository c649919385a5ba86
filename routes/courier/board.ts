/**
 * ARCHITECTURE "Boards", courier 4.4: the live operations board. A WebSocket streams one
 * courier's shipment rows and alerts from the bus as they commit; the page in src/web/ shows them.
 *
 * GET /business/courier/operations/live (WebSocket). The credential, checked as the
 * X-Business-API-Key header is (business key or staff session token; scope shipments:view-own;
 * courier platform on), comes in that header or as `?key=` with the upgrade (a browser can send
 * neither header), or, to keep it out of URLs and logs, as the first
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
import type { Context } from "hono";
import { upgradeWebSocket } from "hono/deno";
import type { AlertSummary } from "../../actors/courier/alert.ts";
import type { ActorChange } from "../../src/bus/bus.ts";
import { ChangeFeed, type FeedOptions, type FeedSink } from "../../src/web/feed.ts";
import { operationsRow, type ShipmentSnapshot } from "../../src/courier/queries/operations_row.ts";
import type { Api } from "../../src/http/app.ts";
import { anonymous } from "../../src/http/guards.ts";
import { businessCredential, businessRefusals } from "../../src/platform/auth/auth.ts";
import type { BusinessPrincipal } from "../../src/platform/auth/principal.ts";
import { credentialSubjects } from "../../src/platform/auth/credential_subjects.ts";
import type { AppEnv } from "../../src/http/context.ts";
import { ApiError } from "../../src/http/errors.ts";
import { refusalResponses, z } from "../../src/http/route.ts";
import { PLATFORM_DISABLED, TEST_FLAG_REFUSED } from "../../src/http/refusals.ts";
import { staticFiles } from "../../src/web/static.ts";
import {
  CLOSE,
  keylessByAddress,
  LiveConnection,
  type LivePage,
  upgradeKey,
} from "../../src/web/live_socket.ts";
import { alertView } from "./answers/alerts.ts";

/** Boards open at once per courier and environment (each holds two bus subscriptions). */
export const BOARD_SOCKETS_PER_COURIER_MAX = 250;
/** An open board's credential is checked again this often: a revoked key or ended session stops. */
export const BOARD_RECHECK_MS = 5 * 60_000;

export { CLOSE };

const LIVE_PATH = "/business/courier/operations/live";
const PAGE_PATH = "/business/courier/board";
/** The header the upgrade may carry the credential in, as the OpenAPI security declares. */
const KEY_HEADER = "X-Business-API-Key";
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

/** The courier's board: its shipments and alerts, for a credential of the courier. */
const COURIER_BOARD: LivePage<BusinessPrincipal> = {
  name: "board",
  authenticate: boardPrincipal,
  tenantOf: (principal) => principal.business.id,
  watchedSubjects: credentialSubjects,
  feedOf: (sink, env, principal) =>
    new BoardFeed(sink, {
      bus: env.bus,
      env: env.runtime.busPrefix,
      tenant: principal.business.id,
      now: () => env.clock.now(),
    }),
  socketsMax: BOARD_SOCKETS_PER_COURIER_MAX,
  recheckMs: BOARD_RECHECK_MS,
};

/** Static files of the page: name to content type. Nothing else under src/web/ is served. */
const WEB_FILES: Readonly<Record<string, string>> = {
  "board.html": "text/html; charset=utf-8",
  "board.js": "text/javascript; charset=utf-8",
  "board_page.js": "text/javascript; charset=utf-8",
  "board_text.js": "text/javascript; charset=utf-8",
  "board_shell.js": "text/javascript; charset=utf-8",
  "board_feed.js": "text/javascript; charset=utf-8",
  "board_api.js": "text/javascript; charset=utf-8",
  "board_session.js": "text/javascript; charset=utf-8",
  "board_live.js": "text/javascript; charset=utf-8",
  "board_render.js": "text/javascript; charset=utf-8",
  "board_row.js": "text/javascript; charset=utf-8",
  "board_alert_list.js": "text/javascript; charset=utf-8",
  "board_alert_actions.js": "text/javascript; charset=utf-8",
  "board_alert_order.js": "text/javascript; charset=utf-8",
  "board.css": "text/css; charset=utf-8",
};
/** The page's files under it (its script's modules and its style sheet), as the API lists them. */
const PAGE_FILES = Object.keys(WEB_FILES).filter((name) => name !== "board.html");
const webFile = staticFiles("board", WEB_FILES);

/** The page and its files are anyone's, counted per address (anonymous). */
const ADDRESS_LIMITED = {
  rate_limited: "too many calls from this address; wait `Retry-After` seconds",
  // Every request on live meets the test flag's refusal first (src/http/app.ts requestGate).
  ...TEST_FLAG_REFUSED,
};

function registerDocs(api: Api): void {
  const tags = ["Operations board"];
  api.openAPIRegistry.registerPath({
    method: "get",
    path: LIVE_PATH,
    summary: "Live board (WebSocket): the courier's shipment rows and alerts as they change. " +
      "Credential as the X-Business-API-Key header, `?key=` or the first message " +
      "`{type: auth, key}`; messages `ready`, " +
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
      // Sent with the upgrade, the credential is refused before it; sent as a message, by a close.
      ...refusalResponses({
        ...TEST_FLAG_REFUSED,
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

export function boardRoutes(api: Api): void {
  registerDocs(api);
  // Registered before GET /business/courier/operations/{reference}, which would match "live".
  api.get(LIVE_PATH, keylessByAddress(KEY_HEADER), async (c) => {
    if ((c.req.header("Upgrade") ?? "").toLowerCase() !== "websocket") {
      // Thrown, so that the refusal counts against the address and carries the rate headers
      // (spec: business 8: on every response), as any refusal of an unknown caller does.
      throw new ApiError(
        "upgrade_required",
        "the live board is a WebSocket: connect with ws:// or wss://",
      );
    }
    const key = upgradeKey(c, KEY_HEADER);
    const early = key === undefined ? null : { principal: await boardPrincipal(c, key), key };
    return await upgradeWebSocket(c, new LiveConnection(c, COURIER_BOARD, early).events());
  });
  // spec: business 8: rate headers on every response; the page is anyone's, counted per address.
  api.get(PAGE_PATH, anonymous, () => webFile("board.html"));
  api.get(`${PAGE_PATH}/:file`, anonymous, (c) => webFile(c.req.param("file")));
}
