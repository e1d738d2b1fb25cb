// Reading a submitted form with the schema its page also checks in the browser. Unreadable and
// oversized bodies are answered by the body reader (400/413) before any schema runs.
import type * as v from "valibot";
import { checkForm } from "~/lib/form-schema";
import type { Result } from "~/lib/result";
import { readFormFields } from "~/server/platform/request-body.server";

export async function readSubmission<S extends v.GenericSchema>(request: Request, schema: S): Promise<Result<v.InferOutput<S>>> {
  return checkForm(schema, await readFormFields(request));
}
