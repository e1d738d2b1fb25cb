// POST /api/checkout: turns cart lines into a checkout URL for the signed-in buyer.
import { data } from "react-router";
import { createCheckout } from "~/server/catalogue/checkout.server";
import { app } from "~/server/platform/context.server";
import { getViewer } from "~/server/accounts/session.server";
import type { Route } from "./+types/api.checkout";

export async function action({ request, context }: Route.ActionArgs) {
  const { db, env, catalogue } = app(context);
  const viewer = await getViewer(db, request);
  if (!viewer) return data({ message: "Please login to purchase" }, { status: 401 });
  let input: unknown;
  try {
    input = await request.json();
  } catch {
    return data({ message: "Invalid request" }, { status: 400 });
  }
  const result = await createCheckout({ db, config: env, catalogue, origin: new URL(request.url).origin }, input, viewer);
  return result.ok ? data({ checkoutUrl: result.checkoutUrl }) : data({ message: result.message }, { status: 422 });
}
