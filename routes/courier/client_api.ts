/**
 * Courier 4.6 (client API, sign-in rows) and 5: a client user signs in with e-mail and password;
 * a password that was sent must be changed before anything else.
 */
import { courierClientActor } from "../../actors/courier/courier_client.ts";
import {
  hashPassword,
  newSecret,
  passwordMatches,
  seal,
  sealOwner,
  verifyPassword,
} from "../../src/domain/secrets.ts";
import { weakPasswordReason } from "../../src/domain/passwords.ts";
import { PASSWORD_CHARS_MIN } from "../../src/limits.ts";
import { checkWebhookUrl } from "../../src/outbound/url_guard.ts";
import { webhookUrlRules } from "../../src/platform/flows/webhook_urls.ts";
import { newId } from "../../src/runtime/ids.ts";
import { anonymous, remoteAddress } from "../../src/http/guards.ts";
import {
  callerClient,
  client,
  CLIENT_SESSION_PREFIX,
  clientKeyPrefix,
  clientPrincipalOf,
  requireClientAdmin,
  requireCourierPlatform,
} from "../../src/courier/auth.ts";
import { principalName } from "../../src/platform/auth/principal.ts";
import { beginLogin, beginPasswordCheck } from "../../src/http/login_throttle.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { ApiError, validationFailed } from "../../src/http/errors.ts";
import { define, z } from "../../src/http/route.ts";
import { Email, EXAMPLE_URL } from "../../src/http/schemas.ts";
import { closeSession, openSession } from "../../src/platform/auth/sessions.ts";
import { refuseIfNotNow } from "../../src/platform/auth/credentials.ts";
import { KEY_ALREADY_ROTATED, PLATFORM_DISABLED } from "../../src/http/refusals.ts";
import {
  ClientApiKeyAnswer,
  ClientMeAnswer,
  ClientSessionAnswer,
  ClientWebhookAnswer,
  ClientWebhookSent,
  SignedOutAnswer,
} from "./answers/client_api.ts";
import { ask } from "../../src/http/ask.ts";
import { rotateClientKey } from "../../src/courier/flows/clients.ts";
import { documentWebhook } from "../../src/http/openapi_webhooks.ts";

const tag = "Client API";
const security = "client" as const;

export function clientApiRoutes(api: Api): void {
  documentWebhook(api, {
    name: "clientShipmentEvent",
    summary: "Client webhook (courier 6.2)",
    body: ClientWebhookSent,
    headers: "v2",
  });
  define(api, {
    method: "post",
    path: "/client/login",
    summary: "Sign in a client user; the token is sent in X-Client-API-Key",
    tag,
    security: "public",
    middleware: [anonymous],
    body: z.object({
      email: Email,
      password: z.string().min(1).max(200),
    }),
    response: ClientSessionAnswer,
    refusals: {
      unauthenticated: "the e-mail or password is wrong",
      rate_limited: "repeated failed sign-ins for the e-mail or from the address: wait " +
        "`Retry-After` seconds",
      ...PLATFORM_DISABLED,
    },
  }, async (c, { body }) => {
    const env = c.get("env");
    const refused = new ApiError("unauthenticated", "e-mail or password is wrong");
    // spec: courier 5: repeated failures wait, per account and per address (429 rate_limited).
    const attempt = await beginLogin(
      c.var.env.loginThrottle,
      "client",
      body.email,
      remoteAddress(c),
    );
    const target = await env.runtime.lookup("client_email", body.email);
    const r = target
      ? await env.runtime.ask(courierClientActor, target.tenant, target.id, {
        kind: "user_for_login",
        email: body.email,
      })
      : null;
    // A lookup refused for now (a full mailbox) is no wrong password: answered 503, not counted.
    if (r) refuseIfNotNow(r);
    const login = r?.ok && r.reply && "password_hash" in r.reply ? r.reply : null;
    const matches = await passwordMatches(
      body.password,
      login?.password_hash ?? null,
      env.passwordIterations,
    );
    if (!matches || !target || !login) {
      await attempt.failed();
      throw refused;
    }
    await attempt.succeeded();
    // Told only to someone who knows the password, so it says nothing about who has an account.
    await requireCourierPlatform(c, target.tenant);
    return ok(
      c,
      await openSession(c, CLIENT_SESSION_PREFIX, {
        owner: "client_user",
        business_id: target.tenant,
        account_id: target.id,
        user_id: login.user_id,
        session_epoch: login.session_epoch,
      }),
    );
  });

  define(api, {
    method: "post",
    path: "/client/logout",
    summary: "End this session",
    tag,
    security,
    // spec: courier 5, CONTRACT "Sign-in and people": a password that was sent is changed before
    // anything else, sign-out included (403 password_change_required).
    middleware: [client()],
    response: SignedOutAnswer,
    refusals: { validation_failed: "X-Client-API-Key is the client's API key, not a session" },
  }, async (c) => {
    const token = c.req.header("X-Client-API-Key")?.trim() ?? "";
    if (!token.startsWith(CLIENT_SESSION_PREFIX)) {
      throw validationFailed([{ path: "X-Client-API-Key", message: "not a session token" }]);
    }
    await closeSession(c, token);
    return ok(c, { signed_out: true });
  });

  define(api, {
    method: "get",
    path: "/client/me",
    summary: "Who is signed in, and the client account",
    tag,
    security,
    middleware: [client()],
    response: ClientMeAnswer,
  }, async (c) => {
    const p = clientPrincipalOf(c);
    const account = await callerClient(c);
    return ok(c, {
      user: p.user && { id: p.user.id, email: p.user.email, name: p.user.name, role: p.user.role },
      client: {
        id: account.id,
        name: account.name,
        code: account.code,
        settlement_mode: account.settings.settlement_mode,
        billing_currency: account.settings.billing_currency,
      },
    });
  });

  define(api, {
    method: "post",
    path: "/client/password",
    summary: "Change the signed-in person's password; every session of theirs is signed out " +
      "(the one sent too) and a new one for this device answered. A weak " +
      "new password (short, one character repeated, the e-mail or its name part, a sequence, " +
      "a most common one) is refused naming new_password; wrong current_password guesses wait " +
      "as failed sign-ins do (429 rate_limited, Retry-After)",
    tag,
    security,
    middleware: [client({ passwordChange: true })],
    body: z.object({
      current_password: z.string().min(1).max(200),
      new_password: z.string().min(PASSWORD_CHARS_MIN, `at least ${PASSWORD_CHARS_MIN} characters`)
        .max(200),
    }),
    response: ClientSessionAnswer,
    refusals: {
      unauthenticated: "the client's API key was sent: a signed-in person is needed; or another " +
        "session of the person changed the password meanwhile (this session is signed out)",
      validation_failed: "current_password does not match; new_password is weak or the " +
        "current one",
      rate_limited: "repeated wrong current passwords: wait `Retry-After` seconds",
    },
  }, async (c, { body }) => {
    const p = clientPrincipalOf(c);
    if (!p.user) {
      throw new ApiError("unauthenticated", "a signed-in user is needed, not the API key");
    }
    // spec: courier 5: a held session must not guess the password faster than sign-in may (429
    // rate_limited with Retry-After), counted per person apart from failed sign-ins.
    const attempt = await beginPasswordCheck(c.var.env.loginThrottle, "client", p.user.id);
    const login = await ask(c, courierClientActor, p.business.id, p.client_id, {
      kind: "user_for_login",
      email: p.user.email,
    });
    if (!login || !("password_hash" in login)) {
      throw new ApiError("unauthenticated", "user not found");
    }
    // spec: courier 5: a change made since this session was checked signed it out: refused as
    // signed out, whatever the password sent (it is checked against the new one otherwise).
    if (login.session_epoch !== p.user.session_epoch) {
      throw new ApiError("unauthenticated", "this session was signed out by a password change");
    }
    if (!(await verifyPassword(body.current_password, login.password_hash))) {
      await attempt.failed();
      throw validationFailed([{ path: "current_password", message: "does not match" }]);
    }
    await attempt.succeeded();
    const weak = weakPasswordReason(body.new_password, p.user.email);
    if (weak) throw validationFailed([{ path: "new_password", message: weak }]);
    if (body.new_password === body.current_password) {
      throw validationFailed([{
        path: "new_password",
        message: "must differ from the current one",
      }]);
    }
    await ask(c, courierClientActor, p.business.id, p.client_id, {
      kind: "change_password",
      user_id: p.user.id,
      password_hash: await hashPassword(body.new_password, c.var.env.passwordIterations),
      // Only under the epoch the current password was checked in (a change meanwhile: 401).
      session_epoch: login.session_epoch,
      by: principalName(p),
    });
    return ok(
      c,
      await openSession(c, CLIENT_SESSION_PREFIX, {
        owner: "client_user",
        business_id: p.business.id,
        account_id: p.client_id,
        user_id: p.user.id,
        session_epoch: login.session_epoch + 1,
      }),
    );
  });

  define(api, {
    method: "post",
    path: "/client/api-key",
    summary: "Rotate the client's API key; shown once, the previous one stops at once",
    tag,
    security,
    middleware: [client()],
    status: 201,
    response: ClientApiKeyAnswer,
    refusals: {
      client_admin_only: "the signed-in person is not a client administrator",
      ...KEY_ALREADY_ROTATED,
    },
  }, async (c) => {
    const p = requireClientAdmin(c, "rotate the API key");
    const env = c.get("env");
    const caller = { courierId: p.business.id, clientId: p.client_id, by: principalName(p) };
    const rotated = await rotateClientKey(env, caller, clientKeyPrefix(env.name), p.key_hash);
    return ok(c, rotated, 201);
  });

  define(api, {
    method: "post",
    path: "/client/webhook",
    summary: "Set the client's webhook URL (public HTTPS only); returns the client's own signing " +
      "secret once. A new secret is issued each time; the previous one still signs a second " +
      "header for 24 hours",
    tag,
    security,
    middleware: [client()],
    body: z.object({ url: z.string().trim().min(1).max(2_000).openapi({ example: EXAMPLE_URL }) }),
    status: 201,
    response: ClientWebhookAnswer,
    refusals: {
      client_admin_only: "the signed-in person is not a client administrator",
      validation_failed: "the URL is not public HTTPS",
    },
  }, async (c, { body }) => {
    const p = requireClientAdmin(c, "set the webhook");
    const env = c.get("env");
    // spec: courier 8: public HTTPS only (and checked again, after DNS, at every attempt).
    const verdict = checkWebhookUrl(body.url, await webhookUrlRules(env));
    if (!verdict.ok) throw validationFailed([{ path: "url", message: verdict.message }]);
    const secret = newSecret("whsec_");
    const keyId = newId("whk");
    const owner = sealOwner("client_webhook", p.business.id, p.client_id);
    const sealed = await seal(env.dataKey, secret, owner);
    await ask(c, courierClientActor, p.business.id, p.client_id, {
      kind: "set_webhook",
      // What was checked is kept, never the text as sent (url_guard.ts).
      url: verdict.url.href,
      secret: { ...sealed, key_id: keyId, created_at: env.clock.now() },
      by: principalName(p),
    });
    // The URL kept, as reads will show it: never the text as sent.
    return ok(c, { url: verdict.url.href, webhook_secret: secret, key_id: keyId }, 201);
  });
}
