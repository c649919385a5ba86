/**
 * What makes a new password too weak to take (courier 5: a client user sets their own password
 * after the sent one). Pure: the caller names the field and refuses with 422.
 */
import { PASSWORD_CHARS_MIN } from "../limits.ts";

/**
 * The most common passwords of 10 or more characters (shorter ones fail the length rule), from
 * published breach-frequency lists; kept short on purpose: it stops the first guesses tried.
 */
const COMMON_PASSWORDS: ReadonlySet<string> = new Set([
  "password123",
  "password12",
  "password1!",
  "passw0rd123",
  "qwertyuiop",
  "qwerty1234",
  "qwerty12345",
  "1q2w3e4r5t",
  "1qaz2wsx3edc",
  "iloveyou123",
  "letmein123",
  "welcome123",
  "admin12345",
  "changeme123",
  "football123",
]);

/** Why `password` is too weak for the user with `email`, or null when it will do. */
export function weakPasswordReason(password: string, email: string): string | null {
  if (password.length < PASSWORD_CHARS_MIN) return `at least ${PASSWORD_CHARS_MIN} characters`;
  const lower = password.toLowerCase();
  if (new Set(lower).size === 1) return "one character repeated is too easy to guess";
  const address = email.trim().toLowerCase();
  if (lower === address || lower === address.split("@")[0]) {
    return "must not be your e-mail address or its name part";
  }
  if (isSequence(lower)) return "a sequence of digits or letters is too easy to guess";
  if (COMMON_PASSWORDS.has(lower)) return "one of the most common passwords; choose another";
  return null;
}

/**
 * Only digits or only letters, each one step up (or each one step down) from the last; digits
 * wrap (`7890123`), as they do on a keyboard row.
 */
function isSequence(text: string): boolean {
  const alphabet = /^[0-9]+$/.test(text)
    ? "0123456789"
    : /^[a-z]+$/.test(text)
    ? "abcdefghijklmnopqrstuvwxyz"
    : null;
  if (alphabet === null) return false;
  const wraps = alphabet.length === 10;
  const steps = new Set<number>();
  for (let i = 1; i < text.length; i++) {
    let step = alphabet.indexOf(text[i]!) - alphabet.indexOf(text[i - 1]!);
    if (wraps) step = ((step + 15) % 10) - 5; // 9 -> 0 is one step up, 0 -> 9 one step down
    steps.add(step);
  }
  return steps.size === 1 && (steps.has(1) || steps.has(-1));
}
