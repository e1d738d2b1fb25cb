// POST /dashboard/manage-codes/jobs: the webhook card's "Retry" on a fulfilment job the queue gave
// up on. Nested under the page, so only admins get here.
import { answer, answerInvalid } from "~/http/answer.server";
import { app } from "~/http/context.server";
import { readStaffAction } from "~/http/staff-action.server";
import { retryJobSchema } from "~/lib/schemas/stock";
import { retryDeadJob } from "~/server/jobs/job-consumer.server";
import type { Route } from "./+types/manage-codes.jobs";

const RETRY_FAILED = "Retry failed";

export async function action({ request, context }: Route.ActionArgs) {
  const submission = await readStaffAction(request, context, "failed-jobs", retryJobSchema);
  if (!submission.ok) return answerInvalid(submission, { titles: { invalid: RETRY_FAILED } });
  const { db, env } = app(context);
  return answer(await retryDeadJob({ db, queue: env.JOB_QUEUE }, submission.viewer.id, submission.value.id), {
    intent: "retry",
    titles: { "not-found": RETRY_FAILED },
    success: { title: "Job sent again", description: "It runs again in a moment; if it fails again, it comes back here." },
  });
}
