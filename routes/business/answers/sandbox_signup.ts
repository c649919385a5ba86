/** What the sandbox sign-up routes answer (Business API 4.4). */
import { z } from "../../../src/http/route.ts";

export const SandboxSignupAnswer = z.object({
  message: z.string().openapi({
    description: "The same whether the e-mail is known or not; the code is never sent",
  }),
}).openapi("SandboxSignup");

export const SandboxSignupVerifiedAnswer = z.object({
  api_key: z.string().openapi({
    description: "`sk_sandbox_...`, shown this once; a later sign-up of the e-mail replaces it",
    example: "sk_sandbox_3f1c0a9b27d84e6f5a1b2c3d4e",
  }),
  webhook_secret: z.string().openapi({ description: "`whsec_...`, shown this once" }),
  base_url: z.string().openapi({
    description: "The sandbox base address every path is relative to",
    example: "https://sandbox.example.com/api",
  }),
  business_id: z.string(),
}).openapi("SandboxSignupVerified");
