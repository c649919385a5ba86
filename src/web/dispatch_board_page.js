// The dispatch board's page: its elements, what it holds, and the two lines it writes to
// whatever it shows (the notice and the connection state), on the shell both boards share.
import { RETRY_MS_MIN, shellElements, shellLines } from "./board_shell.js";

/** The API base: this page lives at <base>/business/dispatch-board. */
export const API = location.pathname.replace(/\/business\/dispatch-board\/?$/, "");

/** Trip statuses (Business API 3.1), in the order a trip moves through them. */
export const STATUSES = [
  "pending",
  "scheduled",
  "queued",
  "accepted",
  "enroute",
  "arrived",
  "active",
  "completed",
  "cancelled",
];

const $ = (id) => document.getElementById(id);
export const el = {
  ...shellElements(),
  mapTrips: $("map-trips"),
  mapDrivers: $("map-drivers"),
  offers: $("offers"),
  offerCount: $("offer-count"),
  noOffers: $("no-offers"),
  drivers: document.querySelector("#drivers tbody"),
  driverCount: $("driver-count"),
  noDrivers: $("no-drivers"),
  statuses: $("statuses"),
};

export const state = {
  key: null,
  /** reference -> trip (DispatchBoardTrip) */
  trips: new Map(),
  /** driver id -> driver (DispatchBoardDriver) */
  drivers: new Map(),
  /** driver id -> newest position of a driver not yet known on shift */
  positions: new Map(),
  /** vehicle type id -> name */
  vehicleTypes: new Map(),
  /** "trip:<ref>", "driver:<id>", "position:<id>" -> last version seen on the socket */
  versions: new Map(),
  /** The server's clock minus this browser's (positions' ages are the server's). */
  clockOffsetMs: 0,
  /** Seconds a position stays fresh (the operator's setting as the page last heard it). */
  freshSeconds: 60,
  socket: null,
  retryMs: RETRY_MS_MIN,
  retryTimer: null,
  /** Messages that arrive while the state loads; applied on top of it. */
  queued: null,
};

export const { notify, setConnection } = shellLines(el);

/** The server's now, in ms. */
export function serverNow() {
  return Date.now() + state.clockOffsetMs;
}
