// POST /api/crypto-orders: the product page's crypto dialog opens an order and switches its coin.
import { data } from "react-router";
import { app } from "~/server/platform/context.server";
import { changeCoin, cryptoOrderView, openCryptoOrder } from "~/server/payments/crypto-orders.server";
import { readFormFields } from "~/server/platform/request-body.server";
import { getViewer } from "~/server/accounts/session.server";
import type { Route } from "./+types/api.crypto-orders";

export async function action({ request, context }: Route.ActionArgs) {
  const { db, env, catalogue } = app(context);
  const viewer = await getViewer(db, request);
  if (!viewer) return data({ ok: false as const, message: "Please login to purchase" }, { status: 401 });
  const form = await readFormFields(request);
  const result =
    form.intent === "coin"
      ? await changeCoin(db, env, viewer, form.orderNumber, form.coin)
      : await openCryptoOrder(db, env, catalogue, viewer, form);
  return result.ok
    ? data({ ok: true as const, order: cryptoOrderView(result.value) })
    : data({ ok: false as const, message: result.message }, { status: result.status });
}
