import assert from "node:assert/strict";
import { weakPasswordReason } from "../../src/domain/passwords.ts";

const EMAIL = "Dispatch.Team@Example.com";

Deno.test("weakPasswordReason: refuses short, repeated, e-mail, sequential and common passwords", () => {
  const weak: Record<string, RegExp> = {
    "short": /at least 10 characters/,
    "zzzzzzzzzzzz": /one character repeated/,
    "dispatch.team@example.com": /e-mail/,
    "DISPATCH.TEAM": /e-mail/,
    "1234567890": /sequence/,
    "3456789012": /sequence/,
    "9876543210": /sequence/,
    "abcdefghijkl": /sequence/,
    "QPONMLKJIH": /sequence/,
    "password123": /common/,
    "Qwertyuiop": /common/,
  };
  for (const [password, reason] of Object.entries(weak)) {
    assert.match(weakPasswordReason(password, EMAIL) ?? "", reason, password);
  }
});

Deno.test("weakPasswordReason: accepts a sound password, even one holding weak parts", () => {
  for (
    const password of [
      "a-new-password-1",
      "correct horse battery",
      "dispatch.team-7781",
      "1234567890x",
      "aaaaaaaaab",
    ]
  ) {
    assert.equal(weakPasswordReason(password, EMAIL), null, password);
  }
});
