// POST /dashboard/manage-codes/jobs: the webhook card's "Retry" on a fulfilment job the queue gave
// up on. Nested under the page, so only admins get here.
import { answer, answerProblem } from "~/http/answer.server";
import { app } from "~/http/context.server";
import { currentViewer } from "~/http/guards.server";
import { readSubmission } from "~/http/submission.server";
import { retryJobSchema } from "~/lib/schemas/stock";
import { retryDeadJob } from "~/server/jobs/fulfilment-queue.server";
import type { Route } from "./+types/manage-codes.jobs";

const RETRY_FAILED = "Retry failed";

export async function action({ request, context }: Route.ActionArgs) {
  const submission = await readSubmission(request, retryJobSchema);
  if (!submission.ok) return answerProblem(submission.problem, { titles: { invalid: RETRY_FAILED } });
  const { db, env } = app(context);
  return answer(await retryDeadJob({ db, queue: env.FULFILMENT_QUEUE }, currentViewer(context).id, submission.value.id), {
    intent: "retry",
    titles: { "not-found": RETRY_FAILED },
    success: { title: "Job sent again", description: "It runs again in a moment; if it fails again, it comes back here." },
  });
}
