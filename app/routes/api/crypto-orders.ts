// POST /api/crypto-orders: the product page's crypto dialog opens an order for a plan in a coin (or
// gets back the member's open one), discounted when the member followed an affiliate's link (the
// referral cookie, read here where nothing is cached). It answers JSON: `{ ok: true, order }`, or
// `{ ok: false, message }` with the problem's status.
import { data } from "react-router";
import { problemStatus } from "~/http/problem-status.server";
import { app } from "~/http/context.server";
import { referralCode } from "~/http/referral.server";
import { readSubmission } from "~/http/submission.server";
import { type CryptoOrderAnswer, openCryptoOrderSchema } from "~/lib/crypto-orders";
import { getViewer } from "~/server/accounts/session.server";
import { cryptoOrderView, openCryptoOrder } from "~/server/crypto/crypto-orders.server";
import { cryptoSetup } from "~/server/crypto/crypto-setup.server";
import type { Route } from "./+types/crypto-orders";
import { callerOf } from "~/http/caller.server";

export async function action({ request, context }: Route.ActionArgs) {
  const { db, env, catalogue } = app(context);
  const viewer = await getViewer(db, callerOf(request));
  if (!viewer) return data<CryptoOrderAnswer>({ ok: false, message: "Please login to purchase" }, { status: 401 });
  const submission = await readSubmission(request, openCryptoOrderSchema);
  const setup = cryptoSetup(env, db);
  const result = submission.ok
    ? await openCryptoOrder({ db, setup }, catalogue, viewer, submission.value, referralCode(request))
    : submission;
  return result.ok
    ? data<CryptoOrderAnswer>({ ok: true, order: await cryptoOrderView(result.value, setup) })
    : data<CryptoOrderAnswer>({ ok: false, message: result.problem.message }, { status: problemStatus(result.problem) });
}
