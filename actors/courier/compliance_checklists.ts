/**
 * Compliance checklists (courier 2.10, 4.5): the checks a courier's clearing agent or a
 * laboratory requires, published by the courier as versioned lists of items. The service assumes
 * no requirements of its own: it holds what was supplied and shows which required items a sample
 * has not ticked. A published version is never edited; publishing under an existing code makes
 * the next version (the same content sent again is a retry and publishes nothing).
 *
 * One actor per checklist: tenant = the courier business id, id = `<courier>:<code>` (see
 * `checklistId`). All versions live in its state, like a rate card's, so the one per courier
 * would outgrow Deno KV's value cap; the list is read from the query side's snapshots.
 */
import { accept, type ActorDefinition, reject, unreachable } from "../../src/runtime/actor.ts";
import { STATE_BYTES_MAX } from "../../src/limits.ts";

export const CHECKLIST_SUPPLIERS = ["clearing_agent", "laboratory", "other"] as const;
export type ChecklistSupplier = typeof CHECKLIST_SUPPLIERS[number];

/** Items of one version: a checklist someone ticks through at a handover. */
export const CHECKLIST_ITEMS_MAX = 40;
/** Versions of one checklist; beyond that, publish under a new code. */
export const CHECKLIST_VERSIONS_MAX = 100;
export const CHECKLIST_KEY_CHARS_MAX = 40;
export const CHECKLIST_LABEL_CHARS_MAX = 200;
export const CHECKLIST_NAME_CHARS_MAX = 120;
/** Codes are identifiers: letters, digits, `_`, `-`, `.`, starting with a letter or digit. */
export const CHECKLIST_CODE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$/;
/** Item keys: the same alphabet. */
export const CHECKLIST_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$/;
/** Room left under STATE_BYTES_MAX for the runtime's record envelope. */
const CHECKLIST_BYTES_MAX = STATE_BYTES_MAX - 4_000;

export interface ChecklistItem {
  readonly key: string;
  readonly label: string;
  readonly required: boolean;
}

export interface ChecklistVersion {
  readonly version: number;
  readonly name: string;
  readonly supplier: ChecklistSupplier;
  readonly items: readonly ChecklistItem[];
  readonly published_at: number;
  readonly published_by: string;
}

export interface ComplianceChecklist {
  readonly courier_id: string;
  readonly code: string;
  /** In publication order: `versions[n - 1].version === n`. */
  readonly versions: readonly ChecklistVersion[];
}

export type ChecklistState = ComplianceChecklist | null;

export interface ChecklistDraft {
  readonly name: string;
  readonly supplier: ChecklistSupplier;
  readonly items: readonly ChecklistItem[];
}

export type ChecklistCommand =
  | {
    readonly kind: "publish";
    readonly courier_id: string;
    readonly code: string;
    readonly draft: ChecklistDraft;
    readonly by: string;
  }
  | { readonly kind: "get" };

export type ChecklistEvent = {
  readonly kind: "version_published";
  readonly courier_id: string;
  readonly code: string;
  readonly version: ChecklistVersion;
};

export interface ChecklistReply {
  readonly checklist: ComplianceChecklist;
  /** False when the latest version already said exactly this (a retry). */
  readonly published: boolean;
}

/** The actor id of a courier's checklist `code`. */
export function checklistId(courierId: string, code: string): string {
  return `${courierId}:${code}`;
}

export function latestVersion(c: ComplianceChecklist): ChecklistVersion {
  const v = c.versions.at(-1);
  if (!v) throw new Error(`checklist ${c.code} has no version`);
  return v;
}

function draftRefusal(code: string, d: ChecklistDraft) {
  if (!CHECKLIST_CODE_PATTERN.test(code)) {
    return reject(
      "invalid_checklist",
      `a checklist code is 1 to 40 letters, digits, _ . -: ${code}`,
    );
  }
  if (d.name.trim() === "" || d.name.length > CHECKLIST_NAME_CHARS_MAX) {
    return reject(
      "invalid_checklist",
      `a checklist name has 1 to ${CHECKLIST_NAME_CHARS_MAX} chars`,
    );
  }
  if (!(CHECKLIST_SUPPLIERS as readonly string[]).includes(d.supplier)) {
    return reject("invalid_checklist", `supplier is one of ${CHECKLIST_SUPPLIERS}: ${d.supplier}`);
  }
  if (d.items.length === 0 || d.items.length > CHECKLIST_ITEMS_MAX) {
    return reject(
      "invalid_checklist",
      `a checklist has 1 to ${CHECKLIST_ITEMS_MAX} items: ${d.items.length}`,
    );
  }
  const keys = new Set<string>();
  for (const item of d.items) {
    if (!CHECKLIST_KEY_PATTERN.test(item.key)) {
      return reject(
        "invalid_checklist",
        `an item key is 1 to 40 letters, digits, _ . -: ${item.key}`,
      );
    }
    if (item.label.trim() === "" || item.label.length > CHECKLIST_LABEL_CHARS_MAX) {
      return reject("invalid_checklist", `item ${item.key} needs a label of 1 to 200 characters`);
    }
    if (keys.has(item.key)) {
      return reject("duplicate_item_key", `item keys are unique in a checklist: ${item.key}`);
    }
    keys.add(item.key);
  }
  return null;
}

function sameDraft(v: ChecklistVersion, d: ChecklistDraft): boolean {
  return JSON.stringify([v.name, v.supplier, v.items]) ===
    JSON.stringify([d.name, d.supplier, d.items]);
}

function publish(
  state: ChecklistState,
  command: Extract<ChecklistCommand, { kind: "publish" }>,
  now: number,
) {
  const draft: ChecklistDraft = {
    name: command.draft.name.trim(),
    supplier: command.draft.supplier,
    items: command.draft.items.map((i) => ({
      key: i.key,
      label: i.label.trim(),
      required: i.required,
    })),
  };
  const refusal = draftRefusal(command.code, draft);
  if (refusal) return refusal;
  if (state !== null && sameDraft(latestVersion(state), draft)) {
    return accept<ChecklistState, ChecklistEvent, ChecklistReply>(
      [],
      (s) => ({ checklist: s!, published: false }),
    );
  }
  const count = state?.versions.length ?? 0;
  if (count >= CHECKLIST_VERSIONS_MAX) {
    return reject(
      "checklist_full",
      `a checklist holds at most ${CHECKLIST_VERSIONS_MAX} versions; publish a new code: ${command.code}`,
    );
  }
  const event: ChecklistEvent = {
    kind: "version_published",
    courier_id: command.courier_id,
    code: command.code,
    version: { ...draft, version: count + 1, published_at: now, published_by: command.by },
  };
  const bytes = JSON.stringify(evolve(state, event)).length;
  if (bytes > CHECKLIST_BYTES_MAX) {
    return reject(
      "checklist_full",
      `this version does not fit beside the checklist's others; publish a new code: ${bytes} bytes`,
    );
  }
  return accept<ChecklistState, ChecklistEvent, ChecklistReply>(
    [event],
    (s) => ({ checklist: s!, published: true }),
  );
}

function evolve(state: ChecklistState, event: ChecklistEvent): ChecklistState {
  switch (event.kind) {
    case "version_published": {
      const base = state ?? { courier_id: event.courier_id, code: event.code, versions: [] };
      if (event.version.version !== base.versions.length + 1) {
        throw new Error(`checklist ${base.code}: version ${event.version.version} out of order`);
      }
      return { ...base, versions: [...base.versions, event.version] };
    }
    default:
      return unreachable(event.kind as never);
  }
}

/** What the list shows: the latest version in full and every version's headline. */
export function checklistSummaryOf(c: ComplianceChecklist) {
  const latest = latestVersion(c);
  return {
    courier_id: c.courier_id,
    code: c.code,
    ...latest,
    versions: c.versions.map((v) => ({
      version: v.version,
      name: v.name,
      supplier: v.supplier,
      items_count: v.items.length,
      published_at: v.published_at,
      published_by: v.published_by,
    })),
  };
}

export const complianceChecklistActor: ActorDefinition<
  ChecklistState,
  ChecklistCommand,
  ChecklistEvent,
  ChecklistReply
> = {
  type: "compliance_checklist",
  version: 1,
  initial: null,
  decide(state, command, ctx) {
    switch (command.kind) {
      case "publish":
        return publish(state, command, ctx.now);
      case "get":
        if (state === null) return reject("not_found", "checklist not found");
        return accept([], () => ({ checklist: state, published: false }));
      case "timer":
        return accept([]);
      default:
        return unreachable(command);
    }
  },
  evolve,
  project: (s) => s === null ? undefined : checklistSummaryOf(s),
};
