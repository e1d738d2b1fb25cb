// What a problem means in HTTP: its status, and the headers it implies. Pages, forms and the
// licence API answer with the same table.
import type { Problem, ProblemCode } from "~/lib/result";

const PROBLEM_STATUS: Record<ProblemCode, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  "not-found": 404,
  conflict: 409,
  "too-large": 413,
  "rate-limited": 429,
  failed: 500,
  unavailable: 503,
};

export function problemStatus(problem: Problem): number {
  return PROBLEM_STATUS[problem.code];
}

/** Headers a problem implies: when to try again after a rate limit. */
export function problemHeaders(problem: Problem): HeadersInit | undefined {
  return problem.retryAfterSeconds ? { "Retry-After": String(problem.retryAfterSeconds) } : undefined;
}
