// Reading a submitted form with the schema its page also checks in the browser. A body that is
// not a form, or is over the form cap, is answered at once with its problem's status (400/413),
// before any schema runs: it comes from no form of ours, so there is no field to show it next to.
import { data } from "react-router";
import type * as v from "valibot";
import { checkSubmission, type Submission } from "~/lib/form-schema";
import { readFormFields } from "~/http/request-body.server";
import { problemStatus } from "./problem-status.server";

/** The form's text fields, or the answer (thrown) for a body that is not a form we could have sent. */
export async function readFields(request: Request): Promise<Record<string, string>> {
  const fields = await readFormFields(request);
  if (!fields.ok) throw data(fields.problem.message, { status: problemStatus(fields.problem) });
  return fields.value;
}

/** Longer than any intent of ours: a refused form's intent is echoed only for matching, never shown. */
const MAX_INTENT_LENGTH = 50;

/**
 * The form checked with `schema`: its output, or the first problem, every field's message and the
 * intent the form was sent with, so a page with several forms shows the answer on the one sent
 * (a form sent before the page's scripts ran is checked only here).
 */
export async function readSubmission<S extends v.GenericSchema>(request: Request, schema: S): Promise<Submission<v.InferOutput<S>>> {
  const fields = await readFields(request);
  const checked = checkSubmission(schema, fields);
  return checked.ok || !fields.intent ? checked : { ...checked, intent: fields.intent.slice(0, MAX_INTENT_LENGTH) };
}
