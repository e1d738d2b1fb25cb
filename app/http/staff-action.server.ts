// One way into every staff action: read the form's fields (size-capped), check the capability of
// the intent it names, from one table (app/lib/staff-actions.ts), before anything else in it is
// read, so a refused role learns nothing about its input (403); then check the fields with the
// form's schema and keep every field's problem, for the form to show them all (400).
import type { RouterContextProvider } from "react-router";
import type * as v from "valibot";
import { checkSubmission, type FieldErrors } from "~/lib/form-schema";
import type { Problem } from "~/lib/result";
import { capabilitiesFor, type StaffForm, type StaffIntent } from "~/lib/staff-actions";
import type { Viewer } from "~/lib/viewer";
import { assertCapability } from "./guards.server";
import { readFields } from "./submission.server";

export type StaffAction<T> =
  { ok: true; value: T; viewer: Viewer } | { ok: false; problem: Problem; fieldErrors: FieldErrors; intent: string | undefined };

/**
 * The staff form `form` as `schema` reads it, and who sent it. `schema` must read only intents the
 * table lists for `form`, so a new intent cannot go unguarded.
 */
export async function readStaffAction<F extends StaffForm, S extends v.GenericSchema<unknown, { intent: StaffIntent<F> }>>(
  request: Request,
  context: Readonly<RouterContextProvider>,
  form: F,
  schema: S,
): Promise<StaffAction<v.InferOutput<S>>> {
  const fields = await readFields(request);
  const viewer = assertCapability(context, ...capabilitiesFor(form, fields.intent));
  const checked = checkSubmission(schema, fields);
  return checked.ok ? { ...checked, viewer } : { ...checked, intent: fields.intent };
}
