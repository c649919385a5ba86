/**
 * Compliance checklists as answered (courier 2.10, 4.5): one checklist with every version in
 * full, and the list's rows. Documentation: tests/http/answers_runs_test.ts holds answers to these.
 */
import {
  CHECKLIST_SUPPLIERS,
  type checklistSummaryOf,
  type ChecklistVersion,
  type ComplianceChecklist,
} from "../../../actors/courier/compliance_checklists.ts";
import { iso } from "../../../src/domain/iso.ts";
import { z } from "../../../src/http/route.ts";
import { UtcInstant } from "../../../src/http/schemas.ts";

const Supplier = z.enum(CHECKLIST_SUPPLIERS);
const VersionNumber = z.number().int().openapi({ description: "1, 2, ...; never edited" });

/** A published version's headline fields. */
const VersionHeadline = {
  version: VersionNumber,
  name: z.string(),
  supplier: Supplier,
  published_at: UtcInstant,
  published_by: z.string(),
};

/** spec: courier 2.10: a version in full (versionView). */
const VersionFields = {
  ...VersionHeadline,
  items: z.array(
    z.object({
      key: z.string(),
      label: z.string(),
      required: z.boolean(),
    }).openapi("ChecklistItem"),
  ),
};

const ChecklistVersionAnswer = z.object(VersionFields).openapi("ChecklistVersion");

/** One checklist: its latest version's fields, then every version in full (checklistView). */
export const ChecklistAnswer = z.object({
  code: z.string(),
  ...VersionFields,
  versions: z.array(ChecklistVersionAnswer),
}).openapi("ComplianceChecklist");

/** A list row: the latest version in full, every version's headline (summaryView). */
export const ChecklistListedAnswer = z.object({
  code: z.string(),
  ...VersionFields,
  versions: z.array(
    z.object({
      ...VersionHeadline,
      items_count: z.number().int(),
    }).openapi("ChecklistVersionListed"),
  ),
}).openapi("ComplianceChecklistListed");

/** What a publication answers: the checklist, and whether it published a new version. */
export const ChecklistPublishedAnswer = ChecklistAnswer.extend({
  published: z.boolean().openapi({
    description: "A new version was published (201); false: the latest content again (200)",
  }),
}).openapi("ChecklistPublished");

function versionView(v: ChecklistVersion) {
  return { ...v, published_at: iso(v.published_at) };
}

/** One checklist: its latest version in full, then every version in full. */
export function checklistView(c: ComplianceChecklist) {
  const latest = c.versions.at(-1);
  return {
    code: c.code,
    ...(latest ? versionView(latest) : {}),
    versions: c.versions.map(versionView),
  };
}

export type ChecklistSummary = ReturnType<typeof checklistSummaryOf>;

/** A list row: the latest version in full, every version's headline. */
export function summaryView(s: ChecklistSummary) {
  const { courier_id: _c, ...rest } = s;
  return {
    ...rest,
    published_at: iso(s.published_at),
    versions: s.versions.map((v) => ({ ...v, published_at: iso(v.published_at) })),
  };
}
