// Problem details (RFC 9457) for the seller API: a domain problem becomes `application/problem+json`
// with the status from the edge's one table and the machine code the licence API's errors use.
import type { Problem, ProblemCode } from "~/lib/result";
import { problemHeaders, problemStatus } from "./problem-status.server";

/** The stable codes of API errors: the licence API's, and the ones only the seller API needs. */
export const API_ERROR_CODES: Record<ProblemCode, string> = {
  invalid: "INVALID_REQUEST",
  unauthenticated: "UNAUTHORIZED",
  forbidden: "FORBIDDEN",
  "not-found": "NOT_FOUND",
  conflict: "CONFLICT",
  "too-large": "REQUEST_TOO_LARGE",
  "rate-limited": "RATE_LIMITED",
  failed: "FAILED",
  unavailable: "UNAVAILABLE",
};

const TITLES: Record<ProblemCode, string> = {
  invalid: "Invalid request",
  unauthenticated: "Unauthorized",
  forbidden: "Forbidden",
  "not-found": "Not found",
  conflict: "Conflict",
  "too-large": "Request too large",
  "rate-limited": "Too many requests",
  failed: "Something failed on our side",
  unavailable: "Unavailable",
};

export const API_HEADERS = { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" };

/** The problem as RFC 9457 describes it; `code` and `field` are this API's extension members. */
export function problemResponse(problem: Problem, headers: HeadersInit = {}): Response {
  const status = problemStatus(problem);
  const all = new Headers({ ...API_HEADERS, ...problemHeaders(problem), "Content-Type": "application/problem+json" });
  for (const [name, value] of new Headers(headers)) all.set(name, value);
  // A refused token is told how to authenticate (RFC 6750).
  if (problem.code === "unauthenticated") all.set("WWW-Authenticate", 'Bearer realm="seller-api", error="invalid_token"');
  const body = {
    type: "about:blank",
    title: TITLES[problem.code],
    status,
    detail: problem.message,
    code: API_ERROR_CODES[problem.code],
    ...(problem.field ? { field: problem.field } : {}),
  };
  return new Response(JSON.stringify(body), { status, headers: all });
}
