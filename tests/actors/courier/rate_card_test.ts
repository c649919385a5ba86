import assert from "node:assert/strict";
import fc from "fast-check";
import {
  RATE_CARD_VERSIONS_MAX,
  rateCardActor,
  type RateCardCommand,
  type RateCardEvent,
  type RateCardState,
} from "../../../actors/courier/rate_card.ts";
import {
  inForceFrom,
  type RateCardTerms,
  sameTerms,
  versionInForce,
} from "../../../src/courier/rules/rate_card.ts";

const T0 = Date.parse("2026-11-02T08:00:00Z");
const DAY = 86_400_000;

const TERMS: RateCardTerms = {
  currency: "BWP",
  base_charge: 4_500,
  per_kg: 1_234,
  included_grams: 2_500,
  volumetric_divisor: 5_000,
  minimum_charge: 3_000,
  collection_fee: 500,
  delivery_fee: 700,
  discount_bp: 250,
  surcharge_bp: 1_000,
  tax_bp: 1_400,
  tax_inclusive: false,
  tax_label: "VAT",
  corridors: [{
    from: "BW",
    to: "ZA",
    base_charge: 12_000,
    per_kg: 2_000,
    label: "Gaborone-Joburg",
  }],
  liability_cover_bp: 150,
  redelivery_fee: 2_500,
  return_fee: 3_000,
  claim_window_days: 30,
  customs_admin_fee: 15_000,
  errand_fee: 1_000,
  failed_collection_fee: 2_000,
  cold_chain_fee: 5_000,
  waiting_fee: 800,
};

function ctx(now = T0) {
  let n = 0;
  return { now, newId: (p: string) => `${p}_${++n}` };
}

/** Decides and, when accepted, evolves: the state after the command, or the rejection. */
function run(state: RateCardState, command: RateCardCommand, now = T0) {
  const d = rateCardActor.decide(state, command, ctx(now));
  if (!d.ok) return { rejected: d, state };
  const next = d.events.reduce<RateCardState>(
    (s, e: RateCardEvent) => rateCardActor.evolve(s, e),
    state,
  );
  return { rejected: null, state: next, events: d.events };
}

function published(effective_from = T0): RateCardState {
  const r = run(null, {
    kind: "publish_first",
    id: "rc_1",
    business_id: "biz_1",
    name: "Standard 2026",
    effective_from,
    terms: TERMS,
    by: "api_key",
  });
  assert.equal(r.rejected, null);
  return r.state;
}

Deno.test("rate card actor: publish_first makes version 1 with the terms as sent", () => {
  const card = published();
  assert.ok(card);
  assert.equal(card.currency, "BWP");
  assert.equal(card.name, "Standard 2026");
  assert.equal(card.versions.length, 1);
  assert.equal(card.versions[0]?.version, 1);
  assert.deepEqual(card.versions[0]?.terms, TERMS);
  const again = run(card, {
    kind: "publish_first",
    id: "rc_1",
    business_id: "biz_1",
    name: "x",
    effective_from: T0,
    terms: TERMS,
    by: "api_key",
  });
  assert.equal(again.rejected?.code, "already_exists");
});

Deno.test("rate card actor: a later version carries over every term it does not send", () => {
  const r = run(published(), {
    kind: "publish_version",
    effective_from: T0 + DAY,
    changes: { per_kg: 1_500 },
    by: "api_key",
  }, T0 + 1);
  assert.equal(r.rejected, null);
  const v2 = r.state?.versions[1];
  assert.equal(v2?.version, 2);
  assert.equal(v2?.name, "Standard 2026");
  assert.equal(v2?.effective_from, T0 + DAY);
  assert.equal(v2?.published_at, T0 + 1);
  assert.deepEqual(v2?.terms, { ...TERMS, per_kg: 1_500 });
});

Deno.test("rate card actor: publishing a version leaves every earlier version unchanged", () => {
  const card = published();
  const before = structuredClone(card?.versions[0]);
  const r = run(card, {
    kind: "publish_version",
    effective_from: T0 + 1,
    name: "Standard 2026 rev",
    changes: { base_charge: 1, corridors: [], tax_inclusive: true },
    by: "api_key",
  });
  assert.equal(r.rejected, null);
  assert.deepEqual(r.state?.versions[0], before);
  assert.equal(r.state?.name, "Standard 2026 rev", "the card shows its latest name");
  // The only events there are: a version is appended, never edited or removed.
  assert.deepEqual(r.events?.map((e) => e.kind), ["version_published"]);
});

Deno.test("rate card actor: no command edits or deletes a version; an unknown one is refused", () => {
  // Compile-time: adding a command kind makes this record incomplete, so the list is the whole API.
  const kinds: Record<RateCardCommand["kind"], true> = {
    publish_first: true,
    publish_version: true,
    get: true,
  };
  assert.deepEqual(Object.keys(kinds), ["publish_first", "publish_version", "get"]);
  const edit = { kind: "edit_version", version: 1, changes: { per_kg: 1 } };
  assert.throws(
    () => rateCardActor.decide(published(), edit as unknown as RateCardCommand, ctx()),
    /unreachable/,
  );
});

Deno.test("rate card actor: effective_from before the latest version's is refused; from the same instant the later version supersedes", () => {
  const card = published(T0 + 10 * DAY);
  const early = run(card, {
    kind: "publish_version",
    effective_from: T0 + 9 * DAY,
    changes: {},
    by: "api_key",
  });
  assert.equal(early.rejected?.code, "effective_from_before_latest");
  assert.match(early.rejected?.message ?? "", /version 1/);
  const same = run(card, {
    kind: "publish_version",
    effective_from: T0 + 10 * DAY,
    changes: { per_kg: 1 },
    by: "api_key",
  });
  assert.equal(same.rejected, null);
  assert.equal(versionInForce(same.state!.versions, T0 + 10 * DAY)?.version, 2);
  const later = run(same.state, {
    kind: "publish_version",
    effective_from: T0 + 9 * DAY,
    changes: {},
    by: "api_key",
  });
  assert.equal(later.rejected?.code, "effective_from_before_latest", "compared with version 2");
});

Deno.test("rate card actor: a back-dated version is in force from its publication, never before", () => {
  const card = published(T0 - 30 * DAY); // version 1 back-dated: in force from T0, its publication
  assert.equal(versionInForce(card!.versions, T0 - 1), null);
  assert.equal(inForceFrom(card!.versions[0]!), T0);
  assert.equal(versionInForce(card!.versions, T0)?.version, 1);
  // Published a day later with an effective_from half a day back: version 1 stays in force for
  // what was priced meanwhile.
  const r = run(card, {
    kind: "publish_version",
    effective_from: T0 + DAY / 2,
    changes: { per_kg: 1 },
    by: "api_key",
  }, T0 + DAY);
  assert.equal(r.rejected, null);
  const v2 = r.state!.versions[1]!;
  assert.equal(v2.effective_from, T0 + DAY / 2, "kept as sent");
  assert.equal(inForceFrom(v2), T0 + DAY);
  assert.equal(versionInForce(r.state!.versions, T0 + DAY / 2)?.version, 1);
  assert.equal(versionInForce(r.state!.versions, T0 + DAY - 1)?.version, 1);
  assert.equal(versionInForce(r.state!.versions, T0 + DAY)?.version, 2);
  // A future effective_from switches exactly then.
  const v3 = run(r.state, {
    kind: "publish_version",
    effective_from: T0 + 3 * DAY,
    changes: { per_kg: 2 },
    by: "api_key",
  }, T0 + DAY);
  assert.equal(inForceFrom(v3.state!.versions[2]!), T0 + 3 * DAY);
  assert.equal(versionInForce(v3.state!.versions, T0 + 3 * DAY - 1)?.version, 2);
  assert.equal(versionInForce(v3.state!.versions, T0 + 3 * DAY)?.version, 3);
});

Deno.test("rate card actor: the currency is fixed by version 1", () => {
  const card = published();
  const other = run(card, {
    kind: "publish_version",
    effective_from: T0 + 1,
    changes: { currency: "ZAR" },
    by: "api_key",
  });
  assert.equal(other.rejected?.code, "rate_card_currency_fixed");
  assert.match(other.rejected?.message ?? "", /BWP/);
  const same = run(card, {
    kind: "publish_version",
    effective_from: T0 + 1,
    changes: { currency: "BWP", per_kg: 1 },
    by: "api_key",
  });
  assert.equal(same.rejected, null);
  assert.equal(same.state?.versions[1]?.terms.currency, "BWP");
});

Deno.test("rate card actor: a version whose terms and name are the latest's is refused (validation_failed, naming the body); a new name or one changed term is a version", () => {
  const card = published();
  const publish = (changes: Partial<RateCardTerms>, name?: string) =>
    run(card, {
      kind: "publish_version",
      effective_from: T0 + DAY,
      changes,
      ...(name === undefined ? {} : { name }),
      by: "api_key",
    });
  for (const changes of [{}, { per_kg: TERMS.per_kg }, { corridors: [...TERMS.corridors] }]) {
    const same = publish(changes, "Standard 2026");
    assert.equal(same.rejected?.code, "validation_failed", JSON.stringify(changes));
    assert.match(same.rejected?.message ?? "", /nothing to publish: .* version 1/);
    assert.deepEqual(same.rejected?.details?.errors, [{
      path: "body",
      message: "nothing to publish: every term and the name are those of version 1",
    }]);
  }
  assert.equal(publish({}, "Retail 2027").rejected, null);
  assert.equal(publish({ per_kg: TERMS.per_kg + 1 }).rejected, null);
  assert.equal(publish({ corridors: [] }).rejected, null);
});

Deno.test("rate card actor: commands on a card never published answer not_found", () => {
  assert.equal(run(null, { kind: "get" }).rejected?.code, "not_found");
  const v = run(null, {
    kind: "publish_version",
    effective_from: T0,
    changes: {},
    by: "api_key",
  });
  assert.equal(v.rejected?.code, "not_found");
});

Deno.test("rate card actor: versions are capped so the card fits in one stored state", () => {
  let card = published();
  for (let i = 1; i < RATE_CARD_VERSIONS_MAX; i++) {
    const r = run(card, {
      kind: "publish_version",
      effective_from: T0 + i,
      changes: { per_kg: i },
      by: "api_key",
    });
    assert.equal(r.rejected, null, `version ${i + 1}`);
    card = r.state;
  }
  assert.equal(card?.versions.length, RATE_CARD_VERSIONS_MAX);
  const over = run(card, {
    kind: "publish_version",
    effective_from: T0 + DAY,
    changes: { per_kg: 0 },
    by: "api_key",
  });
  assert.equal(over.rejected?.code, "rate_card_full");
});

Deno.test("rate card actor: a version too large to store beside the others is refused", () => {
  const corridors = Array.from({ length: 50 }, (_, i) => ({
    from: "BW",
    to: `Z${String.fromCharCode(65 + (i % 26))}`,
    base_charge: 100_000 + i,
    per_kg: 2_000,
    label: `corridor ${i} `.padEnd(80, "x"),
  }));
  let card = published();
  let refused = null;
  for (let i = 1; i < RATE_CARD_VERSIONS_MAX && refused === null; i++) {
    const r = run(card, {
      kind: "publish_version",
      effective_from: T0 + i,
      changes: { corridors, per_kg: i },
      by: "api_key",
    });
    refused = r.rejected;
    card = r.state;
  }
  assert.equal(refused?.code, "rate_card_full");
  assert.ok(JSON.stringify(card).length < 60_000, "the stored card stays under the KV cap");
});

Deno.test("rate card actor: any run of publications keeps every version, carries omitted terms over, and exactly the latest effective version is in force (property)", () => {
  const step = fc.record({
    offset: fc.integer({ min: -3 * DAY, max: 3 * DAY }),
    wait: fc.integer({ min: 0, max: 2 * DAY }),
    changes: fc.record({
      base_charge: fc.integer({ min: 0, max: 100_000 }),
      per_kg: fc.integer({ min: 0, max: 100_000 }),
      tax_inclusive: fc.boolean(),
      discount_bp: fc.integer({ min: 0, max: 10_000 }),
    }, { requiredKeys: [] }),
  });
  fc.assert(
    fc.property(
      fc.array(step, { maxLength: 12 }),
      fc.integer({ min: -5 * DAY, max: 40 * DAY }),
      (steps, at) => {
        let card = published();
        let effective = T0;
        let now = T0;
        for (const s of steps) {
          const before = structuredClone(card!.versions);
          const from = effective + s.offset;
          now += s.wait;
          const r = run(card, {
            kind: "publish_version",
            effective_from: from,
            changes: s.changes,
            by: "api_key",
          }, now);
          // spec: courier 4.2: a published version is never edited; each later one appends.
          assert.deepEqual(r.state!.versions.slice(0, before.length), before);
          if (from < effective) {
            assert.equal(r.rejected?.code, "effective_from_before_latest");
            assert.equal(r.state!.versions.length, before.length);
            continue;
          }
          // spec: courier 4.2: a version that changes nothing is refused in the card's own turn.
          const merged = { ...before.at(-1)!.terms, ...s.changes };
          if (sameTerms(merged, before.at(-1)!.terms)) {
            assert.equal(r.rejected?.code, "validation_failed");
            assert.equal(r.state!.versions.length, before.length);
            continue;
          }
          assert.equal(r.rejected, null);
          const latest = r.state!.versions.at(-1)!;
          assert.equal(latest.version, before.length + 1);
          assert.deepEqual(latest.terms, { ...before.at(-1)!.terms, ...s.changes });
          card = r.state;
          effective = from;
        }
        // spec: courier 4.2: exactly one version in force: the last published of those whose
        // effective_from and publication are both not after the instant; so a later version
        // never starts before an earlier one (history is never rewritten).
        const inForce = versionInForce(card!.versions, T0 + at);
        const started = card!.versions.filter((v) =>
          v.effective_from <= T0 + at && v.published_at <= T0 + at
        );
        assert.equal(inForce?.version ?? null, started.at(-1)?.version ?? null);
        const starts = card!.versions.map(inForceFrom);
        assert.deepEqual(starts, [...starts].sort((a, b) => a - b));
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("rate card actor: a publication under an Idempotency-Key is judged in the card's turn: the same request publishes nothing, another request under the key is refused reference_conflict", () => {
  const first = run(null, {
    kind: "publish_first",
    id: "rc_1",
    business_id: "biz_1",
    name: "Standard 2026",
    effective_from: T0,
    terms: TERMS,
    by: "api_key",
    request: { key: "k-1", digest: "d-1" },
  });
  assert.equal(first.rejected, null);
  assert.deepEqual(first.state?.requests, { "k-1": { digest: "d-1", version: 1 } });
  const sameFirst = run(first.state, {
    kind: "publish_first",
    id: "rc_1",
    business_id: "biz_1",
    name: "Standard 2026",
    effective_from: T0 + 1,
    terms: TERMS,
    by: "api_key",
    request: { key: "k-1", digest: "d-1" },
  }, T0 + 1);
  assert.equal(sameFirst.rejected, null);
  assert.deepEqual(sameFirst.events, []);
  const version = (digest: string, per_kg: number) =>
    run(first.state, {
      kind: "publish_version",
      effective_from: T0 + DAY,
      changes: { per_kg },
      by: "api_key",
      request: { key: "k-2", digest },
    }, T0 + 2);
  const v2 = version("d-2", 1_500);
  assert.equal(v2.rejected, null);
  assert.deepEqual(v2.state?.requests?.["k-2"], { digest: "d-2", version: 2 });
  const again = run(v2.state, {
    kind: "publish_version",
    effective_from: T0 + DAY,
    changes: { per_kg: 1_500 },
    by: "api_key",
    request: { key: "k-2", digest: "d-2" },
  }, T0 + 3);
  assert.equal(again.rejected, null);
  assert.deepEqual(again.events, []);
  const other = run(v2.state, {
    kind: "publish_version",
    effective_from: T0 + DAY,
    changes: { per_kg: 1_600 },
    by: "api_key",
    request: { key: "k-2", digest: "d-3" },
  }, T0 + 3);
  assert.equal(other.rejected?.code, "reference_conflict");
  assert.match(other.rejected?.message ?? "", /version 2 .*k-2/);
  const otherFirst = run(v2.state, {
    kind: "publish_first",
    id: "rc_1",
    business_id: "biz_1",
    name: "Other",
    effective_from: T0,
    terms: TERMS,
    by: "api_key",
    request: { key: "k-1", digest: "d-9" },
  });
  assert.equal(otherFirst.rejected?.code, "reference_conflict");
});
