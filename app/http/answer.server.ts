// The one way a route answers a domain Result: a problem code becomes an HTTP status and a toast,
// a success becomes a toast (fetcher forms get data; navigations redirect with a flash toast).
import { data } from "react-router";
import type { Answer } from "~/lib/answer";
import type { FieldErrors } from "~/lib/form-schema";
import type { Problem, ProblemCode, Result } from "~/lib/result";
import { problemHeaders, problemStatus } from "./problem-status.server";
import type { Toast } from "~/lib/toast";

/** Toast titles by problem code: a fixed title, or one chosen from the problem. Unlisted codes read "Error". */
export type ProblemTitles = Partial<Record<ProblemCode, string | ((problem: Problem) => string)>>;

export function problemToast(problem: Problem, titles: ProblemTitles = {}): Toast {
  const title = titles[problem.code] ?? "Error";
  return { title: typeof title === "function" ? title(problem) : title, description: problem.message, variant: "destructive" };
}

export interface AnswerOptions<T> {
  success: Toast | ((value: T) => Toast);
  titles?: ProblemTitles;
  intent?: string;
  headers?: HeadersInit;
}

/** A fetcher form's answer: 200 with the success toast, or the problem's status and toast. */
export function answer<T>(result: Result<T>, options: AnswerOptions<T>) {
  const { intent, headers } = options;
  if (result.ok) {
    const toast = typeof options.success === "function" ? options.success(result.value) : options.success;
    return data<Answer<T>>({ ok: true, intent, toast, value: result.value }, { headers });
  }
  return answerProblem(result.problem, options);
}

/** A problem's answer: its status and toast; with `fieldErrors`, every field's message for the form to show. */
export function answerProblem(
  problem: Problem,
  options: { titles?: ProblemTitles; intent?: string; headers?: HeadersInit; fieldErrors?: FieldErrors } = {},
) {
  const headers = new Headers(options.headers);
  for (const [name, value] of Object.entries(problemHeaders(problem) ?? {})) headers.set(name, value);
  return data<Answer<never>>(
    {
      ok: false,
      intent: options.intent,
      toast: problemToast(problem, options.titles),
      problem,
      ...(options.fieldErrors ? { fieldErrors: options.fieldErrors } : {}),
    },
    { status: problemStatus(problem), headers },
  );
}

/** A form that did not pass its schema: 400, the first problem as the toast, and every field's message. */
export function answerInvalid(
  submission: { problem: Problem; fieldErrors: FieldErrors; intent?: string },
  options: { titles?: ProblemTitles; intent?: string; headers?: HeadersInit } = {},
) {
  return answerProblem(submission.problem, { intent: submission.intent, ...options, fieldErrors: submission.fieldErrors });
}
