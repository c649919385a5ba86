/**
 * Evidence files (courier 4.4: resolving an alert with an `evidence_file` upload), stored
 * content-addressed through the `evidence_file` actor: the manifest in its state, the bytes in
 * its event log in EVIDENCE_CHUNK_BYTES chunks. Going through `ask()` keeps the blobs behind the
 * actor store's port (ARCHITECTURE "Growing past one machine"): no second KV handle, and the
 * same code works on any store the runtime runs on.
 */
import {
  chunksFor,
  EVIDENCE_CHUNK_BYTES,
  EVIDENCE_FILE_BYTES_MAX,
  type EvidenceFile,
  evidenceFileActor,
  evidenceFileId,
  evidenceFileName,
} from "../../../actors/courier/evidence_file.ts";
import type { EvidenceFileRef } from "../../../actors/courier/alert.ts";
import { sha256Hex } from "../../domain/secrets.ts";
import { foundOrNull, invalidFields, Refused, type Rejection } from "../../runtime/actor.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";

export { EVIDENCE_FILE_BYTES_MAX };

export interface EvidenceUpload {
  readonly name: string;
  readonly content_type: string;
  readonly bytes: Uint8Array;
}

export type EvidenceResult<T> = { readonly ok: true; readonly value: T } | Rejection;

/**
 * Stores the file once per tenant and content (a repeated upload writes only the chunks still
 * missing) and answers the reference an alert keeps. A refusal (too large) is returned.
 */
export async function storeEvidence(
  runtime: ActorRuntime,
  tenant: string,
  upload: EvidenceUpload,
  by: string,
): Promise<EvidenceResult<EvidenceFileRef>> {
  const size = upload.bytes.length;
  const tooLarge = evidenceTooLarge(size);
  if (tooLarge) return tooLarge;
  const sha256 = sha256Hex(upload.bytes);
  const id = evidenceFileId(tenant, sha256);
  const begun = await runtime.ask(evidenceFileActor, tenant, id, {
    kind: "begin",
    file: {
      sha256,
      name: upload.name,
      size,
      content_type: upload.content_type,
      chunks_total: chunksFor(size),
      uploaded_by: by,
    },
  });
  if (!begun.ok) return begun;
  const file = begun.reply!;
  for (let index = file.chunks_stored; index < file.chunks_total; index++) {
    const start = index * EVIDENCE_CHUNK_BYTES;
    const data = upload.bytes.subarray(start, start + EVIDENCE_CHUNK_BYTES).toBase64();
    const put = await runtime.ask(evidenceFileActor, tenant, id, {
      kind: "put_chunk",
      index,
      data,
    });
    if (!put.ok) return put;
  }
  // The name and type are this upload's; the stored manifest keeps the first upload's.
  return {
    ok: true,
    value: {
      sha256,
      name: upload.name.trim() === "" ? file.name : evidenceFileName(upload.name),
      size,
      content_type: upload.content_type.trim() || file.content_type,
    },
  };
}

/** The refusal of a file of `size` bytes, too large to store; null when it fits. */
export function evidenceTooLarge(size: number): Rejection | null {
  if (size <= EVIDENCE_FILE_BYTES_MAX) return null;
  return {
    ok: false,
    code: "evidence_file_too_large",
    message: `evidence file too large: ${size} bytes, max ${EVIDENCE_FILE_BYTES_MAX}`,
  };
}

/** What a file reference's text begins with (`file:sha256:<hex>`, as an upload's evidence reads). */
const FILE_REFERENCE = /^\s*file:sha256:/i;

/** Whether an evidence text is written as a file's reference (`file:sha256:<hex>`). */
export function isFileReference(text: string): boolean {
  return FILE_REFERENCE.test(text);
}

/**
 * The file an evidence text names as an upload's reference reads (`file:sha256:<hex>`), which
 * the tenant must hold whole: a reference to no file, or to another tenant's, is no evidence
 * (courier 2.9, 2.6 evidence_path), Refused `validation_failed` naming `path`. Null for any
 * other text.
 */
export async function namedEvidence(
  runtime: ActorRuntime,
  tenant: string,
  text: string,
  path: string,
): Promise<EvidenceFileRef | null> {
  if (!isFileReference(text)) return null;
  const sha256 = text.trim().slice("file:sha256:".length).toLowerCase();
  const held = await heldEvidence(runtime, tenant, sha256);
  if (held === null) {
    throw new Refused(invalidFields([{
      path,
      message: `names no evidence file of the courier's: ${text.trim()}`,
    }]));
  }
  return held;
}

/** The reference of a file the tenant holds whole, by its hash; null when it holds none. */
export async function heldEvidence(
  runtime: ActorRuntime,
  tenant: string,
  sha256: string,
): Promise<EvidenceFileRef | null> {
  if (!/^[0-9a-f]{64}$/.test(sha256)) return null;
  const file = foundOrNull(
    await runtime.read(evidenceFileActor, tenant, evidenceFileId(tenant, sha256), { kind: "get" }),
  );
  if (!file || !file.complete) return null;
  return { sha256, name: file.name, size: file.size, content_type: file.content_type };
}

/** The file's manifest and bytes, checked against its hash; null when the tenant has no such file. */
export async function readEvidence(
  runtime: ActorRuntime,
  tenant: string,
  sha256: string,
): Promise<{ readonly file: EvidenceFile; readonly bytes: Uint8Array } | null> {
  if (!/^[0-9a-f]{64}$/.test(sha256)) return null;
  const id = evidenceFileId(tenant, sha256);
  // A refused read (a full mailbox) is thrown (503), never answered 404 for a file that exists.
  const file = foundOrNull(await runtime.read(evidenceFileActor, tenant, id, { kind: "get" }));
  if (!file || !file.complete) return null;
  const bytes = new Uint8Array(file.size);
  let next = 0;
  for await (const stored of runtime.events(evidenceFileActor, id)) {
    const event = stored.event as { kind: string; index?: number; data?: string };
    if (event.kind !== "chunk_stored" || event.index !== next || event.data === undefined) continue;
    bytes.set(Uint8Array.fromBase64(event.data), next * EVIDENCE_CHUNK_BYTES);
    next++;
  }
  if (next !== file.chunks_total || sha256Hex(bytes) !== sha256) {
    throw new Error(`evidence file ${id}: stored chunks do not match its hash`);
  }
  return { file, bytes };
}
