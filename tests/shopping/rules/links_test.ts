import assert from "node:assert/strict";
import {
  linkClaimsOf,
  linkKeyOf,
  renewLink,
  signLink,
  verifyLink,
} from "../../../src/shopping/rules/links.ts";

const SHA = "ab".repeat(32);

Deno.test("shopping links: a signed link verifies until it expires, then answers link_expired", async () => {
  const key = await linkKeyOf("slk_test_key");
  const claims = {
    business: "biz_1",
    subject: { kind: "receipt" as const, reference: "BK-1", sha256: SHA },
    expires_at: 600_000,
  };
  const token = await signLink(key, claims);
  assert.match(token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  assert.deepEqual(await verifyLink(key, token, 600_000), { ok: true, claims });
  assert.deepEqual(await verifyLink(key, token, 600_001), { ok: false, reason: "link_expired" });
  const slip = await signLink(key, {
    business: "biz_1",
    subject: { kind: "packing_slip", reference: "BK-1" },
    expires_at: 5,
  });
  assert.deepEqual(linkClaimsOf(slip)?.subject, { kind: "packing_slip", reference: "BK-1" });
});

Deno.test("shopping links: any altered character, another key or other claims answer link_invalid", async () => {
  const key = await linkKeyOf("slk_test_key");
  const token = await signLink(key, {
    business: "biz_1",
    subject: { kind: "receipt", reference: "BK-1", sha256: SHA },
    expires_at: 600_000,
  });
  for (let i = 0; i < token.length; i++) {
    if (token[i] === ".") continue;
    const altered = token.slice(0, i) + (token[i] === "A" ? "B" : "A") + token.slice(i + 1);
    const v = await verifyLink(key, altered, 0);
    assert.deepEqual(v, { ok: false, reason: "link_invalid" }, `character ${i}`);
  }
  const other = await linkKeyOf("slk_other_key");
  assert.deepEqual(await verifyLink(other, token, 0), { ok: false, reason: "link_invalid" });
  assert.deepEqual(await verifyLink(null, token, 0), { ok: false, reason: "link_invalid" });
  // Claims re-encoded with a later expiry keep the old MAC: refused, never extended.
  const [, mac] = token.split(".");
  const later = btoa(JSON.stringify(["r", "biz_1", "BK-1", SHA, 9_999_999]))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  assert.deepEqual(await verifyLink(key, `${later}.${mac}`, 0), {
    ok: false,
    reason: "link_invalid",
  });
  for (const junk of ["", ".", "a.b.c", "bm90IGpzb24.x", "W10.x"]) {
    assert.deepEqual(await verifyLink(key, junk, 0), { ok: false, reason: "link_invalid" });
  }
});

Deno.test("shopping links: renewLink signs the same claims to a later time, and renews no altered link", async () => {
  const key = await linkKeyOf("slk_test_key");
  const claims = {
    business: "biz_1",
    subject: { kind: "receipt" as const, reference: "BK-1", sha256: SHA },
    expires_at: 600_000,
  };
  const token = await signLink(key, claims);
  // Renewed after it expired: it verified, only its time ran out.
  const renewed = await renewLink(key, token, 3_000_000);
  assert.ok(renewed);
  assert.deepEqual(await verifyLink(key, renewed, 3_000_000), {
    ok: true,
    claims: { ...claims, expires_at: 3_000_000 },
  });
  const altered = token.slice(0, 4) + (token[4] === "A" ? "B" : "A") + token.slice(5);
  assert.equal(await renewLink(key, altered, 3_000_000), null);
  assert.equal(await renewLink(await linkKeyOf("slk_other"), token, 3_000_000), null);
});
