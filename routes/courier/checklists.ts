/**
 * Courier 4.5, 2.10: compliance checklists supplied by the courier's clearing agent and
 * laboratories. Reading needs runs:operate; publishing (any POST) needs runs:override. A POST
 * with a code already published makes its next version; a published version is never edited.
 * The list reads the query side; one checklist (every version in full) reads its actor.
 */
import {
  CHECKLIST_CODE_PATTERN,
  CHECKLIST_ITEMS_MAX,
  CHECKLIST_KEY_PATTERN,
  CHECKLIST_LABEL_CHARS_MAX,
  CHECKLIST_NAME_CHARS_MAX,
  CHECKLIST_SUPPLIERS,
  checklistId,
  type checklistSummaryOf,
  type ChecklistVersion,
  type ComplianceChecklist,
  complianceChecklistActor,
} from "../../actors/courier/compliance_checklists.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessPrincipalOf, principalName } from "../../src/platform/auth/principal.ts";
import { courierPlatform } from "../../src/courier/auth.ts";
import { define, z } from "../../src/http/route.ts";
import { UtcInstant, wholeNumber } from "../../src/http/schemas.ts";
import { ask } from "../../src/http/ask.ts";
import { checklistPage } from "../../src/courier/queries/checklists.ts";

const tag = "Compliance checklists";
const read = [business({ scope: "runs:operate" }), courierPlatform];
const edit = [business({ scope: "runs:override" }), courierPlatform];
/** Checklists per page of the list. */
const CHECKLISTS_PAGE_MAX = 200;

const Code = z.string().regex(CHECKLIST_CODE_PATTERN, "1 to 40 letters, digits, _ . -");

const ChecklistBody = z.object({
  code: Code,
  name: z.string().trim().min(1).max(CHECKLIST_NAME_CHARS_MAX),
  supplier: z.enum(CHECKLIST_SUPPLIERS),
  items: z.array(z.object({
    key: z.string().regex(CHECKLIST_KEY_PATTERN, "1 to 40 letters, digits, _ . -"),
    label: z.string().trim().min(1).max(CHECKLIST_LABEL_CHARS_MAX),
    required: z.boolean().default(true),
  })).min(1).max(CHECKLIST_ITEMS_MAX),
});

// ---- Answers (documentation: tests/http/answers_runs_test.ts holds answers to them).

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

const iso = (ms: number) => new Date(ms).toISOString();

function versionView(v: ChecklistVersion) {
  return { ...v, published_at: iso(v.published_at) };
}

/** One checklist: its latest version in full, then every version in full. */
function checklistView(c: ComplianceChecklist) {
  const latest = c.versions.at(-1);
  return {
    code: c.code,
    ...(latest ? versionView(latest) : {}),
    versions: c.versions.map(versionView),
  };
}

type Summary = ReturnType<typeof checklistSummaryOf>;

/** A list row: the latest version in full, every version's headline. */
function summaryView(s: Summary) {
  const { courier_id: _c, ...rest } = s;
  return {
    ...rest,
    published_at: iso(s.published_at),
    versions: s.versions.map((v) => ({ ...v, published_at: iso(v.published_at) })),
  };
}

export function checklistRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/business/compliance-checklists",
    summary: "The courier's compliance checklists: each one's latest version and its versions",
    tag,
    security: "business",
    middleware: read,
    query: z.object({
      supplier: z.enum(CHECKLIST_SUPPLIERS).optional(),
      limit: wholeNumber(1, CHECKLISTS_PAGE_MAX).default(100),
      offset: wholeNumber(0, 1_000_000).default(0),
    }),
    paged: "offset",
    response: z.array(ChecklistListedAnswer),
  }, async (c, { query }) => {
    const tenant = businessPrincipalOf(c).business.id;
    const rows = await checklistPage<Summary>(c.get("env").db, tenant, query.supplier, query);
    return ok(c, rows.map(summaryView), 200, {
      limit: query.limit,
      offset: query.offset,
    });
  });

  define(api, {
    method: "get",
    path: "/business/compliance-checklists/{code}",
    summary: "One compliance checklist with every version in full",
    tag,
    security: "business",
    middleware: read,
    params: z.object({ code: Code }),
    response: ChecklistAnswer,
  }, async (c, { params }) => {
    const tenant = businessPrincipalOf(c).business.id;
    const r = await ask(c, complianceChecklistActor, tenant, checklistId(tenant, params.code), {
      kind: "get",
    });
    return ok(c, checklistView(r.checklist));
  });

  define(api, {
    method: "post",
    path: "/business/compliance-checklists",
    summary: "Publish a checklist, or the next version of an existing code (a published " +
      "version is never edited; the latest content sent again publishes nothing). Needs " +
      "runs:override",
    tag,
    security: "business",
    middleware: edit,
    body: ChecklistBody,
    status: 201,
    replay: "The latest version's name, supplier and items again: `published: false`, " +
      "nothing published",
    response: ChecklistPublishedAnswer,
    refusals: {
      duplicate_item_key: "two items have the same key",
      checklist_full: "the checklist holds no more versions, or this one does not fit beside " +
        "them; publish a new code",
    },
  }, async (c, { body }) => {
    const p = businessPrincipalOf(c);
    const tenant = p.business.id;
    const r = await ask(c, complianceChecklistActor, tenant, checklistId(tenant, body.code), {
      kind: "publish",
      courier_id: tenant,
      code: body.code,
      draft: { name: body.name, supplier: body.supplier, items: body.items },
      by: principalName(p),
    });
    return ok(
      c,
      { ...checklistView(r.checklist), published: r.published },
      r.published ? 201 : 200,
    );
  });
}
