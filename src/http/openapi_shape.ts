/**
 * What the OpenAPI document and the collection made from it share: the document's type, the
 * methods an operation can have, and the security scheme of each credential.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./context.ts";

export type OpenApiDocument = ReturnType<OpenAPIHono<AppEnv>["getOpenAPI31Document"]>;

export const METHODS = ["get", "post", "put", "patch", "delete"] as const;

/**
 * The security scheme of each credential, as components.securitySchemes declares it (openapi.ts):
 * the operator's and a driver's tokens are both bearer tokens, but never interchangeable.
 */
export const SECURITY_SCHEMES = {
  operatorToken: {
    type: "http",
    scheme: "bearer",
    description: "The operator token: `Authorization: Bearer <token>`",
  },
  businessKey: {
    type: "apiKey",
    in: "header",
    name: "X-Business-API-Key",
    description: "The business key, a partner key or a portal session token",
  },
  clientKey: {
    type: "apiKey",
    in: "header",
    name: "X-Client-API-Key",
    description: "A courier client's API key or a client user's session token",
  },
  driverToken: {
    type: "http",
    scheme: "bearer",
    description: "A driver's token: `Authorization: Bearer <token>`",
  },
  channelToken: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "A partner sales channel's token (sandbox): `Authorization: Bearer <JWT>`, " +
      "signed HS256 with the channel's signing key (Business API 4.4, StorefrontGrant)",
  },
} as const;
