// POST /api/crypto-orders: the product page's crypto dialog opens an order and switches its coin.
// It answers JSON: `{ ok: true, order }`, or `{ ok: false, message }` with the problem's status.
import { data } from "react-router";
import { problemStatus } from "~/http/answer.server";
import { app } from "~/http/context.server";
import { readSubmission } from "~/http/submission.server";
import { cryptoDialogSchema } from "~/lib/crypto-orders";
import { getViewer } from "~/server/accounts/session.server";
import { changeCoin, cryptoOrderView, openCryptoOrder } from "~/server/payments/crypto-orders.server";
import type { Route } from "./+types/api.crypto-orders";

export async function action({ request, context }: Route.ActionArgs) {
  const { db, env, catalogue } = app(context);
  const viewer = await getViewer(db, request);
  if (!viewer) return data({ ok: false as const, message: "Please login to purchase" }, { status: 401 });
  const submission = await readSubmission(request, cryptoDialogSchema);
  const result = !submission.ok
    ? submission
    : submission.value.intent === "coin"
      ? await changeCoin(db, env, viewer, submission.value)
      : await openCryptoOrder(db, env, catalogue, viewer, submission.value);
  return result.ok
    ? data({ ok: true as const, order: cryptoOrderView(result.value) })
    : data({ ok: false as const, message: result.problem.message }, { status: problemStatus(result.problem) });
}
