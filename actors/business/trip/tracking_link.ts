/**
 * The trip's tracking link (Business API 2.4 rule 6): rotate issues a new token and turns the link
 * on again; revoke turns it off. The old token's hash is remembered (a few), so its holders are
 * told the link was turned off (410) rather than that no trip exists.
 */
import { sha256Hex } from "../../../src/domain/secrets.ts";
import {
  type LinkStatus,
  linkStatus,
  TRACKING_TOKENS_RETIRED_MAX,
} from "../../../src/business/rules/tracking.ts";
import type { Trip, TripCommand } from "./types.ts";
import type { TripEvent } from "./events.ts";

/** The index from a tracking token's hash to its trip (current and retired tokens). */
export const TRIP_TRACKING_INDEX = "business_trip_tracking";

/** The key a token is indexed under: its hash, so the store never holds the token. */
export function trackingKey(token: string): string {
  return sha256Hex(token);
}

export function trackingLink(
  t: Trip,
  command: Extract<TripCommand, { kind: "rotate_tracking" | "revoke_tracking" }>,
  at: number,
): TripEvent[] {
  if (command.kind === "revoke_tracking") {
    // Revoking twice is harmless: the first time it was turned off stays.
    return t.tracking_revoked_at === null ? [{ kind: "tracking_link_revoked", at }] : [];
  }
  // A retry with the token already issued changes nothing.
  if (command.token === t.tracking_token) return [];
  const retired = [...t.retired_tracking_hashes, trackingKey(t.tracking_token)]
    .slice(-TRACKING_TOKENS_RETIRED_MAX);
  return [{ kind: "tracking_link_rotated", at, token: command.token, retired_hashes: retired }];
}

/** Every tracking token key the trip answers to. */
export function trackingKeys(t: Trip): string[] {
  return [trackingKey(t.tracking_token), ...t.retired_tracking_hashes];
}

/** When the trip ended (completed or cancelled), or null while it runs. */
export function endedAt(t: Trip): number | null {
  return t.completed_at ?? t.cancelled_at;
}

/** The times the link's expiry is counted from. */
export function linkTimes(t: Trip) {
  return { ...t, ended_at: endedAt(t), revoked_at: t.tracking_revoked_at };
}

/** spec: business 2.4 rule 6: whether the trip's link is on at `at` (reads and webhooks alike). */
export function trackingLinkStatus(t: Trip, at: number): LinkStatus {
  return linkStatus(linkTimes(t), at);
}
