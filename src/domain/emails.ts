/**
 * An e-mail a new person cannot have. A portal user signs in with e-mail and password alone
 * (POST /business/login), as a client user does (courier 5, POST /client/login), so each e-mail
 * names one portal user and one client user across every business: unique for the whole service,
 * not per tenant. The refusal is one code and the same words whoever holds the address (the
 * caller's own business or client, or another tenant), and names nothing but the address sent,
 * so it tells a caller nothing about another tenant.
 */

/** Who an e-mail signs in as. */
export type EmailHolder = "portal user" | "client user";

export const EMAIL_TAKEN = "email_taken";

/** The refusal's message, the same whoever holds the address. */
export function emailTakenMessage(holder: EmailHolder, email: string): string {
  return `a ${holder} already has this e-mail: ${email}`;
}
