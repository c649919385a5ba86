/**
 * One uploaded evidence file (actors/courier/evidence_file.ts; courier 4.4: an alert resolved
 * with an `evidence_file` upload): content-addressed, begun once, its bytes stored chunk by chunk
 * in order in the log, complete with its last chunk; the state holds the manifest only.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  chunksFor,
  EVIDENCE_CHUNK_BYTES,
  EVIDENCE_FILE_BYTES_MAX,
  EVIDENCE_NAME_CHARS_MAX,
  evidenceFileActor,
  type EvidenceFileCommand,
  evidenceFileId,
} from "../../../actors/courier/evidence_file.ts";
import { EVENT_CHUNK_BYTES_MAX } from "../../../src/limits.ts";
import { ActorHarness, kinds } from "../../helpers/actor.ts";

const T0 = Date.parse("2026-11-02T08:00:00Z");
const SHA = "ab".repeat(32);

function begin(size: number, fields: Partial<Record<string, unknown>> = {}): EvidenceFileCommand {
  return {
    kind: "begin",
    file: {
      sha256: SHA,
      name: "pod.jpg",
      size,
      content_type: "image/jpeg",
      chunks_total: chunksFor(size),
      uploaded_by: "staff:usr_1",
      ...fields,
    },
  };
}

function begun(size: number) {
  const h = new ActorHarness(evidenceFileActor, { now: T0 });
  h.must(begin(size));
  return h;
}

Deno.test("evidence file: begin records the manifest, no chunk stored yet", () => {
  const h = new ActorHarness(evidenceFileActor, { now: T0 });
  const step = h.must(begin(70_000));
  assert.deepEqual(kinds(step.events), ["begun"]);
  assert.deepEqual(step.reply, {
    sha256: SHA,
    name: "pod.jpg",
    size: 70_000,
    content_type: "image/jpeg",
    chunks_total: 3,
    uploaded_by: "staff:usr_1",
    created_at: T0,
    chunks_stored: 0,
    complete: false,
  });
  assert.equal(evidenceFileId("biz_1", SHA), `biz_1.${SHA}`);
});

Deno.test("evidence file: the same content begun again answers what is stored", () => {
  const h = begun(10);
  h.must({ kind: "put_chunk", index: 0, data: "aGVsbG8gd29ybGQ=" });
  const again = h.must(begin(10, { name: "other.jpg" }));
  assert.deepEqual(again.events, []);
  assert.equal(again.reply?.name, "pod.jpg");
  assert.equal(again.reply?.complete, true);
});

Deno.test("evidence file: chunks are stored in order; the last one completes the file", () => {
  const h = begun(2 * EVIDENCE_CHUNK_BYTES + 1);
  assert.equal(h.state?.chunks_total, 3);
  h.refused(
    { kind: "put_chunk", index: 1, data: "x" },
    "chunk_out_of_order",
    "expected chunk 0 of 3: 1",
  );
  assert.deepEqual(kinds(h.must({ kind: "put_chunk", index: 0, data: "AAAA" }).events), [
    "chunk_stored",
  ]);
  assert.deepEqual(h.must({ kind: "put_chunk", index: 0, data: "AAAA" }).events, [], "a retry");
  h.must({ kind: "put_chunk", index: 1, data: "BBBB" });
  h.now = T0 + 5_000;
  const last = h.must({ kind: "put_chunk", index: 2, data: "CCCC" });
  assert.deepEqual(last.events, [
    { kind: "chunk_stored", index: 2, data: "CCCC" },
    { kind: "completed", at: T0 + 5_000 },
  ]);
  assert.deepEqual([h.state?.chunks_stored, h.state?.complete], [3, true]);
  assert.deepEqual(h.must({ kind: "put_chunk", index: 2, data: "CCCC" }).events, []);
  h.refused({ kind: "put_chunk", index: 3, data: "D" }, "chunk_out_of_order");
  // The bytes are in the log, in order; the state holds none of them.
  const chunks = h.log.flatMap((e) => e.kind === "chunk_stored" ? [e.data] : []);
  assert.deepEqual(chunks, ["AAAA", "BBBB", "CCCC"]);
  assert.ok(!JSON.stringify(h.state).includes("AAAA"));
  assert.deepEqual(h.replayed(), h.state);
  assert.equal(evidenceFileActor.publishEvents, false, "file bytes never reach the bus");
  assert.equal(evidenceFileActor.project, undefined, "nor Postgres");
});

Deno.test("evidence file: a chunk's base64 fits one stored event chunk, and no more is taken", () => {
  const max = Math.ceil(EVIDENCE_CHUNK_BYTES / 3) * 4;
  assert.ok(max < EVENT_CHUNK_BYTES_MAX);
  const h = begun(2 * EVIDENCE_CHUNK_BYTES);
  h.refused(
    { kind: "put_chunk", index: 0, data: "A".repeat(max + 1) },
    "invalid_evidence_file",
    `chunk too large: ${max + 1} base64 characters`,
  );
  h.must({ kind: "put_chunk", index: 0, data: "A".repeat(max) });
});

Deno.test("evidence file: a size over 5 MB, a bad hash or a chunk count that does not match is refused", () => {
  const fresh = () => new ActorHarness(evidenceFileActor, { now: T0 });
  for (const size of [EVIDENCE_FILE_BYTES_MAX + 1, -1, 1.5]) {
    fresh().refused(
      begin(size, { chunks_total: 1 }),
      "evidence_file_too_large",
      `evidence file too large: ${size} bytes, max ${EVIDENCE_FILE_BYTES_MAX}`,
    );
  }
  fresh().must(begin(EVIDENCE_FILE_BYTES_MAX));
  for (const sha256 of ["AB".repeat(32), "ab".repeat(31), "zz".repeat(32)]) {
    fresh().refused(
      begin(10, { sha256 }),
      "invalid_evidence_file",
      "sha256 must be 64 lower-case hex digits",
    );
  }
  fresh().refused(
    begin(EVIDENCE_CHUNK_BYTES + 1, { chunks_total: 1 }),
    "invalid_evidence_file",
    "chunk count does not match size: 1",
  );
});

Deno.test("evidence file: names and types are trimmed and clipped, with defaults when blank", () => {
  const long = "n".repeat(EVIDENCE_NAME_CHARS_MAX + 20);
  const h = new ActorHarness(evidenceFileActor, { now: T0 });
  h.must(begin(1, { name: `  ${long}  `, content_type: " ", uploaded_by: " staff:usr_1 " }));
  assert.equal(h.state?.name, long.slice(0, EVIDENCE_NAME_CHARS_MAX));
  assert.equal(h.state?.content_type, "application/octet-stream");
  assert.equal(h.state?.uploaded_by, "staff:usr_1");
  const blank = new ActorHarness(evidenceFileActor, { now: T0 });
  blank.must(begin(1, { name: "" }));
  assert.equal(blank.state?.name, "evidence");
});

Deno.test("evidence file: an empty file is one chunk; chunk counts cover the size exactly", () => {
  assert.equal(chunksFor(0), 1);
  fc.assert(fc.property(fc.integer({ min: 1, max: EVIDENCE_FILE_BYTES_MAX }), (size) => {
    const n = chunksFor(size);
    assert.ok((n - 1) * EVIDENCE_CHUNK_BYTES < size && size <= n * EVIDENCE_CHUNK_BYTES);
  }));
});

Deno.test("evidence file: chunks and get before begin are not_found", () => {
  const h = new ActorHarness(evidenceFileActor);
  h.refused({ kind: "put_chunk", index: 0, data: "A" }, "not_found", "evidence file not found");
  h.refused({ kind: "get" }, "not_found", "evidence file not found");
  assert.deepEqual(h.fire("x").events, []);
  assert.throws(() => evidenceFileActor.evolve(null, { kind: "completed", at: 0 }));
});
