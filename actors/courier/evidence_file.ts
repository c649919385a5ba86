/**
 * One uploaded evidence file (courier 4.4: an alert resolved with an `evidence_file` upload),
 * content-addressed: tenant = the courier's business id, id = `<tenant>.<sha256 hex>`, so the
 * same bytes uploaded twice are stored once, and never shared across tenants.
 *
 * The bytes live in the actor's event log, one `chunk_stored` event per chunk, in order; the
 * state holds only the manifest (name, size, type, how many chunks are in), so an activated
 * file costs a few hundred bytes of memory and never nears the state size cap. Chunk events are
 * not put on the bus (`publishEvents: false`) and nothing is projected: file bytes never reach
 * the bus or Postgres. src/courier/flows/evidence.ts writes and reads the chunks.
 */
import { accept, type ActorDefinition, reject, unreachable } from "../../src/runtime/actor.ts";

/**
 * Raw bytes per chunk. Its base64 form (4/3 larger, about 40,000 characters) must fit one stored
 * event chunk (EVENT_CHUNK_BYTES_MAX = 48,000, under Deno KV's 64 KiB value cap).
 */
export const EVIDENCE_CHUNK_BYTES = 30_000;
/** An evidence file is a photo or a scanned document (courier 4.4). */
export const EVIDENCE_FILE_BYTES_MAX = 5 * 1024 * 1024;
/** File names and content types as shown back to people; longer ones are clipped. */
export const EVIDENCE_NAME_CHARS_MAX = 200;

export interface EvidenceManifest {
  readonly sha256: string;
  readonly name: string;
  readonly size: number;
  readonly content_type: string;
  readonly chunks_total: number;
  readonly uploaded_by: string;
  readonly created_at: number;
}

export interface EvidenceFile extends EvidenceManifest {
  readonly chunks_stored: number;
  readonly complete: boolean;
}

export type EvidenceFileState = EvidenceFile | null;

export type EvidenceFileCommand =
  | { readonly kind: "begin"; readonly file: Omit<EvidenceManifest, "created_at"> }
  | { readonly kind: "put_chunk"; readonly index: number; readonly data: string }
  | { readonly kind: "get" };

export type EvidenceFileEvent =
  | { readonly kind: "begun"; readonly file: EvidenceManifest }
  | { readonly kind: "chunk_stored"; readonly index: number; readonly data: string }
  | { readonly kind: "completed"; readonly at: number };

export type EvidenceFileReply = EvidenceFile | undefined;

export function evidenceFileId(tenant: string, sha256: string): string {
  return `${tenant}.${sha256}`;
}

/**
 * The name a file is kept and shown under: the last segment of what the upload sent (a browser
 * or a script may send `C:\\Users\\...\\pod.jpg` or `../../x`: a path from the request is never
 * stored), trimmed and clipped; "evidence" when nothing is left.
 */
export function evidenceFileName(sent: string): string {
  const base = sent.split(/[\\/]/).map((s) => s.trim()).filter((s) => s !== "").at(-1) ?? "";
  const name = base === "." || base === ".." ? "" : base;
  return name.slice(0, EVIDENCE_NAME_CHARS_MAX) || "evidence";
}

export function chunksFor(size: number): number {
  return Math.max(1, Math.ceil(size / EVIDENCE_CHUNK_BYTES));
}

const whole = (s: EvidenceFileState): EvidenceFileReply => s ?? undefined;

function ok(events: EvidenceFileEvent[]) {
  return accept<EvidenceFileState, EvidenceFileEvent, EvidenceFileReply>(events, whole);
}

function begin(
  state: EvidenceFileState,
  file: Omit<EvidenceManifest, "created_at">,
  now: number,
) {
  // The same content again (complete or half written) answers what is stored.
  if (state !== null) return ok([]);
  if (!/^[0-9a-f]{64}$/.test(file.sha256)) {
    return reject("invalid_evidence_file", "sha256 must be 64 lower-case hex digits");
  }
  if (!Number.isSafeInteger(file.size) || file.size < 0 || file.size > EVIDENCE_FILE_BYTES_MAX) {
    return reject(
      "evidence_file_too_large",
      `evidence file too large: ${file.size} bytes, max ${EVIDENCE_FILE_BYTES_MAX}`,
    );
  }
  if (file.chunks_total !== chunksFor(file.size)) {
    return reject("invalid_evidence_file", `chunk count does not match size: ${file.chunks_total}`);
  }
  const clip = (s: string) => s.trim().slice(0, EVIDENCE_NAME_CHARS_MAX);
  return ok([{
    kind: "begun",
    file: {
      ...file,
      name: evidenceFileName(file.name),
      content_type: clip(file.content_type) || "application/octet-stream",
      uploaded_by: clip(file.uploaded_by),
      created_at: now,
    },
  }]);
}

/** Chunks arrive in order; a chunk already stored (a retried or parallel upload) is a no-op. */
function putChunk(state: EvidenceFileState, index: number, data: string, now: number) {
  if (state === null) return reject("not_found", "evidence file not found");
  if (index < state.chunks_stored) return ok([]);
  if (index !== state.chunks_stored || index >= state.chunks_total) {
    return reject(
      "chunk_out_of_order",
      `expected chunk ${state.chunks_stored} of ${state.chunks_total}: ${index}`,
    );
  }
  if (data.length > Math.ceil(EVIDENCE_CHUNK_BYTES / 3) * 4) {
    return reject("invalid_evidence_file", `chunk too large: ${data.length} base64 characters`);
  }
  const stored: EvidenceFileEvent = { kind: "chunk_stored", index, data };
  if (index + 1 < state.chunks_total) return ok([stored]);
  return ok([stored, { kind: "completed", at: now }]);
}

function evolve(state: EvidenceFileState, event: EvidenceFileEvent): EvidenceFileState {
  if (event.kind === "begun") return { ...event.file, chunks_stored: 0, complete: false };
  if (state === null) throw new Error(`evidence file: ${event.kind} before begun`);
  switch (event.kind) {
    case "chunk_stored":
      return { ...state, chunks_stored: state.chunks_stored + 1 };
    case "completed":
      return { ...state, complete: true };
    default:
      return unreachable(event);
  }
}

export const evidenceFileActor: ActorDefinition<
  EvidenceFileState,
  EvidenceFileCommand,
  EvidenceFileEvent,
  EvidenceFileReply
> = {
  type: "evidence_file",
  version: 1,
  initial: null,
  decide(state, command, ctx) {
    switch (command.kind) {
      case "begin":
        return begin(state, command.file, ctx.now);
      case "put_chunk":
        return putChunk(state, command.index, command.data, ctx.now);
      case "get":
        if (state === null) return reject("not_found", "evidence file not found");
        return ok([]);
      case "timer":
        return ok([]);
      default:
        return unreachable(command);
    }
  },
  evolve,
  // The bytes are in the events: keep them in the log (read back by evidence.ts), off the bus.
  publishEvents: false,
};
