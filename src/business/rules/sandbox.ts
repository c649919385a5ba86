/**
 * The sandbox twin (Business API 1.3, 4.4, 5.7): what is the same code on its own environment,
 * decided by the environment's name alone. Pure constants and small functions.
 */
/** spec: business 5.7: sandbox one-time, customer and driver codes are always this. */
export const SANDBOX_CODE = "123456";

/**
 * spec: business 4.4: the sandbox endpoints are on the sandbox base; on live they are not found
 * (`not_found`), with this message saying where they are. Null: the environment serves them.
 */
export function sandboxOnlyMessage(env: "live" | "sandbox", what: string): string | null {
  return env === "sandbox"
    ? null
    : `${what} is on the sandbox base: call it there with a sandbox key`;
}
