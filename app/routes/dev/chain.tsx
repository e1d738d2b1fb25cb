// /dev/chain: the simulated chain's control panel (development and tests only, like the demo
// checkout). Lists the open crypto orders; pays one in full or in part, and mines a block, so a
// crypto order can be followed from payment to key without a wallet. The tracker notices the
// payment as it would on a real chain.
import { Form, useNavigation } from "react-router";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { answerInvalid, answerProblem } from "~/http/answer.server";
import { app } from "~/http/context.server";
import { readSubmission } from "~/http/submission.server";
import { notFound } from "~/http/refusals.server";
import { CRYPTO_COINS, formatCoin } from "~/lib/crypto-orders";
import { CRYPTO_STATUS_LABEL } from "~/lib/orders";
import { devChainSchema, orderOnSimulatedChain, SIMULATED_CHAIN_ENABLED, simulatedChainView } from "~/server/crypto/dev-chain.server";
import { mineBlock, simulatePayment } from "~/server/crypto/simulated-chain.server";
import type { Route } from "./+types/chain";

export const meta: Route.MetaFunction = () => [{ title: "Simulated chain" }, { name: "robots", content: "noindex" }];

export async function loader({ context }: Route.LoaderArgs) {
  if (!SIMULATED_CHAIN_ENABLED) throw notFound();
  const { db, env } = app(context);
  return simulatedChainView(db, env);
}

export async function action({ request, context }: Route.ActionArgs) {
  if (!SIMULATED_CHAIN_ENABLED) throw notFound();
  const { db, env } = app(context);
  const submission = await readSubmission(request, devChainSchema);
  if (!submission.ok) return answerInvalid(submission);
  const form = submission.value;
  if (form.intent === "mine") return { mined: await mineBlock(db, form.coin) };
  const order = await orderOnSimulatedChain(db, env, form.orderNumber);
  if (!order.ok) return answerProblem(order.problem);
  const due = Math.max((order.value.amountUnits ?? 0) - order.value.receivedUnits, 1);
  const units = form.intent === "pay-full" ? due : Math.ceil(due / 2);
  return { paid: await simulatePayment(db, order.value.cryptoType, order.value.walletAddress, units) };
}

export default function DevChain({ loaderData }: Route.ComponentProps) {
  const { orders, tips } = loaderData;
  const busy = useNavigation().state !== "idle";
  return (
    <div className="mx-auto max-w-4xl space-y-6 px-4 py-10">
      <h1 className="text-3xl font-black tracking-tight">Simulated chain</h1>
      <p className="text-sm text-muted">
        Development only. Payments made here go to the orders' own addresses; the tracker picks them up within seconds.
      </p>
      <Card className="flex flex-wrap items-center gap-3">
        {CRYPTO_COINS.map((coin) => (
          <Form key={coin} method="post" className="flex items-center gap-2">
            <input type="hidden" name="intent" value="mine" />
            <input type="hidden" name="coin" value={coin} />
            <span className="text-sm">
              {coin} height <span className="font-mono">{tips[coin] ?? "—"}</span>
            </span>
            <Button type="submit" variant="outline" disabled={busy || tips[coin] === null}>
              Mine a {coin} block
            </Button>
          </Form>
        ))}
      </Card>
      <Card>
        <h2 className="font-bold">Open crypto orders ({orders.length})</h2>
        <ul className="mt-3 divide-y divide-line text-sm">
          {orders.length === 0 ? <li className="py-2 text-muted">No open crypto orders on the simulated chain.</li> : null}
          {orders.map((order) => (
            <li key={order.orderNumber} className="flex flex-wrap items-center gap-x-4 gap-y-2 py-3">
              <span className="font-mono">{order.orderNumber}</span>
              <Badge tone="yellow">{CRYPTO_STATUS_LABEL[order.status]}</Badge>
              <span className="font-mono">
                paid {formatCoin(order.onChainUnits)} of {formatCoin(order.amountUnits ?? 0)} {order.cryptoType}
                {order.unconfirmed ? " (unconfirmed)" : ""}
              </span>
              <span className="w-full font-mono text-xs break-all text-muted">{order.walletAddress}</span>
              <Form method="post" className="flex gap-2">
                <input type="hidden" name="orderNumber" value={order.orderNumber} />
                <Button type="submit" name="intent" value="pay-full" disabled={busy}>
                  Pay in full
                </Button>
                <Button type="submit" name="intent" value="pay-part" variant="outline" disabled={busy}>
                  Pay part
                </Button>
              </Form>
            </li>
          ))}
        </ul>
      </Card>
    </div>
  );
}
