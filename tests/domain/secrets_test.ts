/**
 * Sealed signing secrets are bound to their owner: a seal moved to another tenant's record, or to
 * another kind of record, fails to unseal; a seal made before owners were bound still unseals.
 * Password hashes name their iterations, so a test environment's fewer still verify.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  base64url,
  hashPassword,
  importDataKey,
  passwordMatches,
  seal,
  type SealedSecret,
  sealOwner,
  type SealPurpose,
  unseal,
  verifyPassword,
} from "../../src/domain/secrets.ts";
import { PBKDF2_ITERATIONS } from "../../src/limits.ts";

const PURPOSES: SealPurpose[] = ["business_webhook", "client_webhook", "outbound_target"];

/** A seal as versions before owner binding made it: AES-GCM without additional data, no `v`. */
async function unboundSeal(raw: Uint8Array, secret: string): Promise<SealedSecret> {
  const key = await crypto.subtle.importKey("raw", raw as BufferSource, "AES-GCM", false, [
    "encrypt",
  ]);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv },
    key,
    new TextEncoder().encode(secret),
  );
  return { iv: base64url(iv), data: base64url(new Uint8Array(data)) };
}

const owner = fc.record({
  purpose: fc.constantFrom(...PURPOSES),
  tenant: fc.string({ minLength: 1, maxLength: 12 }),
  record: fc.string({ minLength: 1, maxLength: 12 }),
});

Deno.test("seal(): a seal unseals for its owner only, never for another tenant, record or purpose", async () => {
  const dataKey = await importDataKey(crypto.getRandomValues(new Uint8Array(32)));
  await fc.assert(
    fc.asyncProperty(owner, owner, fc.string(), async (a, b, secret) => {
      const mine = sealOwner(a.purpose, a.tenant, a.record);
      const theirs = sealOwner(b.purpose, b.tenant, b.record);
      const sealed = await seal(dataKey, secret, mine);
      assert.equal(sealed.v, 2);
      assert.equal(await unseal(dataKey, sealed, mine), secret);
      if (mine !== theirs) {
        await assert.rejects(unseal(dataKey, sealed, theirs), /sealed for another/);
      }
      // Dropping the version marker does not make a bound seal an unbound one.
      const { v: _, ...stripped } = sealed;
      await assert.rejects(unseal(dataKey, stripped, mine));
    }),
    { numRuns: 50 },
  );
});

Deno.test("seal(): a business's seal copied to another business, or to its client, fails to unseal", async () => {
  const dataKey = await importDataKey(crypto.getRandomValues(new Uint8Array(32)));
  const sealed = await seal(dataKey, "whsec_a", sealOwner("business_webhook", "biz_a", "biz_a"));
  await assert.rejects(unseal(dataKey, sealed, sealOwner("business_webhook", "biz_b", "biz_b")));
  await assert.rejects(unseal(dataKey, sealed, sealOwner("client_webhook", "biz_a", "biz_a")));
  // The error names no owner and no secret.
  const error = await unseal(dataKey, sealed, sealOwner("business_webhook", "biz_b", "biz_b"))
    .catch((e: Error) => e.message);
  assert.ok(typeof error === "string" && !error.includes("biz_") && !error.includes("whsec"));
  await assert.rejects(unseal(dataKey, { ...sealed, v: 3 as 2 }, "x"), /unknown version: 3/);
});

Deno.test("unseal(): a seal stored before owners were bound still unseals", async () => {
  const raw = crypto.getRandomValues(new Uint8Array(32));
  const dataKey = await importDataKey(raw);
  const old = await unboundSeal(raw, "whsec_from_before");
  // As stored: JSON in the state, the fields the earlier version wrote.
  const stored = JSON.parse(JSON.stringify(old)) as SealedSecret;
  assert.deepEqual(Object.keys(stored).sort(), ["data", "iv"]);
  assert.equal(
    await unseal(dataKey, stored, sealOwner("business_webhook", "biz_a", "biz_a")),
    "whsec_from_before",
  );
  const other = await importDataKey(crypto.getRandomValues(new Uint8Array(32)));
  await assert.rejects(unseal(other, stored, "x"), /does not unseal/);
});

Deno.test("hashPassword(): the production iterations unless given; a hash names its own count", async () => {
  const production = await hashPassword("a long passphrase 2026");
  assert.equal(production.split("$")[1], String(PBKDF2_ITERATIONS));
  assert.equal(await verifyPassword("a long passphrase 2026", production), true);
  // Tests' environments hash with fewer (Deps.passwordIterations): verified all the same.
  const fewer = await hashPassword("a long passphrase 2026", 1_000);
  assert.equal(fewer.split("$")[1], "1000");
  assert.equal(await verifyPassword("a long passphrase 2026", fewer), true);
  assert.equal(await verifyPassword("another passphrase 2026", fewer), false);
  assert.equal(await passwordMatches("a long passphrase 2026", fewer, 1_000), true);
  assert.equal(await passwordMatches("a long passphrase 2026", null, 1_000), false);
});
