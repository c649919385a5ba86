/**
 * The sandbox twin's pure rules (Business API 1.3, 4.4, 5.7, 5.9, 8): which base an endpoint is
 * on, the sandbox's fixed codes, its wallets' top-up and its partner channels' names.
 */
import { refuse } from "../../runtime/actor.ts";
import { SANDBOX_WALLET_OPENING_MINOR } from "../../limits.ts";

/** spec: business 5.7: one-time, customer and driver codes in the sandbox. */
export const SANDBOX_CODE = "123456";

/** spec: business 8: a sandbox sign-up code is valid 15 minutes... */
export const SANDBOX_SIGNUP_CODE_VALID_MS = 15 * 60_000;
/** ...for 5 tries; then the sign-up is spent and a new POST /sandbox/signup starts again. */
export const SANDBOX_SIGNUP_TRIES = 5;

/** spec: business 5.9: the audience of a storefront channel token. */
export const CHANNEL_AUDIENCE = "service-sandbox";

/** The signing algorithm of storefront channel tokens (a shared key, HMAC-SHA256). */
export const CHANNEL_ALGORITHM = "HS256";

/** spec: business 8: a sandbox wallet below this (minor units) is topped up on new credentials. */
export const SANDBOX_TOP_UP_BELOW_MINOR = 1_000_000;

/** spec: business 4.4: a sandbox-only endpoint on live answers as a missing one, saying where. */
export function refuseUnlessSandbox(env: "live" | "sandbox", endpoint: string): void {
  if (env !== "sandbox") refuse("not_found", `${endpoint} is on the sandbox base, not live`);
}

/** spec: business 4.4: credentials are made with a live key on the live base. */
export function refuseUnlessLive(env: "live" | "sandbox", endpoint: string): void {
  if (env !== "live") refuse("not_found", `${endpoint} is on the live base, not the sandbox`);
}

/**
 * spec: business 8: what to credit a sandbox wallet when credentials are created again: up to
 * 100,000 when below 10,000, else nothing.
 */
export function sandboxTopUpMinor(currency: string, balanceMinor: number): number {
  const opening = (SANDBOX_WALLET_OPENING_MINOR as Readonly<Record<string, number>>)[currency];
  if (opening === undefined || balanceMinor >= SANDBOX_TOP_UP_BELOW_MINOR) return 0;
  return opening - balanceMinor;
}

/** The storefront channel of a business's twin: one per business, named after it. */
export function storefrontSource(businessId: string): string {
  return `storefront-${businessId}`;
}

/** Whether the environment serves the sandbox's own endpoints and reactors (spec: business 4.4). */
export function servesSandbox(env: "live" | "sandbox"): boolean {
  return env === "sandbox";
}

/**
 * The webhook URL that names the built-in inbox (Business API 4.4, 6 "the sandbox inbox can stand
 * in"). Under `.invalid` (RFC 2606), so were it ever taken for a network address it would
 * resolve nowhere: an inbox delivery can never leave the sandbox.
 */
export const SANDBOX_INBOX_URL = "https://inbox.sandbox.invalid/";

/** Inbox deliveries kept per business, newest first; older ones are trimmed. */
export const SANDBOX_INBOX_KEPT_MAX = 1_000;
/** GET /business/sandbox/inbox `limit`: default and bounds. */
export const SANDBOX_INBOX_LIST_DEFAULT = 20;
export const SANDBOX_INBOX_LIST_MAX = 100;
