import assert from "node:assert/strict";
import {
  COUNTRY_CODES,
  CURRENCY_CODES,
  isCountryCode,
  isCurrencyCode,
} from "../../src/domain/iso_codes.ts";

Deno.test("isCurrencyCode() accepts active ISO 4217 codes, the shared ones included", () => {
  for (
    const code of ["BWP", "ZAR", "USD", "EUR", "GBP", "JPY", "KWD", "XAF", "XOF", "XPF", "XCD"]
  ) {
    assert.ok(isCurrencyCode(code), code);
  }
  // Recent amendments: the Caribbean guilder and the Zimbabwe gold.
  assert.ok(isCurrencyCode("XCG"));
  assert.ok(isCurrencyCode("ZWG"));
});

Deno.test("isCurrencyCode() refuses well-shaped inventions, test codes, withdrawn codes and other shapes", () => {
  for (const code of ["XYZ", "ABC", "AAA", "XXX", "XTS", "XAU", "HRK", "ANG", "ZWL", "DEM"]) {
    assert.equal(isCurrencyCode(code), false, code);
  }
  for (const code of ["bwp", "Bwp", "BW", "BWPX", " BWP", "", "BWP\n"]) {
    assert.equal(isCurrencyCode(code), false, JSON.stringify(code));
  }
});

Deno.test("isCountryCode() accepts the 249 officially assigned ISO 3166-1 alpha-2 codes", () => {
  assert.equal(COUNTRY_CODES.length, 249);
  assert.equal(new Set(COUNTRY_CODES).size, 249);
  for (const code of COUNTRY_CODES) assert.match(code, /^[A-Z]{2}$/);
  for (const code of ["BW", "ZA", "NA", "ZW", "GB", "US", "SS", "AX"]) {
    assert.ok(isCountryCode(code), code);
  }
});

Deno.test("isCountryCode() refuses user-assigned, reserved and withdrawn codes and other shapes", () => {
  // ZZ, AA, QM-QZ and XA-XZ are user-assigned; UK and EU are reserved; YU and AN are withdrawn.
  for (const code of ["ZZ", "AA", "QZ", "XX", "XK", "UK", "EU", "YU", "AN"]) {
    assert.equal(isCountryCode(code), false, code);
  }
  for (const code of ["bw", "Bw", "BWA", "B", "", " BW"]) {
    assert.equal(isCountryCode(code), false, JSON.stringify(code));
  }
});

Deno.test("CURRENCY_CODES and COUNTRY_CODES are sorted, each code listed once", () => {
  assert.equal(new Set(CURRENCY_CODES).size, CURRENCY_CODES.length);
  for (const code of CURRENCY_CODES) assert.match(code, /^[A-Z]{3}$/);
  assert.deepEqual([...CURRENCY_CODES].sort(), CURRENCY_CODES, "sorted");
  assert.deepEqual([...COUNTRY_CODES].sort(), COUNTRY_CODES, "sorted");
});
