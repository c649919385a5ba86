/** A live environment wired to a sandbox, as main.ts wires them (Business API 4.4 credentials). */
import assert from "node:assert/strict";
import { sandboxTwinsOf } from "../../../src/business/flows/sandbox_credentials.ts";
import { openTestEnv, type TestEnv } from "../../helpers/test_env.ts";

export const SANDBOX_BASE = "http://sandbox.test/api";

export interface Twins {
  readonly live: TestEnv;
  readonly sandbox: TestEnv;
}

/** Runs `fn` against a sandbox and a live environment reaching it; always closes both. */
export async function withTwins(fn: (w: Twins) => Promise<void>): Promise<void> {
  const sandbox = await openTestEnv({ name: "sandbox" });
  try {
    const live = await openTestEnv({ sandboxTwins: sandboxTwinsOf(sandbox.env, SANDBOX_BASE) });
    try {
      await fn({ live, sandbox });
    } finally {
      await live.close();
    }
  } finally {
    await sandbox.close();
  }
}

/** POST /business/sandbox/credentials with `key` on live, expected 201: its data. */
export async function credentials(live: TestEnv, key: string) {
  const r = await live.call("POST", "/business/sandbox/credentials", { key });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.data;
}

/** The twin's balances by currency, as GET /business/wallet shows them on the sandbox. */
export async function balances(sandbox: TestEnv, key: string): Promise<Record<string, number>> {
  const r = await sandbox.call("GET", "/business/wallet", { key });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return Object.fromEntries(
    r.body.data.balances.map((b: { currency: string; balance: number }) => [b.currency, b.balance]),
  );
}
