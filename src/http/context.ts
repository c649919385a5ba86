/** The Hono context variables every route can read. */
import type { Environment } from "../environment.ts";
import type { Principal } from "./auth.ts";

export interface AppEnv {
  Variables: {
    env: Environment;
    requestId: string;
    principal: Principal | undefined;
  };
}
