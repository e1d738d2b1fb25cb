// Reading a submitted form with the schema its page also checks in the browser. A body that is
// not a form, or is over the form cap, is answered at once with its problem's status (400/413),
// before any schema runs: it comes from no form of ours, so there is no field to show it next to.
import { data } from "react-router";
import type * as v from "valibot";
import { checkForm } from "~/lib/form-schema";
import type { Result } from "~/lib/result";
import { readFormFields } from "~/server/platform/request-body.server";
import { problemStatus } from "./answer.server";

export async function readSubmission<S extends v.GenericSchema>(request: Request, schema: S): Promise<Result<v.InferOutput<S>>> {
  const fields = await readFormFields(request);
  if (!fields.ok) throw data(fields.problem.message, { status: problemStatus(fields.problem) });
  return checkForm(schema, fields.value);
}
