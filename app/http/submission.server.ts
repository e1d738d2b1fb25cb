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

/** The form checked with `schema`: its output, or the first problem and every field's message. */
export async function readSubmission<S extends v.GenericSchema>(request: Request, schema: S): Promise<Submission<v.InferOutput<S>>> {
  return checkSubmission(schema, await readFields(request));
}
