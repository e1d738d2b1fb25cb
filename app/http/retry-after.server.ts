// Throttled actions at the route edge. `answerProblem` puts Retry-After on the action's answer;
// a document request takes its headers from the route's `headers` export, so the route passes it on.
import type { HeadersFunction } from "react-router";
import type { ProblemTitles } from "./answer.server";

/** The `headers` export of a route whose action may be throttled. */
export const passRetryAfter: HeadersFunction = ({ actionHeaders }) => {
  const retryAfter = actionHeaders.get("Retry-After");
  return retryAfter ? { "Retry-After": retryAfter } : new Headers();
};

/** The toast title of a throttled attempt, for a route's problem titles. */
export const throttledTitles = { "rate-limited": "Too Many Attempts" } satisfies ProblemTitles;
