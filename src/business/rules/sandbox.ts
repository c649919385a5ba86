/**
 * The sandbox twin (Business API 1.3, 4.4): pure constants and small functions its endpoints
 * share. The sandbox is the same code on its own environment; what is only there is decided
 * here, from the environment's name, once.
 */
/** spec: business 5.7: sandbox one-time codes, customer and driver codes. */
export const SANDBOX_CODE = "123456";

/**
 * The refusal of a sandbox-only endpoint (`env`: the environment's name, Deps.name) (everything of 4.4 but the credentials) called on live:
 * it answers as a path nobody holds, and says where it is. Null on the sandbox.
 */
export function sandboxOnlyRefusal(
  env: "live" | "sandbox",
): { readonly code: "not_found"; readonly message: string } | null {
  if (env === "sandbox") return null;
  return {
    code: "not_found",
    message: "not found: this endpoint is on the sandbox base, called with a sandbox key",
  };
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
