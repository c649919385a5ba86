/** Every route file, one per section of the spec, mounted on each environment's API. */
import type { Api } from "../src/http/app.ts";
import { operatorRoutes } from "./operator.ts";
import { accountRoutes } from "./business/account.ts";

export const ROUTERS: readonly ((api: Api) => void)[] = [operatorRoutes, accountRoutes];
