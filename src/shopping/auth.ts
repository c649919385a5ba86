/**
 * spec: shopping 7: every shopping endpoint answers 403 SHOPPING_FULFILMENT_OFF until the operator
 * enables the capability for the account (PATCH /operator/businesses/{id}).
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../http/context.ts";
import { ApiError } from "../http/errors.ts";
import { type Refusals, refusing } from "../http/refusals.ts";
import { businessPrincipalOf } from "../platform/auth/principal.ts";

const SHOPPING_OFF: Refusals = {
  SHOPPING_FULFILMENT_OFF: "shopping fulfilment is not enabled for the account",
};

/** Behind business(): refuses while the operator has not enabled shopping fulfilment. */
export const shoppingFulfilment: MiddlewareHandler<AppEnv> = refusing(
  SHOPPING_OFF,
  async (c, next) => {
    if (!businessPrincipalOf(c).business.shopping_fulfilment_enabled) {
      throw new ApiError(
        "SHOPPING_FULFILMENT_OFF",
        "shopping fulfilment is not enabled for this account; ask the operator to enable it",
      );
    }
    await next();
  },
);
