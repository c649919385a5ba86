import assert from "node:assert/strict";
import fc from "fast-check";
import { PlainText } from "../../src/http/schemas.ts";

// The schemas spell the control characters as ranges (their OpenAPI `pattern` must be a regex as
// written): they refuse exactly what the Unicode class Cc names.
const CC = /^[^\p{Cc}]*$/u;
const CC_BUT_LINES = /^(?:[^\p{Cc}]|[\t\n\r])*$/u;

Deno.test("schemas: PlainText refuses exactly the Unicode control characters (Cc), as \\p{Cc} does", () => {
  const oneLine = PlainText(100_000);
  const lines = PlainText(100_000, { lines: true });
  // Every character up to U+00FF, and around the surrogates, inside text (trimming aside).
  for (const code of [...Array(0x100).keys(), 0xd7ff, 0xe000, 0xfeff, 0xffff]) {
    const text = `a${String.fromCharCode(code)}b`;
    assert.equal(oneLine.safeParse(text).success, CC.test(text), `U+${code.toString(16)}`);
    assert.equal(lines.safeParse(text).success, CC_BUT_LINES.test(text), `U+${code.toString(16)}`);
  }
  const unit = fc.oneof(
    fc.nat(0xff).map((c) => String.fromCharCode(c)),
    fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
  );
  fc.assert(fc.property(fc.string({ unit }), (s) => {
    const trimmed = s.trim();
    assert.equal(oneLine.safeParse(s).success, CC.test(trimmed));
    assert.equal(lines.safeParse(s).success, CC_BUT_LINES.test(trimmed));
  }));
});
