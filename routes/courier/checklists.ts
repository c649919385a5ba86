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
  complianceChecklistActor,
} from "../../actors/courier/compliance_checklists.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { courierPlatform } from "../../src/courier/auth.ts";
import { define, z } from "../../src/http/route.ts";
import { wholeNumber } from "../../src/http/schemas.ts";
import { ask } from "../../src/http/ask.ts";
import {
  ChecklistAnswer,
  ChecklistListedAnswer,
  ChecklistPublishedAnswer,
  type ChecklistSummary,
  checklistView,
  summaryView,
} from "./answers/checklists.ts";
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
    const { env, tenant } = businessCall(c);
    const rows = await checklistPage<ChecklistSummary>(env.db, tenant, query.supplier, query);
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
    const { tenant } = businessCall(c);
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
    const { tenant, by } = businessCall(c);
    const r = await ask(c, complianceChecklistActor, tenant, checklistId(tenant, body.code), {
      kind: "publish",
      courier_id: tenant,
      code: body.code,
      draft: { name: body.name, supplier: body.supplier, items: body.items },
      by,
    });
    return ok(
      c,
      { ...checklistView(r.checklist), published: r.published },
      r.published ? 201 : 200,
    );
  });
}
