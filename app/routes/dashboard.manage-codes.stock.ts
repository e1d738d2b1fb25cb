// POST /dashboard/manage-codes/stock: the Manage Codes page's stock forms (add codes, delete an
// unsold one). Nested under the page, so only admins get here.
import { answer, answerProblem } from "~/http/answer.server";
import { app, mailingDeps } from "~/http/context.server";
import { readSubmission } from "~/http/submission.server";
import type { Problem } from "~/lib/result";
import { stockFormSchema } from "~/lib/schemas/stock";
import type { Toast } from "~/lib/toast";
import { type Restocked, stockCodes } from "~/server/fulfilment/restock.server";
import { deleteAvailableCode } from "~/server/fulfilment/stock.server";
import type { Route } from "./+types/dashboard.manage-codes.stock";

const DELETE_FAILED = "Failed to delete code";

/** The delete form's only field is the code's id; the add form's problems read "Error". */
const inputTitle = (problem: Problem) => (problem.field === "id" ? DELETE_FAILED : "Error");

function stockedToast({ variantTitle, added, duplicatesInInput, alreadyStored, backordersFilled }: Restocked): Toast {
  const skipped =
    duplicatesInInput + alreadyStored > 0 ? `\nSkipped: ${duplicatesInInput} duplicate(s) in input, ${alreadyStored} already in database` : "";
  const filled = backordersFilled > 0 ? `\n${backordersFilled} waiting order unit(s) filled and e-mailed` : "";
  return { title: "Success", description: `Added ${added} new codes for ${variantTitle}${skipped}${filled}` };
}

export async function action({ request, context }: Route.ActionArgs) {
  const submission = await readSubmission(request, stockFormSchema);
  if (!submission.ok) return answerProblem(submission.problem, { titles: { invalid: inputTitle } });
  const form = submission.value;
  if (form.intent === "add") {
    const result = await stockCodes(mailingDeps(context), app(context).catalogue, form.variantId, form.codes);
    return answer(result, { intent: "add", titles: { conflict: "No New Codes" }, success: stockedToast });
  }
  return answer(await deleteAvailableCode(app(context).db, form.id), {
    intent: "delete",
    titles: { conflict: DELETE_FAILED },
    success: { title: "Code deleted successfully" },
  });
}
