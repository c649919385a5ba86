/**
 * Shopping 6 "Receipt URL" and Business API 6 `packing_slip_url`: GET /shopping/links/{token},
 * public, opened by anyone holding the signed link until it expires. It answers the stored bytes
 * (the till receipt photo as uploaded, or the order's packing slip PDF) with their content type;
 * an expired link answers 403 `link_expired`, an altered one 403 `link_invalid`.
 */
import { type Api } from "../../src/http/app.ts";
import { anonymous } from "../../src/http/guards.ts";
import { define, z } from "../../src/http/route.ts";
import { SHOPPING_LINK_CHARS_MAX } from "../../src/limits.ts";
import { openLink } from "../../src/shopping/flows/links.ts";

export function shoppingLinkRoutes(api: Api): void {
  define(api, {
    method: "get",
    path: "/shopping/links/{token}",
    summary: "A signed link of a shopping event: the receipt photo or the packing slip",
    description: "receipt_photo_url (shopping.store_collected) and packing_slip_url " +
      "(shopping.basket_collected) are these links, valid receipt_url_ttl_minutes (at least " +
      "10; 24 hours by default) from the event's making. Answers the stored bytes with their " +
      "content type; receivers copy the image on receipt. Expired: 403 link_expired; altered: " +
      "403 link_invalid.",
    tag: "Shopping fulfilment",
    security: "public",
    middleware: [anonymous],
    // Any length reaches the link's check: a link made longer is altered (403), not a bad request.
    params: z.object({
      token: z.string().min(1).openapi({
        description: `The signed link's token (at most ${SHOPPING_LINK_CHARS_MAX} characters)`,
      }),
    }),
    // A receipt photo or a shopper's image (imageTypeOf), or a packing slip.
    produces: ["image/jpeg", "image/png", "image/webp", "application/pdf"],
    refusals: {
      link_expired: "the link is past its time",
      link_invalid: "the link was altered, or is not a link of this service",
      not_found: "the file the link names is gone",
      basket_not_collected: "the packing slip is not ready",
    },
  }, async (c, { params }) => {
    const file = await openLink(c.get("env"), params.token);
    return new Response(file.bytes, {
      headers: {
        "Content-Type": file.content_type,
        "Content-Disposition": `inline; filename="${file.name.replace(/["\\\r\n]/g, "")}"`,
        "Cache-Control": "private, no-store",
      },
    });
  });
}
