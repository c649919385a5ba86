// The operations board's page: its elements, what it holds, and the two lines it writes to
// whatever it shows (the notice and the connection state), on the shell both boards share.
import { RETRY_MS_MIN, shellElements, shellLines } from "./board_shell.js";

/** The API base: this page lives at <base>/business/courier/board. */
export const API = location.pathname.replace(/\/business\/courier\/board\/?$/, "");
/** The list endpoints' largest page. */
export const ROWS_MAX = 500;
export const ALERTS_MAX = 500;

/** Health values (courier 3.2), most urgent first: the board's sort and count order. */
export const HEALTHS = [
  "exception",
  "late",
  "waiting_courier",
  "at_risk",
  "waiting_customs",
  "waiting_customer",
  "on_schedule",
  "delivered",
  "closed",
];

const $ = (id) => document.getElementById(id);
export const el = {
  ...shellElements(),
  counts: $("counts"),
  health: $("filter-health"),
  owner: $("filter-owner"),
  groupBy: $("group-by"),
  overdue: $("filter-overdue"),
  includeClosed: $("include-closed"),
  shown: $("shown"),
  table: $("rows"),
  empty: $("empty"),
  alerts: $("alerts"),
  alertCount: $("alert-count"),
  noAlerts: $("no-alerts"),
};

export const state = {
  key: null,
  /** waybill -> board row */
  rows: new Map(),
  /** waybill -> last version seen on the socket (older messages are ignored) */
  versions: new Map(),
  /** alert id -> alert, open or acknowledged */
  alerts: new Map(),
  socket: null,
  retryMs: RETRY_MS_MIN,
  retryTimer: null,
  /** Messages that arrive while the lists load; applied on top of them. */
  queued: null,
};

export const { notify, setConnection } = shellLines(el);
