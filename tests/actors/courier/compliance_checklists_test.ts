/**
 * Compliance checklists (actors/courier/compliance_checklists.ts; courier 2.10: checklists are
 * versioned, supplied by the clearing agent and laboratories, and the service assumes no
 * requirements of its own; 4.5 `GET, POST /business/compliance-checklists`). A published version
 * is never edited: publishing again makes the next version, the same content again is a retry.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  CHECKLIST_ITEMS_MAX,
  CHECKLIST_LABEL_CHARS_MAX,
  CHECKLIST_NAME_CHARS_MAX,
  CHECKLIST_VERSIONS_MAX,
  type ChecklistCommand,
  type ChecklistDraft,
  checklistId,
  checklistSummaryOf,
  complianceChecklistActor,
  latestVersion,
} from "../../../actors/courier/compliance_checklists.ts";
import { ActorHarness } from "../../helpers/actor.ts";

const T0 = Date.parse("2026-11-02T08:00:00Z");
const DRAFT: ChecklistDraft = {
  name: "Specimen handover",
  supplier: "laboratory",
  items: [
    { key: "seal", label: "Seal intact", required: true },
    { key: "temp_log", label: "Temperature log attached", required: true },
    { key: "photo", label: "Photo of the box", required: false },
  ],
};

function publish(
  draft: ChecklistDraft = DRAFT,
  code = "LAB-1",
  by = "staff:usr_1",
): ChecklistCommand {
  return { kind: "publish", courier_id: "biz_1", code, draft, by };
}

function published() {
  const h = new ActorHarness(complianceChecklistActor, { now: T0 });
  h.must(publish());
  return h;
}

Deno.test("compliance checklist: the first publication is version 1, as supplied", () => {
  const h = new ActorHarness(complianceChecklistActor, { now: T0 });
  const step = h.must(publish());
  const version = { ...DRAFT, version: 1, published_at: T0, published_by: "staff:usr_1" };
  assert.deepEqual(step.events, [{
    kind: "version_published",
    courier_id: "biz_1",
    code: "LAB-1",
    version,
  }]);
  assert.deepEqual(step.reply, {
    checklist: { courier_id: "biz_1", code: "LAB-1", versions: [version] },
    published: true,
  });
  assert.equal(checklistId("biz_1", "LAB-1"), "biz_1:LAB-1");
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("compliance checklist: publishing again makes the next version and never edits the last", () => {
  const h = published();
  h.now = T0 + 1_000;
  const changed = { ...DRAFT, items: [...DRAFT.items, { key: "id", label: "ID", required: true }] };
  h.must(publish(changed, "LAB-1", "staff:usr_2"));
  const versions = h.state!.versions;
  assert.deepEqual(versions.map((v) => v.version), [1, 2]);
  assert.deepEqual(versions[0]!.items, DRAFT.items, "version 1 as it was published");
  assert.equal(latestVersion(h.state!).items.length, 4);
  assert.equal(latestVersion(h.state!).published_by, "staff:usr_2");
});

Deno.test("compliance checklist: the same content again is a retry and publishes nothing", () => {
  const h = published();
  // Trimmed before comparing: spaces around the name and labels are not a new version.
  const padded = {
    ...DRAFT,
    name: `  ${DRAFT.name} `,
    items: DRAFT.items.map((i) => ({ ...i, label: ` ${i.label}  ` })),
  };
  const again = h.must(publish(padded));
  assert.deepEqual(again.events, []);
  assert.equal(again.reply?.published, false);
  assert.equal(h.state!.versions.length, 1);
  // Content equal to an older version (not the latest) is a new version.
  h.must(publish({ ...DRAFT, name: "Renamed" }));
  assert.equal(h.must(publish()).events.length, 1);
  assert.equal(h.state!.versions.length, 3);
});

Deno.test("compliance checklist: a draft out of bounds is refused with its reason", () => {
  const item = (key: string, label = "Label") => ({ key, label, required: true });
  const cases: [ChecklistDraft, string, string, string?][] = [
    [
      DRAFT,
      "invalid_checklist",
      "a checklist code is 1 to 40 letters, digits, _ . -: -LAB",
      "-LAB",
    ],
    [DRAFT, "invalid_checklist", "a checklist code is 1 to 40 letters, digits, _ . -: ", ""],
    [
      DRAFT,
      "invalid_checklist",
      `a checklist code is 1 to 40 letters, digits, _ . -: ${"C".repeat(41)}`,
      "C".repeat(41),
    ],
    [
      { ...DRAFT, name: "   " },
      "invalid_checklist",
      `a checklist name has 1 to ${CHECKLIST_NAME_CHARS_MAX} chars`,
    ],
    [
      { ...DRAFT, name: "n".repeat(CHECKLIST_NAME_CHARS_MAX + 1) },
      "invalid_checklist",
      `a checklist name has 1 to ${CHECKLIST_NAME_CHARS_MAX} chars`,
    ],
    [
      { ...DRAFT, supplier: "customs" as never },
      "invalid_checklist",
      "supplier is one of clearing_agent,laboratory,other: customs",
    ],
    [
      { ...DRAFT, items: [] },
      "invalid_checklist",
      `a checklist has 1 to ${CHECKLIST_ITEMS_MAX} items: 0`,
    ],
    [
      { ...DRAFT, items: Array.from({ length: CHECKLIST_ITEMS_MAX + 1 }, (_, i) => item(`k${i}`)) },
      "invalid_checklist",
      `a checklist has 1 to ${CHECKLIST_ITEMS_MAX} items: ${CHECKLIST_ITEMS_MAX + 1}`,
    ],
    [
      { ...DRAFT, items: [item("_x")] },
      "invalid_checklist",
      "an item key is 1 to 40 letters, digits, _ . -: _x",
    ],
    [
      { ...DRAFT, items: [item("k", " ")] },
      "invalid_checklist",
      "item k needs a label of 1 to 200 characters",
    ],
    [
      { ...DRAFT, items: [item("k", "l".repeat(CHECKLIST_LABEL_CHARS_MAX + 1))] },
      "invalid_checklist",
      "item k needs a label of 1 to 200 characters",
    ],
    [
      { ...DRAFT, items: [item("k"), item("k")] },
      "duplicate_item_key",
      "item keys are unique in a checklist: k",
    ],
  ];
  for (const [draft, code, message, checklistCode] of cases) {
    new ActorHarness(complianceChecklistActor, { now: T0 }).refused(
      publish(draft, checklistCode ?? "LAB-1"),
      code,
      message,
    );
  }
  new ActorHarness(complianceChecklistActor, { now: T0 }).must(
    publish({
      ...DRAFT,
      items: Array.from({ length: CHECKLIST_ITEMS_MAX }, (_, i) => item(`k${i}`)),
    }),
  );
});

Deno.test("compliance checklist: at most CHECKLIST_VERSIONS_MAX versions; a retry of the last is still answered", () => {
  const h = new ActorHarness(complianceChecklistActor, { now: T0 });
  const small = (n: number): ChecklistDraft => ({
    name: `v${n}`,
    supplier: "other",
    items: [{ key: "k", label: "L", required: false }],
  });
  for (let n = 1; n <= CHECKLIST_VERSIONS_MAX; n++) h.must(publish(small(n)));
  h.refused(
    publish(small(0)),
    "checklist_full",
    `a checklist holds at most ${CHECKLIST_VERSIONS_MAX} versions; publish a new code: LAB-1`,
  );
  assert.equal(h.must(publish(small(CHECKLIST_VERSIONS_MAX))).reply?.published, false);
});

Deno.test("compliance checklist: a version that would not fit in one stored state is refused", () => {
  const h = new ActorHarness(complianceChecklistActor, { now: T0 });
  const big = (n: number): ChecklistDraft => ({
    name: `Full ${n}`,
    supplier: "clearing_agent",
    items: Array.from({ length: CHECKLIST_ITEMS_MAX }, (_, i) => ({
      key: `item_${i}`,
      label: "L".repeat(CHECKLIST_LABEL_CHARS_MAX),
      required: true,
    })),
  });
  let n = 0;
  for (;;) {
    const r = h.send(publish(big(++n)));
    if ("ok" in r) {
      assert.equal(r.code, "checklist_full");
      assert.match(
        r.message,
        /^this version does not fit beside the checklist's others; publish a new code: \d+ bytes$/,
      );
      break;
    }
    assert.ok(n < CHECKLIST_VERSIONS_MAX);
  }
  assert.ok(n > 1 && h.state!.versions.length === n - 1);
});

Deno.test("compliance checklist: versions count up by one, whatever is published", () => {
  const label = fc.constantFrom("A", "B", "C");
  fc.assert(fc.property(fc.array(label, { maxLength: 20 }), (names) => {
    const h = new ActorHarness(complianceChecklistActor, { now: T0 });
    let expected = 0;
    let last: string | null = null;
    for (const name of names) {
      h.must(publish({ ...DRAFT, name }));
      if (name !== last) expected++;
      last = name;
    }
    assert.deepEqual(
      h.state?.versions.map((v) => v.version) ?? [],
      Array.from({ length: expected }, (_, i) => i + 1),
    );
  }));
  assert.throws(() =>
    complianceChecklistActor.evolve(null, {
      kind: "version_published",
      courier_id: "biz_1",
      code: "X",
      version: { ...DRAFT, version: 2, published_at: 0, published_by: "x" },
    }), /out of order/);
});

Deno.test("compliance checklist: get answers it or not_found; the list shows the latest and each version's headline", () => {
  new ActorHarness(complianceChecklistActor).refused(
    { kind: "get" },
    "not_found",
    "checklist not found",
  );
  const h = published();
  h.must(publish({ ...DRAFT, name: "Specimen handover v2" }));
  assert.equal(h.must({ kind: "get" }).reply?.published, false);
  const summary = complianceChecklistActor.project!(h.state) as ReturnType<
    typeof checklistSummaryOf
  >;
  assert.equal(summary.version, 2);
  assert.equal(summary.name, "Specimen handover v2");
  assert.deepEqual(summary.items, DRAFT.items);
  assert.deepEqual(summary.versions.map((v) => [v.version, v.items_count]), [[1, 3], [2, 3]]);
  assert.equal(complianceChecklistActor.project!(null), undefined);
  assert.deepEqual(h.fire("x").events, []);
});
