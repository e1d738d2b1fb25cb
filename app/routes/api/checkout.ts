// POST /api/checkout: turns cart lines into a checkout URL for the signed-in buyer, carrying the
// referral (an affiliate's code typed into the cart, else the referral cookie) and its discount
// (decision 058). An unknown code typed in is refused (422), never silently dropped. The cart reads
// JSON from it: `{ checkoutUrl, cartId }`, or `{ message }` with a status it tells apart (401: log in).
// A body over the JSON cap is 413, one that is not JSON 400, before any cart rule runs.
// GET /api/checkout?cart=<id>&cart=<id>: which of the cart's checkouts were paid, and by which
// order (decision 045). Cart ids are unguessable, so no sign-in is asked; the answer is private.
import { data } from "react-router";
import { problemStatus } from "~/http/problem-status.server";
import { app } from "~/http/context.server";
import { referralCode } from "~/http/referral.server";
import { REFERRAL_ATTRIBUTE } from "~/lib/affiliates";
import { checkForm } from "~/lib/form-schema";
import type { Problem } from "~/lib/result";
import { getViewer } from "~/server/accounts/session.server";
import { referralFor } from "~/server/affiliates/programme.server";
import { type CartExtras, checkoutSchema, createCheckout, NO_EXTRAS, paidCarts, paidCartsSchema } from "~/server/catalogue/checkout.server";
import { readJson } from "~/http/request-body.server";
import type { Route } from "./+types/checkout";
import { callerOf } from "~/http/caller.server";

// A cart that cannot become a checkout, whether its lines break the rules or the provider refuses
// or fails, has always been answered 422; no problem code stands for that status.
const CHECKOUT_REFUSED = 422;

function refusal(problem: Problem, status = problemStatus(problem)) {
  return data({ message: problem.message, ...(problem.field === "code" ? { field: "code" } : {}) }, { status });
}

export async function action({ request, context }: Route.ActionArgs) {
  const { db, env, catalogue } = app(context);
  const viewer = await getViewer(db, callerOf(request));
  if (!viewer) return refusal({ code: "unauthenticated", message: "Please login to purchase" });
  const body = await readJson(request);
  if (!body.ok) return refusal(body.problem);
  const input = checkForm(checkoutSchema, body.value);
  if (!input.ok) return refusal(input.problem, CHECKOUT_REFUSED);
  const typed = input.value.code;
  const referral = await referralFor(db, typed || referralCode(request), viewer);
  if (typed && !referral) return refusal({ code: "invalid", message: "This code is not valid", field: "code" }, CHECKOUT_REFUSED);
  const extras: CartExtras = referral
    ? {
        attributes: [{ key: REFERRAL_ATTRIBUTE, value: referral.code }],
        discount: { code: referral.discountCode, percent: referral.discountRate },
      }
    : NO_EXTRAS;
  const result = await createCheckout({ db, config: env, catalogue, origin: new URL(request.url).origin }, input.value, viewer, extras);
  return result.ok ? data(result.value) : refusal(result.problem, CHECKOUT_REFUSED);
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const carts = checkForm(paidCartsSchema, new URL(request.url).searchParams.getAll("cart"));
  if (!carts.ok) return refusal(carts.problem);
  return data({ paid: await paidCarts(app(context).db, carts.value) }, { headers: { "Cache-Control": "private, no-store" } });
}
