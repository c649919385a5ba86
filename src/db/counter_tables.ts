/**
 * The shared counters' tables (issue 43 item 4): what every instance of a deployment counts
 * together in the query side's database, each row one key's current window.
 */

/** A known caller's requests in its current windows, shared by instances (Business API 8). */
export interface RateCounterTable {
  key: string;
  minute_window: number;
  minute_count: number;
  day_window: number;
  day_count: number;
  /** What the row's last update let through. */
  granted: number;
  per_minute: number;
  per_day: number;
}

/** A recipient's pumped backlog attempts in its latest second, shared by instances (0030). */
export interface RecipientRateCounterTable {
  key: string;
  /** Seconds since the epoch. */
  second: number;
  sent: number;
  /** What the row's last update granted. */
  granted: number;
}

/** Failed sign-ins of one key, shared by a deployment's instances (login_windows.ts LoginEntry). */
export interface LoginThrottleTable {
  key: string;
  failures: number;
  /** Epoch ms, as the other instants of the row. */
  last_failure_at: number;
  wait_until: number;
  pending: number;
  pending_since: number;
}
