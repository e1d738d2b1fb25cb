// Checking a form against its valibot schema, the same way in the browser and on the server: the
// first problem (for the toast) and every field's first message (shown next to the field).
import * as v from "valibot";
import { fail, type Problem, type Result } from "./result";

export type FieldErrors = Record<string, string>;

/** A form's verdict: its output, or the first problem (for the toast) with every field's message. */
/** A checked form. A refused one also names the `intent` it was sent with: which of a page's forms it was. */
export type Submission<T> = { ok: true; value: T } | { ok: false; problem: Problem; fieldErrors: FieldErrors; intent?: string };

function fieldOf(issue: v.BaseIssue<unknown>): string | undefined {
  const key = issue.path?.[0]?.key;
  return typeof key === "string" ? key : undefined;
}

/** Every field's first message; a problem not tied to one field is left out. */
export function fieldErrors(issues: readonly v.BaseIssue<unknown>[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const field = fieldOf(issue);
    if (field && !(field in errors)) errors[field] = issue.message;
  }
  return errors;
}

/** The schema's verdict on `input`: its output, or the first problem with the field it concerns. */
export function checkForm<S extends v.GenericSchema>(schema: S, input: unknown): Result<v.InferOutput<S>> {
  const result = v.safeParse(schema, input);
  if (result.success) return { ok: true, value: result.output };
  const [first] = result.issues;
  return fail("invalid", first.message, { field: fieldOf(first) });
}

/** The schema's verdict on a submitted form: its output, or the first problem and every field's message. */
export function checkSubmission<S extends v.GenericSchema>(schema: S, input: unknown): Submission<v.InferOutput<S>> {
  const result = v.safeParse(schema, input);
  if (result.success) return { ok: true, value: result.output };
  const [first] = result.issues;
  return {
    ok: false,
    problem: { code: "invalid", message: first.message, field: fieldOf(first) },
    fieldErrors: fieldErrors(result.issues),
  };
}

/** In the browser: every field's message for `form`, and the first problem, or null when valid. */
export function formIssues<S extends v.GenericSchema>(
  schema: S,
  form: FormData | Record<string, unknown>,
): { problem: Problem; fields: FieldErrors } | null {
  const checked = checkSubmission(schema, form instanceof FormData ? Object.fromEntries(form) : form);
  return checked.ok ? null : { problem: checked.problem, fields: checked.fieldErrors };
}
