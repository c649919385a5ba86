/**
 * Documents supplied to a crossing (courier 2.10, 7): append-only; papers customs asked for, once
 * supplied, move the crossing back to presented (a plain hold stands until customs moves). The
 * same papers again are a retry.
 */
import { accept, reject } from "../../../src/runtime/actor.ts";
import { checked } from "./accepted.ts";
import {
  CROSSING_DOCUMENTS_MAX,
  CUSTOMS_NAME_CHARS_MAX,
  CUSTOMS_TEXT_CHARS_MAX,
  SUPPLY_DOCUMENTS_MAX,
  text,
} from "./limits.ts";
import { AWAITING_PAPERS } from "./transitions.ts";
import type { Crossing, CrossingCommand, Decided, Supply } from "./types.ts";

export function supply(
  state: Crossing,
  c: Extract<CrossingCommand, { kind: "supply" }>,
  now: number,
): Decided {
  if (state.status === "refused" || state.status === "cleared") {
    return reject("crossing_closed", `crossing ${state.id} is ${state.status}: no more documents`);
  }
  const docs = c.documents.map((d) => ({
    name: text(d.name, CUSTOMS_NAME_CHARS_MAX),
    reference: text(d.reference, CUSTOMS_NAME_CHARS_MAX),
  }));
  if (docs.length === 0 || docs.some((d) => d.name === null)) {
    return reject("documents_required", "a supply names at least one document");
  }
  if (docs.length > SUPPLY_DOCUMENTS_MAX) {
    return reject(
      "too_many_documents",
      `at most ${SUPPLY_DOCUMENTS_MAX} documents in one supply: ${docs.length}`,
    );
  }
  const resumes = AWAITING_PAPERS.has(state.status);
  const known = new Set(state.documents.map((d) => `${d.name}\n${d.reference ?? ""}`));
  const last = state.supplies.at(-1);
  if (!resumes && last && docs.every((d) => known.has(`${d.name}\n${d.reference ?? ""}`))) {
    // The same papers again, changing nothing: a retry of the supply already recorded.
    return accept([], (next) => ({
      kind: "supplied",
      crossing: next!,
      supply: last,
      replayed: true,
    }));
  }
  if (state.documents.length + docs.length > CROSSING_DOCUMENTS_MAX) {
    return reject(
      "too_many_documents",
      `a crossing keeps at most ${CROSSING_DOCUMENTS_MAX} documents: ${state.documents.length}`,
    );
  }
  const n = state.supplies.length + 1;
  const record: Supply = {
    n,
    note: text(c.note, CUSTOMS_TEXT_CHARS_MAX),
    from_status: state.status,
    by: c.by,
    at: now,
  };
  const documents = docs.map((d) => ({
    name: d.name!,
    reference: d.reference,
    supply: n,
    by: c.by,
    at: now,
  }));
  const status = resumes ? "presented" : state.status;
  return checked(
    state,
    [{ kind: "documents_supplied", supply: record, documents, status }],
    (next) => ({
      kind: "supplied",
      crossing: next!,
      supply: record,
      replayed: false,
    }),
  );
}
