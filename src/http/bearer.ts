/**
 * A guard for a credential sent as `Authorization: Bearer <token>` whose prefix says its
 * environment (the drivers' tokens of both documents): missing or unknown is unauthenticated
 * on live; on the sandbox anything but a valid sandbox token answers live_key_on_sandbox
 * (CONTRACT errors: 401), and live answers a sandbox token sandbox_key_on_live. What a token
 * names, and what a request it admits carries, are the feature's (its `find` and `admit`).
 */
import type { Context, MiddlewareHandler } from "hono";
import type { EnvironmentName } from "../environment.ts";
import { hashSecret } from "../domain/secrets.ts";
import type { AppEnv } from "./context.ts";
import { ApiError } from "./errors.ts";
import { ADDRESS_LIMITED, bearerToken, credentialRefusals } from "./guards.ts";
import { type Refusals, refusing } from "./refusals.ts";

export interface BearerCredential<P> {
  /** What the token is called in the refusals' messages: `driver token`. */
  readonly noun: string;
  /** How a token of an environment begins. */
  readonly prefix: (env: EnvironmentName) => string;
  /** Refusals `admit` may answer besides the credential's own (the OpenAPI document). */
  readonly refusals?: Refusals;
  /** Who a token's hash names, or null when it names no one (unknown, revoked). */
  find(c: Context<AppEnv>, hash: string): Promise<P | null>;
  /** Sets the principal found, and counts the call where the document limits it. */
  admit(c: Context<AppEnv>, principal: P): void | Promise<void>;
}

/** The guard of one bearer credential (see the module's comment). */
export function bearerCredential<P>(credential: BearerCredential<P>): MiddlewareHandler<AppEnv> {
  const { noun, prefix } = credential;
  return refusing({
    ...credentialRefusals(`the ${noun} (\`Authorization: Bearer\`)`),
    sandbox_key_on_live: `a sandbox ${noun} was sent to live`,
    // An unknown token counts against the caller's address (countUncounted), whether or not the
    // credential's own calls are counted: past its limit the answer is 429 (business 8).
    ...ADDRESS_LIMITED,
    ...credential.refusals,
  }, async (c, next) => {
    const env = c.get("env");
    // Made only when thrown (an Error captures its stack).
    const refused = (message: string) =>
      env.name === "sandbox"
        ? new ApiError("live_key_on_sandbox", `the sandbox accepts only sandbox ${noun}s`)
        : new ApiError("unauthenticated", message);
    const token = bearerToken(c.req.header("Authorization"));
    if (!token) throw refused(`${noun} missing`);
    if (env.name === "live" && token.startsWith(prefix("sandbox"))) {
      throw new ApiError(
        "sandbox_key_on_live",
        `a sandbox ${noun} was sent to live; use a ${prefix("live")} token`,
      );
    }
    const principal = await credential.find(c, await hashSecret(token));
    if (principal === null) throw refused(`unknown ${noun}`);
    await credential.admit(c, principal);
    await next();
  });
}
