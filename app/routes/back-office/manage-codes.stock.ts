// POST /dashboard/manage-codes/stock: the Manage Codes page's stock forms (add codes, delete an
// unsold one, set or clear a variant's low-stock threshold, delete unsold codes in bulk: preview,
// confirm, undo). Nested under the page, so only
// accounts that may manage stock get here.
import { answer, answerInvalid } from "~/http/answer.server";
import { app, mailingDeps } from "~/http/context.server";
import { readStaffAction } from "~/http/staff-action.server";
import type { Problem } from "~/lib/result";
import { stockFormSchema } from "~/lib/schemas/stock";
import type { Toast } from "~/lib/toast";
import { clientAddress } from "~/http/caller.server";
import { removeAvailableCode, removeCodesInBulk, type Restocked, restoreCodesInBulk, stockCodes } from "~/server/orders/restock.server";
import { previewStockDeletion } from "~/server/keys/bulk-stock.server";
import { counted } from "~/lib/format";
import { setStockThreshold } from "~/server/keys/stock-alerts.server";
import type { Route } from "./+types/manage-codes.stock";

const DELETE_FAILED = "Failed to delete code";

/** The delete form's only field is the code's id; a threshold's problems read "Invalid threshold"; the add form's "Error". */
const inputTitle = (problem: Problem) =>
  problem.field === "id" ? DELETE_FAILED : problem.field === "threshold" ? "Invalid threshold" : "Error";

function stockedToast({ variantTitle, added, duplicatesInInput, alreadyStored, backordersFilled }: Restocked): Toast {
  const skipped =
    duplicatesInInput + alreadyStored > 0
      ? `\nSkipped: ${duplicatesInInput} duplicate(s) in input, ${alreadyStored} already in database`
      : "";
  const filled = backordersFilled > 0 ? `\n${backordersFilled} waiting order unit(s) filled and e-mailed` : "";
  return { title: "Success", description: `Added ${added} new codes for ${variantTitle}${skipped}${filled}` };
}

const thresholdToast = ({ variantTitle, threshold }: { variantTitle: string; threshold: number | null }): Toast =>
  threshold === null
    ? { title: "Alert removed", description: `No low-stock alert for ${variantTitle}` }
    : { title: "Alert saved", description: `Admins are e-mailed when ${variantTitle} is down to ${threshold} available code(s)` };

export async function action({ request, context }: Route.ActionArgs) {
  const submission = await readStaffAction(request, context, "stock", stockFormSchema);
  if (!submission.ok) return answerInvalid(submission, { titles: { invalid: inputTitle } });
  const { value: form, viewer } = submission;
  switch (form.intent) {
    case "add": {
      const result = await stockCodes(mailingDeps(context), app(context).catalogue, form.variantId, form.codes);
      return answer(result, { intent: "add", titles: { conflict: "No New Codes" }, success: stockedToast });
    }
    case "delete":
      return answer(await removeAvailableCode(mailingDeps(context), form.id), {
        intent: "delete",
        titles: { conflict: DELETE_FAILED },
        success: { title: "Code deleted successfully" },
      });
    case "bulk-preview":
      return answer(await previewStockDeletion(app(context).db, viewer, { variantId: form.variantId, codes: form.codes }), {
        intent: form.intent,
        titles: { invalid: inputTitle, conflict: "Nothing to delete" },
        success: ({ count }) => ({ title: "Preview ready", description: `${counted(count, "code")} would be deleted` }),
      });
    case "bulk-delete":
      return answer(await removeCodesInBulk(mailingDeps(context), viewer, form.token, clientAddress(request)), {
        intent: form.intent,
        titles: { conflict: DELETE_FAILED, "not-found": DELETE_FAILED },
        success: ({ deleted, variantTitle }) => ({
          title: "Codes deleted",
          description: `${counted(deleted, "code")} of ${variantTitle} deleted; Undo puts them back within the hour`,
        }),
      });
    case "bulk-undo":
      return answer(await restoreCodesInBulk(mailingDeps(context), viewer, form.token, clientAddress(request)), {
        intent: form.intent,
        titles: { conflict: "Nothing undone", "not-found": "Nothing undone" },
        success: ({ restored, skipped, variantTitle, backordersFilled }) => ({
          title: "Deletion undone",
          description:
            `${counted(restored, "code")} of ${variantTitle} back in stock, unsold` +
            (skipped > 0 ? `; ${counted(skipped, "code")} skipped: stocked again since` : "") +
            (backordersFilled > 0 ? `; ${backordersFilled} waiting order unit(s) filled and e-mailed` : ""),
        }),
      });
    case "threshold":
    case "clear-threshold": {
      const threshold = form.intent === "threshold" ? form.threshold : null;
      const result = await setStockThreshold(
        mailingDeps(context),
        app(context).catalogue,
        viewer,
        { variantId: form.variantId, threshold },
        clientAddress(request),
      );
      return answer(result, { intent: form.intent, titles: { invalid: inputTitle }, success: thresholdToast });
    }
  }
}
