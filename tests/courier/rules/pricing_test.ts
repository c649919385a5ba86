import assert from "node:assert/strict";
import fc from "fast-check";
import {
  chargeableGrams,
  gramsFromKg,
  type ParcelInput,
  possibleLaterCharges,
  PRICE_LINE_CODES,
  PRICE_MINOR_MAX,
  type PriceLine,
  priceOption,
  PriceOutOfRange,
  type PricingInput,
  type ServicePricing,
  volumetricGrams,
} from "../../../src/courier/rules/pricing.ts";
import {
  type Corridor,
  RATE_CARD_AMOUNT_MINOR_MAX,
  type RateCardTerms,
} from "../../../src/courier/rules/rate_card.ts";

/** A BWP card with every optional term at zero; each test switches on what it exercises. */
function bwpTerms(overrides: Partial<RateCardTerms> = {}): RateCardTerms {
  return {
    currency: "BWP",
    base_charge: 5000,
    per_kg: 1000,
    included_grams: 1000,
    volumetric_divisor: 5000,
    minimum_charge: 0,
    collection_fee: 0,
    delivery_fee: 0,
    discount_bp: 0,
    surcharge_bp: 0,
    tax_bp: 1400,
    tax_inclusive: false,
    tax_label: "VAT 14%",
    corridors: [],
    liability_cover_bp: 0,
    redelivery_fee: 0,
    return_fee: 0,
    claim_window_days: 0,
    customs_admin_fee: 0,
    errand_fee: 0,
    failed_collection_fee: 0,
    cold_chain_fee: 0,
    waiting_fee: 0,
    ...overrides,
  };
}

const STANDARD: ServicePricing = { code: "standard", name: "Standard", adjustment_bp: 0 };

function input(parcels: ParcelInput[], overrides: Partial<PricingInput> = {}): PricingInput {
  return {
    parcels,
    from_country: "BW",
    to_country: "BW",
    declared_value_minor: null,
    liability_cover: false,
    ...overrides,
  };
}

function parcel(weight_kg: number, l = 10, w = 10, h = 10): ParcelInput {
  return { weight_kg, length_cm: l, width_cm: w, height_cm: h };
}

/** Lines as `code=amount` for compact, exact comparison. */
function summary(lines: readonly PriceLine[]): string[] {
  return lines.map((l) => `${l.code}=${l.amount_minor}`);
}

function sum(lines: readonly PriceLine[]): number {
  return lines.reduce((s, l) => s + l.amount_minor, 0);
}

Deno.test("pricing: BWP worked example with 10% discount and 14% exclusive VAT", () => {
  // 2.5 kg, 10x10x10 cm (volumetric 200 g): chargeable 2500 g, 1500 g above the included 1 kg.
  // transport 50.00 + 10.00 * 1.5 = 65.00; discount 10% = -6.50; net 58.50; VAT 14% = 8.19.
  const priced = priceOption(bwpTerms({ discount_bp: 1000 }), STANDARD, input([parcel(2.5)]));
  assert.equal(priced.chargeable_grams, 2500);
  assert.deepEqual(summary(priced.lines), ["transport=6500", "discount=-650", "tax=819"]);
  assert.deepEqual(priced.lines[0], { code: "transport", label: "Transport", amount_minor: 6500 });
  assert.deepEqual(priced.lines[2], {
    code: "tax",
    label: "VAT 14%",
    amount_minor: 819,
    included: false,
    tax_minor: 819,
  });
  assert.equal(priced.tax_minor, 819);
  assert.equal(priced.total_minor, 6669);
  assert.equal(priced.currency, "BWP");
  assert.equal(priced.corridor, null);
  assert.equal(priced.cross_border, false);
});

Deno.test("pricing: every line in spec order with hand-computed figures", () => {
  // 3 kg: transport 50.00 + 10.00 * 2 = 70.00; collection 5.00; delivery 7.50;
  // Express +20% of transport = 14.00; cover 1.5% of 2,000.00 = 30.00; subtotal 126.50;
  // discount 10% = -12.65 -> 113.85; surcharge 3% = 3.4155 -> 3.42 -> 117.27;
  // minimum 150.00 -> top-up 32.73; VAT 14% of 150.00 = 21.00; total 171.00.
  const terms = bwpTerms({
    collection_fee: 500,
    delivery_fee: 750,
    liability_cover_bp: 150,
    discount_bp: 1000,
    surcharge_bp: 300,
    minimum_charge: 15000,
  });
  const express = { code: "express", name: "Express", adjustment_bp: 2000 };
  const priced = priceOption(
    terms,
    express,
    input([parcel(3)], { declared_value_minor: 200000, liability_cover: true }),
  );
  assert.deepEqual(summary(priced.lines), [
    "transport=7000",
    "collection=500",
    "delivery=750",
    "service_level=1400",
    "liability_cover=3000",
    "discount=-1265",
    "surcharge=342",
    "minimum_top_up=3273",
    "tax=2100",
  ]);
  assert.equal(priced.lines[3]?.label, "Service level: Express");
  assert.equal(priced.code, "express");
  assert.equal(priced.total_minor, 17100);
  assert.equal(sum(priced.lines), priced.total_minor);
});

Deno.test("pricing: volumetric weight beats actual weight", () => {
  // 40x30x20 cm = 24,000 cm3 / 5000 = 4.8 kg > 1 kg actual; transport 50.00 + 10.00 * 3.8 = 88.00.
  const priced = priceOption(bwpTerms({ tax_bp: 0 }), STANDARD, input([parcel(1, 40, 30, 20)]));
  assert.equal(priced.chargeable_grams, 4800);
  assert.deepEqual(summary(priced.lines), ["transport=8800", "tax=0"]);
  assert.equal(priced.total_minor, 8800);
});

Deno.test("pricing: chargeable grams sum per-parcel maxima", () => {
  // 5 kg actual (volumetric 200 g) + 0.5 kg actual (volumetric 4800 g) = 9800 g, not 5.5 kg.
  assert.equal(chargeableGrams([parcel(5), parcel(0.5, 40, 30, 20)], 5000), 9800);
});

Deno.test("pricing: weights read from decimal text, not float multiplication", () => {
  assert.equal(gramsFromKg(2.35), 2350);
  assert.equal(gramsFromKg(1.005), 1005); // 1.005 * 1000 is 1004.9999999999999 in floats
  assert.equal(gramsFromKg(0.0005), 1); // half up past 3 decimals
  assert.equal(gramsFromKg(0.0004), 0);
  assert.equal(gramsFromKg(1e-7), 0);
  assert.equal(gramsFromKg(1000), 1_000_000);
});

Deno.test("pricing: volumetric grams are exact for decimal centimetres and round up", () => {
  // 10.5 * 10 * 10 = 1050 cm3 -> 1050 * 1000 / 5000 = 210 g exactly.
  assert.equal(volumetricGrams(parcel(1, 10.5, 10, 10), 5000), 210);
  // 33.3^3 = 36,926.037 cm3 -> 7,385.2074 g -> 7386 g.
  assert.equal(volumetricGrams(parcel(1, 33.3, 33.3, 33.3), 5000), 7386);
  // 0.01^3 cm3 is a tiny positive volume: still at least 1 g.
  assert.equal(volumetricGrams(parcel(1, 0.01, 0.01, 0.01), 5000), 1);
});

Deno.test("pricing: corridor price applies to its exact direction only", () => {
  const corridor: Corridor = {
    from: "BW",
    to: "ZA",
    base_charge: 12000,
    per_kg: 1500,
    label: "Gaborone to Johannesburg",
  };
  const terms = bwpTerms({ corridors: [corridor] });
  // 2.5 kg: 120.00 + 15.00 * 1.5 = 142.50; VAT 14% = 19.95; total 162.45.
  const out = priceOption(terms, STANDARD, input([parcel(2.5)], { to_country: "ZA" }));
  assert.deepEqual(out.lines[0], {
    code: "transport",
    label: "Gaborone to Johannesburg",
    amount_minor: 14250,
  });
  assert.deepEqual(summary(out.lines), ["transport=14250", "tax=1995"]);
  assert.equal(out.total_minor, 16245);
  assert.equal(out.corridor, "BW-ZA");
  assert.equal(out.cross_border, true);
  // The reverse direction has no corridor: card transport 65.00 + VAT 9.10.
  const back = priceOption(
    terms,
    STANDARD,
    input([parcel(2.5)], { from_country: "ZA", to_country: "BW" }),
  );
  assert.deepEqual(summary(back.lines), ["transport=6500", "tax=910"]);
  assert.equal(back.corridor, null);
  assert.equal(back.cross_border, true);
});

Deno.test("pricing: inclusive tax is within the price and its line adds nothing", () => {
  // base 114.00 inclusive of 14%: net of tax 100.00, tax 14.00, total stays 114.00.
  const terms = bwpTerms({ base_charge: 11400, per_kg: 0, tax_inclusive: true });
  const priced = priceOption(terms, STANDARD, input([parcel(1)]));
  assert.deepEqual(priced.lines, [
    { code: "transport", label: "Transport", amount_minor: 11400 },
    { code: "tax", label: "VAT 14%", amount_minor: 0, included: true, tax_minor: 1400 },
  ]);
  assert.equal(priced.tax_minor, 1400);
  assert.equal(priced.total_minor, 11400);
});

Deno.test("pricing: inclusive tax rounds half away from zero on the net", () => {
  // 100.00 inclusive of 14%: 10000 * 10000 / 11400 = 8771.93 -> 8772 net, tax 12.28.
  const terms = bwpTerms({ base_charge: 10000, per_kg: 0, tax_inclusive: true });
  const priced = priceOption(terms, STANDARD, input([parcel(1)]));
  assert.equal(priced.tax_minor, 1228);
  assert.equal(priced.total_minor, 10000);
});

Deno.test("pricing: minimum charge tops the net up before tax", () => {
  // transport 10.00 < minimum 25.00: top-up 15.00; VAT 14% of 25.00 = 3.50; total 28.50.
  const terms = bwpTerms({ base_charge: 1000, per_kg: 0, minimum_charge: 2500 });
  const priced = priceOption(terms, STANDARD, input([parcel(1)]));
  assert.deepEqual(summary(priced.lines), ["transport=1000", "minimum_top_up=1500", "tax=350"]);
  assert.equal(priced.total_minor, 2850);
});

Deno.test("pricing: liability cover is a share of the declared value, only when asked", () => {
  // 1.5% of 5,000.00 = 75.00; net 65.00 + 75.00 = 140.00; VAT 19.60; total 159.60.
  const terms = bwpTerms({ liability_cover_bp: 150 });
  const covered = input([parcel(2.5)], { declared_value_minor: 500000, liability_cover: true });
  const priced = priceOption(terms, STANDARD, covered);
  assert.deepEqual(summary(priced.lines), ["transport=6500", "liability_cover=7500", "tax=1960"]);
  assert.equal(priced.total_minor, 15960);
  const notAsked = { ...covered, liability_cover: false };
  assert.deepEqual(summary(priceOption(terms, STANDARD, notAsked).lines), [
    "transport=6500",
    "tax=910",
  ]);
  const noValue = { ...covered, declared_value_minor: null };
  assert.deepEqual(summary(priceOption(terms, STANDARD, noValue).lines), [
    "transport=6500",
    "tax=910",
  ]);
});

Deno.test("pricing: a negative service adjustment lowers the price", () => {
  // Economy -15% of 65.00 = -9.75; net 55.25; VAT 14% = 7.735 -> 7.74; total 62.99.
  const economy = { code: "economy", name: "Economy", adjustment_bp: -1500 };
  const priced = priceOption(bwpTerms(), economy, input([parcel(2.5)]));
  assert.deepEqual(summary(priced.lines), ["transport=6500", "service_level=-975", "tax=774"]);
  assert.equal(priced.lines[1]?.label, "Service level: Economy");
  assert.equal(priced.total_minor, 6299);
});

Deno.test("pricing: with every optional term zero only transport and tax appear", () => {
  const priced = priceOption(
    bwpTerms(),
    STANDARD,
    input([parcel(0.4)], { declared_value_minor: 100000, liability_cover: true }),
  );
  // 0.4 kg is within the included kg: transport is the base 50.00; VAT 7.00.
  assert.deepEqual(summary(priced.lines), ["transport=5000", "tax=700"]);
  assert.equal(priced.total_minor, 5700);
});

Deno.test("pricing: impossible input throws RangeError", () => {
  const terms = bwpTerms();
  assert.throws(() => priceOption(terms, STANDARD, input([])), RangeError);
  for (
    const bad of [
      parcel(0),
      parcel(-1),
      parcel(Number.NaN),
      parcel(Number.POSITIVE_INFINITY),
      parcel(1, 0, 10, 10),
      parcel(1, 10, -5, 10),
      parcel(1, 10, 10, Number.NaN),
    ]
  ) {
    assert.throws(() => priceOption(terms, STANDARD, input([bad])), RangeError);
  }
  assert.throws(() => chargeableGrams([parcel(1)], 0), RangeError);
  assert.throws(
    () => priceOption(terms, { ...STANDARD, adjustment_bp: -10001 }, input([parcel(1)])),
    RangeError,
  );
  assert.throws(
    () => priceOption(bwpTerms({ per_kg: 1.5 }), STANDARD, input([parcel(1)])),
    RangeError,
  );
});

Deno.test("pricing: a weight or price past the exact range throws PriceOutOfRange naming the request field", () => {
  const huge = parcel(1, 10_000, 10_000, 10_000); // 10^12 cm³
  const refusedOn = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      assert.ok(e instanceof PriceOutOfRange, String(e));
      assert.match(e.message, /too large to (price|state) exactly/);
      return e.field;
    }
    assert.fail("priced");
  };
  // 50 x 10^15 volumetric grams: more grams than an integer holds exactly.
  const heavy = input(Array.from({ length: 50 }, () => huge));
  assert.equal(
    refusedOn(() => priceOption(bwpTerms({ volumetric_divisor: 1 }), STANDARD, heavy)),
    "parcels",
  );
  assert.equal(refusedOn(() => chargeableGrams(heavy.parcels, 1)), "parcels");
  // 10^12 kg at 100.00 per kg: the transport line is past the exact range.
  const dear = bwpTerms({ volumetric_divisor: 1, per_kg: 10_000 });
  assert.equal(refusedOn(() => priceOption(dear, STANDARD, input([huge]))), "parcels");
  // A cover of the whole declared value, taxed: past the exact range through the cover.
  const covered = input([parcel(1)], {
    declared_value_minor: Number.MAX_SAFE_INTEGER - 1,
    liability_cover: true,
  });
  assert.equal(
    refusedOn(() => priceOption(bwpTerms({ liability_cover_bp: 10_000 }), STANDARD, covered)),
    "declared_value",
  );
  // A broken card is not the request's fault: a plain RangeError, not PriceOutOfRange.
  assert.throws(
    () =>
      priceOption(
        bwpTerms({ base_charge: Number.MAX_SAFE_INTEGER + 2 }),
        STANDARD,
        input([parcel(1)]),
      ),
    (e: unknown) => e instanceof RangeError && !(e instanceof PriceOutOfRange),
  );
});

Deno.test("pricing: a price a JSON number cannot state exactly (16 digits) is refused on the request field, never shown rounded", () => {
  // spec: courier 2.2 rule 1, 9.4: amounts are decimals; 89999999999979.99 read as a JSON number
  // (a double) is 89999999999979.98, so the lines shown would not be the ones charged.
  const covered = (minor: number) =>
    input([parcel(1)], { declared_value_minor: minor, liability_cover: true });
  const whole = bwpTerms({ liability_cover_bp: 10_000, tax_bp: 0, base_charge: 0, per_kg: 0 });
  assert.throws(
    () => priceOption(whole, STANDARD, covered(8_999_999_999_997_999)),
    (e: unknown) => e instanceof PriceOutOfRange && e.field === "declared_value",
  );
  // 15 digits always state exactly: the largest such price is still priced.
  const out = priceOption(whole, STANDARD, covered(PRICE_MINOR_MAX));
  assert.equal(out.total_minor, PRICE_MINOR_MAX);
  assert.throws(
    () => priceOption(whole, STANDARD, covered(PRICE_MINOR_MAX + 1)),
    (e: unknown) => e instanceof PriceOutOfRange && e.field === "declared_value",
  );
  // The same bound through the weight: refused on parcels.
  const heavy = input([parcel(100_000_000)]);
  assert.throws(
    () => priceOption(bwpTerms({ per_kg: 50_000_000, tax_bp: 0 }), STANDARD, heavy),
    (e: unknown) => e instanceof PriceOutOfRange && e.field === "parcels",
  );
});

Deno.test("pricing: a card within the publication bounds prices any accepted request, or refuses it on the request (property)", () => {
  const bound = fc.integer({ min: 0, max: RATE_CARD_AMOUNT_MINOR_MAX });
  const cardArb = fc.record({
    base_charge: bound,
    per_kg: fc.oneof(fc.constant(0), bound),
    included_grams: fc.integer({ min: 0, max: 1_000_000_000 }),
    volumetric_divisor: fc.integer({ min: 1, max: 1_000_000 }),
    minimum_charge: bound,
    collection_fee: bound,
    delivery_fee: bound,
    discount_bp: fc.integer({ min: 0, max: 10_000 }),
    surcharge_bp: fc.integer({ min: 0, max: 100_000 }),
    tax_bp: fc.integer({ min: 0, max: 10_000 }),
    tax_inclusive: fc.boolean(),
    liability_cover_bp: fc.integer({ min: 0, max: 10_000 }),
  }).map((t) => bwpTerms(t));
  // The price request's own bounds (routes/courier/answers/booking.ts PriceRequest).
  const parcelArb = fc.record({
    weight_kg: fc.integer({ min: 1, max: 100_000_000 }).map((g) => g / 1000),
    length_cm: fc.integer({ min: 1, max: 10_000 }),
    width_cm: fc.integer({ min: 1, max: 10_000 }),
    height_cm: fc.integer({ min: 1, max: 10_000 }),
  });
  const requestArb = fc.record({
    parcels: fc.array(parcelArb, { minLength: 1, maxLength: 50 }),
    declared_value_minor: fc.option(fc.maxSafeNat(), { nil: null }),
  });
  const service = fc.integer({ min: -10_000, max: 100_000 });
  fc.assert(
    fc.property(cardArb, service, requestArb, (terms, adjustment_bp, req) => {
      const inp = input(req.parcels, { ...req, liability_cover: true });
      try {
        const out = priceOption(terms, { ...STANDARD, adjustment_bp }, inp);
        assert.ok(Number.isSafeInteger(out.total_minor));
        assert.equal(sum(out.lines), out.total_minor);
      } catch (e) {
        assert.ok(e instanceof PriceOutOfRange, String(e));
      }
      // Without a per-kg rate or a declared value, the card's own amounts always price.
      const fixed = { ...terms, per_kg: 0 };
      const plain = input(req.parcels.slice(0, 1));
      assert.ok(
        Number.isSafeInteger(priceOption(fixed, { ...STANDARD, adjustment_bp }, plain).total_minor),
      );
    }),
    RUNS,
  );
});

Deno.test("pricing: possible later charges name duties, the customs fee and evidence", () => {
  const text = possibleLaterCharges(bwpTerms({ customs_admin_fee: 15000 }), "BW", "ZA");
  assert.ok(text !== null);
  assert.match(text, /duties/);
  assert.match(text, /recoverable/);
  assert.match(text, /customs administration fee of 150\.00 BWP per crossing cleared/);
  assert.match(text, /exceptional customs charges/);
  assert.match(text, /evidence/);
  assert.equal(possibleLaterCharges(bwpTerms({ customs_admin_fee: 15000 }), "BW", "BW"), null);
  const noFee = possibleLaterCharges(bwpTerms(), "BW", "ZA");
  assert.ok(noFee !== null && !noFee.includes("administration fee"));
});

// --- properties -------------------------------------------------------------------------------

/** spec: courier 2.2 line order; transport and corridor share the first place. */
const ORDER: readonly string[] = PRICE_LINE_CODES;

function rank(code: string): number {
  return ORDER.indexOf(code);
}

const COUNTRIES = ["BW", "ZA", "NA", "ZM"];
const amount = fc.integer({ min: 0, max: 10_000_000 });
const bp = fc.integer({ min: 0, max: 5000 });
const country = fc.constantFrom(...COUNTRIES);

const corridorArb: fc.Arbitrary<Corridor> = fc.record({
  from: country,
  to: country,
  base_charge: amount,
  per_kg: amount,
  label: fc.string({ minLength: 1, maxLength: 20 }),
});

const termsArb: fc.Arbitrary<RateCardTerms> = fc
  .record({
    base_charge: amount,
    per_kg: amount,
    included_grams: fc.integer({ min: 0, max: 100_000 }),
    volumetric_divisor: fc.integer({ min: 1000, max: 10_000 }),
    minimum_charge: amount,
    collection_fee: amount,
    delivery_fee: amount,
    discount_bp: bp,
    surcharge_bp: bp,
    tax_bp: bp,
    tax_inclusive: fc.boolean(),
    corridors: fc.array(corridorArb, { maxLength: 4 }),
    liability_cover_bp: bp,
    customs_admin_fee: amount,
  })
  .map((t) => bwpTerms({ ...t, tax_label: "Tax" }));

/** Weights with up to 3 decimals (whole grams), dims in whole millimetres. */
const parcelArb: fc.Arbitrary<ParcelInput> = fc.record({
  weight_kg: fc.integer({ min: 1, max: 1_000_000 }).map((g) => g / 1000),
  length_cm: fc.integer({ min: 10, max: 3000 }).map((mm) => mm / 10),
  width_cm: fc.integer({ min: 10, max: 3000 }).map((mm) => mm / 10),
  height_cm: fc.integer({ min: 10, max: 3000 }).map((mm) => mm / 10),
});

const inputArb: fc.Arbitrary<PricingInput> = fc.record({
  parcels: fc.array(parcelArb, { minLength: 1, maxLength: 10 }),
  from_country: country,
  to_country: country,
  declared_value_minor: fc.option(amount, { nil: null }),
  liability_cover: fc.boolean(),
});

const serviceArb: fc.Arbitrary<ServicePricing> = fc.record({
  code: fc.constantFrom("standard", "express", "economy"),
  name: fc.constantFrom("Standard", "Express", "Economy"),
  adjustment_bp: fc.integer({ min: -5000, max: 5000 }),
});

const RUNS = { numRuns: 300 };

Deno.test("pricing: lines always add up to the total (property)", () => {
  fc.assert(
    fc.property(termsArb, serviceArb, inputArb, (terms, service, inp) => {
      const priced = priceOption(terms, service, inp);
      assert.equal(sum(priced.lines), priced.total_minor);
    }),
    RUNS,
  );
});

Deno.test("pricing: line order follows spec 2.2, transport first and tax once, last (property)", () => {
  fc.assert(
    fc.property(termsArb, serviceArb, inputArb, (terms, service, inp) => {
      const codes = priceOption(terms, service, inp).lines.map((l) => l.code);
      assert.equal(codes[0], "transport", codes.join(","));
      assert.equal(codes.at(-1), "tax");
      assert.equal(codes.filter((c) => c === "tax").length, 1);
      const ranks = codes.map(rank);
      assert.ok(ranks.every((r) => r >= 0), codes.join(","));
      assert.ok(ranks.every((r, i) => i === 0 || r > (ranks[i - 1] ?? -1)), codes.join(","));
    }),
    RUNS,
  );
});

Deno.test("pricing: total is never below the minimum charge and amounts are safe integers (property)", () => {
  fc.assert(
    fc.property(termsArb, serviceArb, inputArb, (terms, service, inp) => {
      const out = priceOption(terms, service, inp);
      assert.ok(out.total_minor >= terms.minimum_charge, `${out.total_minor}`);
      const amounts = [
        out.total_minor,
        out.tax_minor,
        out.chargeable_grams,
        ...out.lines.map((l) => l.amount_minor),
      ];
      assert.ok(amounts.every(Number.isSafeInteger), amounts.join(","));
      assert.ok(out.lines.slice(0, -1).every((l) => l.amount_minor !== 0 || l === out.lines[0]));
    }),
    RUNS,
  );
});

Deno.test("pricing: tax line matches the tax mode and the net (property)", () => {
  fc.assert(
    fc.property(termsArb, serviceArb, inputArb, (terms, service, inp) => {
      const out = priceOption(terms, service, inp);
      const tax = out.lines.at(-1);
      const net = sum(out.lines.slice(0, -1));
      assert.equal(tax?.tax_minor, out.tax_minor);
      assert.equal(tax?.included, terms.tax_inclusive);
      assert.ok(out.tax_minor >= 0 && out.tax_minor <= Math.max(net, out.total_minor));
      assert.equal(out.total_minor, terms.tax_inclusive ? net : net + out.tax_minor);
    }),
    RUNS,
  );
});

Deno.test("pricing: corridor applies iff one matches the route exactly (property)", () => {
  fc.assert(
    fc.property(termsArb, serviceArb, inputArb, (terms, service, inp) => {
      const out = priceOption(terms, service, inp);
      const match = terms.corridors.find((c) =>
        c.from === inp.from_country && c.to === inp.to_country
      );
      assert.equal(out.lines[0]?.code, "transport");
      assert.equal(out.lines[0]?.label, match ? match.label : "Transport");
      assert.equal(out.corridor, match ? `${match.from}-${match.to}` : null);
      assert.equal(out.cross_border, inp.from_country !== inp.to_country);
    }),
    RUNS,
  );
});

Deno.test("pricing: grams from kg is exact for every 3-decimal weight (property)", () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 1_000_000_000 }), (g) => {
      assert.equal(gramsFromKg(g / 1000), g);
    }),
    RUNS,
  );
});

Deno.test("pricing: chargeable weight is the sum over parcels of max(real, volumetric by the card's divisor), and transport charges only past the included kg (property)", () => {
  // Weights in whole grams and sides in whole millimetres, so the expected figures are exact
  // integer arithmetic, independent of the decimal reading in pricing.ts.
  const piece = fc.record({
    grams: fc.integer({ min: 1, max: 5_000_000 }),
    mm: fc.tuple(
      fc.integer({ min: 1, max: 30_000 }),
      fc.integer({ min: 1, max: 30_000 }),
      fc.integer({ min: 1, max: 30_000 }),
    ),
  });
  fc.assert(
    fc.property(
      fc.array(piece, { minLength: 1, maxLength: 8 }),
      fc.integer({ min: 1, max: 1_000_000 }),
      fc.integer({ min: 0, max: 10_000_000 }),
      amount,
      amount,
      (pieces, divisor, included, base, perKg) => {
        const parcels = pieces.map((p) => ({
          weight_kg: p.grams / 1000,
          length_cm: p.mm[0] / 10,
          width_cm: p.mm[1] / 10,
          height_cm: p.mm[2] / 10,
        }));
        // cm³ = mm³ / 1000; grams = ceil(cm³ * 1000 / divisor) = ceil(mm³ / divisor).
        const expected = pieces.reduce((s, p) => {
          const mm3 = BigInt(p.mm[0]) * BigInt(p.mm[1]) * BigInt(p.mm[2]);
          const vol = Number((mm3 + BigInt(divisor) - 1n) / BigInt(divisor));
          return s + Math.max(p.grams, vol);
        }, 0);
        assert.equal(chargeableGrams(parcels, divisor), expected);
        const terms = bwpTerms({
          volumetric_divisor: divisor,
          included_grams: included,
          base_charge: base,
          per_kg: perKg,
          tax_bp: 0,
        });
        const over = BigInt(Math.max(0, expected - included)) * BigInt(perKg);
        const extra = (over * 2n + 1000n) / 2000n; // half up, as minor units
        if (BigInt(base) + extra > BigInt(PRICE_MINOR_MAX)) {
          assert.throws(() => priceOption(terms, STANDARD, input(parcels)), PriceOutOfRange);
          return;
        }
        const out = priceOption(terms, STANDARD, input(parcels));
        assert.equal(out.chargeable_grams, expected);
        assert.equal(out.lines[0]?.amount_minor, base + Number(extra));
      },
    ),
    RUNS,
  );
});

Deno.test("pricing: a line is negative only where it lowers the price (discount, a cheaper service level), and inclusive tax is the share of the total at the card's rate (property)", () => {
  fc.assert(
    fc.property(termsArb, serviceArb, inputArb, (terms, service, inp) => {
      const out = priceOption(terms, service, inp);
      for (const l of out.lines) {
        if (l.code === "discount") assert.ok(l.amount_minor < 0, `${l.code}=${l.amount_minor}`);
        else if (l.code === "service_level") {
          assert.equal(Math.sign(l.amount_minor), Math.sign(service.adjustment_bp));
        } else assert.ok(l.amount_minor >= 0, `${l.code}=${l.amount_minor}`);
      }
      const tax = out.lines.at(-1)!;
      if (terms.tax_inclusive) {
        // total = net + tax, net = total / (1 + rate) to the nearest minor unit: then
        // |net * rate - tax| is at most half a minor unit times (1 + rate).
        const net = out.total_minor - out.tax_minor;
        const diff = BigInt(net) * BigInt(terms.tax_bp) - BigInt(out.tax_minor) * 10_000n;
        const abs = diff < 0n ? -diff : diff;
        assert.ok(2n * abs <= BigInt(10_000 + terms.tax_bp), `${net} + ${out.tax_minor}`);
        assert.equal(tax.amount_minor, 0);
      } else {
        assert.equal(tax.amount_minor, tax.tax_minor);
      }
    }),
    RUNS,
  );
});

/**
 * An independent reckoning of one option (spec: courier 2.2 line order, 2.4 terms), in bigint
 * with its own half-away-from-zero rounding, so that a wrong base, order or rounding in
 * pricing.ts shows as a different line rather than as lines that still add up to themselves.
 */
function reckon(terms: RateCardTerms, adjustmentBp: number, inp: PricingInput) {
  const div = (n: bigint, d: bigint) =>
    (n < 0n ? -1n : 1n) * ((2n * (n < 0n ? -n : n) + d) / (2n * d));
  const exact = (x: number): [bigint, bigint] => {
    const [whole, fraction = ""] = String(x).split(".");
    return [BigInt(`${whole}${fraction}`), 10n ** BigInt(fraction.length)];
  };
  const grams = inp.parcels.reduce((sum, p) => {
    const [wn, wd] = exact(p.weight_kg);
    const real = div(wn * 1000n, wd);
    const sides = [p.length_cm, p.width_cm, p.height_cm].map(exact);
    const vn = sides.reduce((a, [n]) => a * n, 1000n);
    const vd = sides.reduce((a, [, d]) => a * d, BigInt(terms.volumetric_divisor));
    const volumetric = (vn + vd - 1n) / vd;
    return sum + (real > volumetric ? real : volumetric);
  }, 0n);
  const corridor = terms.corridors.find((c) =>
    c.from === inp.from_country && c.to === inp.to_country
  );
  const over = grams - BigInt(terms.included_grams);
  const transport = BigInt(corridor?.base_charge ?? terms.base_charge) +
    div(BigInt(corridor?.per_kg ?? terms.per_kg) * (over > 0n ? over : 0n), 1000n);
  const lines: [string, bigint][] = [["transport", transport]];
  const net = () => lines.reduce((s, [, a]) => s + a, 0n);
  const add = (code: string, a: bigint) => a !== 0n && lines.push([code, a]);
  add("collection", BigInt(terms.collection_fee));
  add("delivery", BigInt(terms.delivery_fee));
  add("service_level", div(transport * BigInt(adjustmentBp), 10_000n));
  const declared = BigInt(inp.liability_cover ? inp.declared_value_minor ?? 0 : 0);
  add("liability_cover", div(declared * BigInt(terms.liability_cover_bp), 10_000n));
  add("discount", -div(net() * BigInt(terms.discount_bp), 10_000n));
  add("surcharge", div(net() * BigInt(terms.surcharge_bp), 10_000n));
  const short = BigInt(terms.minimum_charge) - net();
  add("minimum_top_up", short > 0n ? short : 0n);
  const beforeTax = net();
  const tax = terms.tax_inclusive
    ? beforeTax - div(beforeTax * 10_000n, 10_000n + BigInt(terms.tax_bp))
    : div(beforeTax * BigInt(terms.tax_bp), 10_000n);
  lines.push(["tax", terms.tax_inclusive ? 0n : tax]);
  return {
    grams: Number(grams),
    lines: lines.map(([code, a]) => `${code}=${a}`),
    tax: Number(tax),
    total: Number(net()),
  };
}

Deno.test("pricing: every line, the tax and the total equal an independent reckoning, with inclusive or exclusive tax, corridors, minimum charge, discount, surcharge and liability cover together (property)", () => {
  // Weights up to 4 decimals (rounded to grams) and decimal sides; small amounts too, where a
  // rounding taken in the wrong place shows. Every term of 2.4 that prices an option varies.
  const money = fc.oneof(fc.integer({ min: 0, max: 500 }), amount);
  const decimals = (max: number, places: number) =>
    fc.integer({ min: 1, max: max * 10 ** places }).map((n) => n / 10 ** places);
  const terms = fc.record({
    base_charge: money,
    per_kg: money,
    included_grams: fc.integer({ min: 0, max: 20_000 }),
    volumetric_divisor: fc.integer({ min: 1_000, max: 10_000 }),
    minimum_charge: money,
    collection_fee: money,
    delivery_fee: money,
    discount_bp: fc.integer({ min: 0, max: 10_000 }),
    surcharge_bp: fc.integer({ min: 0, max: 100_000 }),
    tax_bp: fc.integer({ min: 0, max: 10_000 }),
    tax_inclusive: fc.boolean(),
    liability_cover_bp: fc.integer({ min: 0, max: 10_000 }),
    corridors: fc.uniqueArray(corridorArb, {
      maxLength: 4,
      selector: (c) => `${c.from}>${c.to}`,
    }),
  }).map((t) => bwpTerms({ ...t, tax_label: "Tax" }));
  const parcels = fc.array(
    fc.record({
      weight_kg: fc.oneof(decimals(200, 4), decimals(200, 1)),
      length_cm: decimals(150, 2),
      width_cm: decimals(150, 1),
      height_cm: decimals(150, 0),
    }),
    { minLength: 1, maxLength: 5 },
  );
  const request = fc.record({
    parcels,
    from_country: country,
    to_country: country,
    declared_value_minor: fc.option(money, { nil: null }),
    liability_cover: fc.boolean(),
  });
  fc.assert(
    fc.property(terms, fc.integer({ min: -10_000, max: 10_000 }), request, (t, bp, inp) => {
      const out = priceOption(t, { code: "express", name: "Express", adjustment_bp: bp }, inp);
      const want = reckon(t, bp, inp);
      assert.deepEqual(out.lines.map((l) => `${l.code}=${l.amount_minor}`), want.lines);
      assert.equal(out.chargeable_grams, want.grams);
      assert.equal(out.tax_minor, want.tax);
      assert.equal(out.lines.at(-1)?.tax_minor, want.tax);
      assert.equal(out.total_minor, want.total);
    }),
    { numRuns: 1_000 },
  );
});
