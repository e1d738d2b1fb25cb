// POST /dashboard/releases/uploads: starts a release's upload (the form's fields, the catalogue
// product it is a build of, and the file's name and size; the file itself follows in parts). Nested under the Releases page, so only staff
// who may manage releases get here; answers JSON in the app's answer shape.
import { answer, answerInvalid } from "~/http/answer.server";
import { app } from "~/http/context.server";
import { readStaffAction } from "~/http/staff-action.server";
import { startReleaseActionSchema } from "~/lib/schemas/releases";
import { startRelease } from "~/server/releases/release-uploads.server";
import { plansByProduct } from "~/server/catalogue/catalogue.server";
import type { Route } from "./+types/releases.uploads";

const UPLOAD_FAILED = "Upload failed";

export async function action({ request, context }: Route.ActionArgs) {
  const submission = await readStaffAction(request, context, "release", startReleaseActionSchema);
  if (!submission.ok) return answerInvalid(submission, { titles: { invalid: UPLOAD_FAILED } });
  const { db, env, catalogue } = app(context);
  const products = new Set((await plansByProduct(catalogue)).keys());
  return answer(await startRelease(db, env.DOWNLOADS, submission.viewer, submission.value, products), {
    intent: "start",
    titles: { conflict: UPLOAD_FAILED, invalid: UPLOAD_FAILED },
    success: { title: "Upload started" },
  });
}
