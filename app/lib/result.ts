// What every domain function answers: the value, or a problem with a machine code, a message in
// the domain's words and, for bad input, the field it concerns. Domain code knows nothing of HTTP
// statuses or toasts; the route edge (app/http) turns a problem into both.
export type ProblemCode =
  | "invalid" // the input breaks a rule
  | "unauthenticated" // who is asking could not be established (wrong password, expired challenge)
  | "forbidden" // known, but not allowed (unverified e-mail, not an admin)
  | "not-found" // no such thing, or not yours (the two answer alike)
  | "conflict" // the current state does not allow it (already done, taken, sold out)
  | "too-large" // more than the limit allows (an upload over its size cap)
  | "rate-limited" // too many attempts; `retryAfterSeconds` says when to try again
  | "unavailable" // a setting or an outside service the request needs is missing or down
  | "failed"; // it broke on our side; trying again is safe

export interface Problem {
  code: ProblemCode;
  message: string;
  /** The form field the problem is about, so the form can show it next to that field. */
  field?: string;
  retryAfterSeconds?: number;
}

export type Result<T = undefined> = { ok: true; value: T } | { ok: false; problem: Problem };

export function ok(): Result<undefined>;
export function ok<T>(value: T): Result<T>;
export function ok<T>(value?: T): Result<T | undefined> {
  return { ok: true, value };
}

export function fail(code: ProblemCode, message: string, details: Omit<Problem, "code" | "message"> = {}): { ok: false; problem: Problem } {
  return { ok: false, problem: { code, message, ...details } };
}
