/** Environment variables -> typed config (CONTRACT "Running"). The only place that reads Deno.env. */
import { z } from "zod";

const flag = z.enum(["0", "1", "true", "false"]).transform((v) => v === "1" || v === "true");

const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(8080),
  SANDBOX_PORT: z.coerce.number().int().min(0).max(65_535).default(8081),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: z.string().min(1).optional(),
  NATS_URL: z.string().min(1).optional(),
  OPERATOR_TOKEN: z.string().min(16).optional(),
  CLOCK: z.enum(["system", "manual"]).default("system"),
  ALLOW_LOOPBACK_WEBHOOKS: flag.default(false),
  /** Base64 of 32 bytes sealing webhook secrets; generated under DATA_DIR when unset. */
  SECRETS_KEY: z.string().min(40).optional(),
  HOST: z.string().min(1).default("0.0.0.0"),
});

export type Config = z.infer<typeof ConfigSchema>;

export function readConfig(env: Record<string, string | undefined> = Deno.env.toObject()): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new Error(`invalid configuration: ${problems.join("; ")}`);
  }
  return parsed.data;
}
