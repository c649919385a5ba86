/** Every route file, one per section of the spec, mounted on each environment's API. */
import type { Api } from "../src/http/app.ts";
import { operatorRoutes } from "./operator.ts";
import { accountRoutes } from "./business/account.ts";
import { courierClientRoutes } from "./courier/clients.ts";
import { clientApiRoutes } from "./courier/client_api.ts";

export const ROUTERS: readonly ((api: Api) => void)[] = [
  operatorRoutes,
  accountRoutes,
  courierClientRoutes,
  clientApiRoutes,
];
