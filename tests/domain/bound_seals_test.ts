/**
 * Binding a seal made before seals were bound to their owner (issue 42 item 9, old data): the same
 * secret sealed again for its owner, unsealing there only; a held secret takes it only while it
 * is that secret and still unbound.
 */
import assert from "node:assert/strict";
import { boundSecrets, type WebhookSecret, withBoundSeal } from "../../src/domain/credentials.ts";
import {
  bindSeal,
  importDataKey,
  isBound,
  seal,
  sealOwner,
  unseal,
} from "../../src/domain/secrets.ts";

const OWNER = sealOwner("client_webhook", "biz_1", "cli_1");
const OTHER = sealOwner("client_webhook", "biz_2", "cli_1");

function base64url(b: Uint8Array): string {
  return btoa(String.fromCharCode(...b)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
}

/** A seal as made before b505d63: AES-GCM without additional data, no `v`. */
async function unboundSeal(key: CryptoKey, secret: string): Promise<WebhookSecret> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv },
    key,
    new TextEncoder().encode(secret),
  );
  return {
    iv: base64url(iv),
    data: base64url(new Uint8Array(data)),
    key_id: "whk_1",
    created_at: 1,
  };
}

Deno.test("secrets: an unbound seal bound for its owner unseals there only, keeping its key id and age", async () => {
  const key = await importDataKey(crypto.getRandomValues(new Uint8Array(32)));
  const old = await unboundSeal(key, "whsec_old");
  assert.ok(!isBound(old));
  assert.equal(await unseal(key, old, OTHER), "whsec_old", "an unbound seal unseals anywhere");
  const bound = await bindSeal(key, old, OWNER);
  assert.ok(isBound(bound));
  assert.equal(bound.key_id, "whk_1");
  assert.equal(bound.created_at, 1);
  assert.equal(await unseal(key, bound, OWNER), "whsec_old");
  await assert.rejects(() => unseal(key, bound, OTHER));
  assert.equal(await bindSeal(key, bound, OTHER), bound, "a bound seal is left as it is");
});

Deno.test("secrets: a held secret takes its bound seal only while unbound and the same secret", async () => {
  const key = await importDataKey(crypto.getRandomValues(new Uint8Array(32)));
  const old = await unboundSeal(key, "whsec_old");
  const both = await boundSecrets(key, { secret: old, previous: null }, OWNER);
  assert.ok(both && both.secret && both.previous === null);
  const taken = withBoundSeal(old, both.secret);
  assert.ok(taken && isBound(taken));
  assert.equal(withBoundSeal(taken, both.secret), null, "bound already");
  const rotated = { ...(await seal(key, "whsec_new", OWNER)), key_id: "whk_2", created_at: 2 };
  assert.equal(withBoundSeal({ ...old, key_id: "whk_2" }, both.secret), null, "another secret");
  assert.equal(await boundSecrets(key, { secret: rotated, previous: taken }, OWNER), null);
});
