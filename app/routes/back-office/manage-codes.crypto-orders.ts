// POST /dashboard/manage-codes/crypto-orders: the Manage Codes page's crypto queue, the orders the
// chain did not settle on its own (fulfil one with a key, handed out by the job queue; cancel
// it; or mark an overpaid one as handled). Nested under the page, so only admins get here.
import { answer, answerInvalid, type ProblemTitles } from "~/http/answer.server";
import { app } from "~/http/context.server";
import { readStaffAction } from "~/http/staff-action.server";
import { cryptoQueueSchema } from "~/lib/crypto-orders";
import { clientAddress } from "~/http/caller.server";
import { cancelCryptoOrder, fulfilCryptoOrder, resolveCryptoOrder } from "~/server/crypto/crypto-review.server";
import type { Route } from "./+types/manage-codes.crypto-orders";

const FULFIL_FAILED = "Failed to fulfill order";
const fulfilTitles: ProblemTitles = { invalid: FULFIL_FAILED, "not-found": FULFIL_FAILED, conflict: FULFIL_FAILED };

export async function action({ request, context }: Route.ActionArgs) {
  const submission = await readStaffAction(request, context, "crypto-queue", cryptoQueueSchema);
  // Only the fulfil form has a field of its own (the code); a bad order id reads "Error".
  if (!submission.ok) return answerInvalid(submission, { titles: { invalid: (p) => (p.field === "code" ? FULFIL_FAILED : "Error") } });
  const { value: form, viewer: admin } = submission;
  if (form.intent === "fulfil") {
    const { db, env } = app(context);
    return answer(await fulfilCryptoOrder({ db, queue: env.JOB_QUEUE }, admin, form), {
      intent: "fulfil",
      titles: fulfilTitles,
      success: ({ orderNumber, customerEmail }) => ({
        title: "Success",
        description: `Order ${orderNumber} fulfilled successfully: the key is on its way to ${customerEmail}`,
      }),
    });
  }
  if (form.intent === "resolve") {
    return answer(await resolveCryptoOrder(app(context).db, admin, form.orderId), {
      intent: "resolve",
      success: ({ orderNumber }) => ({ title: "Marked as handled", description: `Order ${orderNumber} left the queue` }),
    });
  }
  return answer(await cancelCryptoOrder(app(context).db, admin, form.orderId, { seen: form.seen, ip: clientAddress(request) }), {
    intent: "cancel",
    titles: { conflict: "Not cancelled" },
    success: ({ orderNumber }) => ({ title: "Order cancelled", description: `Order ${orderNumber} was cancelled` }),
  });
}
