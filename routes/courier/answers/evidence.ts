/** Evidence files as downloads (courier 4.4: an alert's evidence; 2.6: a ledger entry's). */

/**
 * An evidence file as a download: its own name and type, never sniffed as something else, with
 * its hash so the reader can check it against the `file:sha256:<hex>` reference it came from.
 */
export function evidenceResponse(
  file: { readonly name: string; readonly content_type: string; readonly sha256: string },
  bytes: Uint8Array,
): Response {
  return new Response(bytes as BodyInit, {
    headers: {
      "Content-Type": file.content_type || "application/octet-stream",
      "Content-Length": String(bytes.length),
      "Content-Disposition": `attachment; filename*=UTF-8''${encodeURIComponent(file.name)}`,
      "X-Content-Type-Options": "nosniff",
      "X-Evidence-SHA256": file.sha256,
    },
  });
}
