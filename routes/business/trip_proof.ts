/**
 * Business API 3.1 "delivery done" and 5.5 ("proof of delivery" in the deliveries scope): GET
 * /business/trips/{id}/proof/{file}, the proof photo or the signature the driver recorded at the
 * door, under the same key as the trip.
 */
import { PROOF_FILES, tripProofFile } from "../../src/business/flows/trip_proof.ts";
import type { Api } from "../../src/http/app.ts";
import { define, z } from "../../src/http/route.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";

/** What a proof file may be: the image types a driver's upload is taken as (imageTypeOf). */
const IMAGE_TYPES = ["image/jpeg", "image/png", "image/webp"] as const;

export function tripProofRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/business/trips/{id}/proof/{file}",
    summary: "A delivered trip's proof of delivery: the proof photo or the recipient's signature",
    description: "The file the driver uploaded when delivering, as uploaded (a JPEG, PNG or " +
      "WebP image); `X-Proof-SHA256` is its hash.",
    tag: "Bookings and trips",
    security: "business",
    middleware: [business({ scope: "deliveries" })],
    params: z.object({
      id: z.string().min(1).max(40).openapi({ description: "The integer id or the reference" }),
      file: z.enum(PROOF_FILES).openapi({ description: "Which proof file" }),
    }),
    produces: IMAGE_TYPES,
    fileHeaders: { "X-Proof-SHA256": "The file's SHA-256, in hex" },
    refusals: {
      not_found: "no trip of the business has this id or reference, or none of this file was " +
        "recorded (the trip was not delivered, or delivered without it)",
    },
  }, async (c, { params }) => {
    const { env, tenant } = businessCall(c);
    const f = await tripProofFile(env, tenant, params.id, params.file);
    const ext = f.content_type.split("/")[1] ?? "bin";
    return new Response(f.bytes as BodyInit, {
      headers: {
        "Content-Type": f.content_type,
        "Content-Length": String(f.bytes.length),
        "Content-Disposition": `attachment; filename="${f.reference}-${params.file}.${ext}"`,
        "X-Content-Type-Options": "nosniff",
        "X-Proof-SHA256": f.sha256,
        "Cache-Control": "private, no-store",
      },
    });
  });
}
