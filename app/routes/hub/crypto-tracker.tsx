// /dashboard/crypto-tracker: look up a crypto order by number (only your own; staff with orders.view
// read any, without its key), see how to pay it and what the chain shows, and collect the key once
// the order is complete.
// While the order waits for its payment, the page loads again every few seconds, and each load
// asks the chain (at most once per 10 s per order, however many trackers are open).
import { useEffect } from "react";
import { Form, useSearchParams } from "react-router";
import { Link } from "~/components/link";
import { CryptoOrderCard, STATUS_STYLE, WAITING } from "./+shared/crypto-order-card";
import { Search } from "~/components/icons";
import { LocalTime } from "~/components/local-time";
import { useToast } from "~/components/toaster";
import { useFormCheck } from "~/components/use-form-check";
import { useRecheckWhile } from "~/components/use-recheck";
import { useSearching } from "~/components/use-searching";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { describedBy, FieldError } from "~/components/ui/field";
import { inputClass } from "~/components/ui/input-class";
import { app } from "~/http/context.server";
import { currentViewer } from "~/http/guards.server";
import { BRAND } from "~/lib/brand";
import { orderLookupSchema } from "~/lib/crypto-orders";
import { CRYPTO_STATUS_LABEL } from "~/lib/orders";
import { checkForm } from "~/lib/form-schema";
import { cryptoOrderView, findOrderFor, ordersOf } from "~/server/crypto/crypto-orders.server";
import { cryptoSetup } from "~/server/crypto/crypto-setup.server";
import { checkOrder } from "~/server/crypto/crypto-watch.server";
import type { Route } from "./+types/crypto-tracker";

export const meta: Route.MetaFunction = () => [{ title: `Crypto Order Tracker | ${BRAND}` }];

export async function loader({ request, context }: Route.LoaderArgs) {
  const { db, env } = app(context);
  const viewer = currentViewer(context);
  const number = new URL(request.url).searchParams.get("order");
  // Read after the order's chain check, so the list agrees with the card.
  const recent = async () =>
    (await ordersOf(db, viewer.id)).map((o) => ({ orderNumber: o.orderNumber, status: o.status, createdAt: o.createdAt }));
  if (number === null) return { recent: await recent(), lookup: null };
  const lookup = checkForm(orderLookupSchema, { order: number });
  const found = lookup.ok ? await findOrderFor(db, viewer, lookup.value.order) : lookup;
  if (!found.ok) return { recent: await recent(), lookup: { ok: false as const, problem: found.problem } };
  const setup = cryptoSetup(env, db);
  const order = await checkOrder({ db, setup, queue: env.JOB_QUEUE }, found.value.order, { byBuyer: true });
  return {
    recent: await recent(),
    lookup: { ok: true as const, order: await cryptoOrderView(order, setup, { forBuyer: found.value.buyer }) },
  };
}

export default function CryptoTracker({ loaderData }: Route.ComponentProps) {
  const { lookup, recent } = loaderData;
  const [searchParams] = useSearchParams();
  const { toast } = useToast();
  const searching = useSearching("/dashboard/crypto-tracker");
  const search = useFormCheck(orderLookupSchema, { title: "Order Number Required" });

  const notFound = lookup && !lookup.ok && lookup.problem.code === "not-found" ? lookup.problem : null;
  useEffect(() => {
    if (notFound) toast({ title: "Order Not Found", description: notFound.message, variant: "destructive" });
  }, [notFound, toast]);
  // Any other problem with the number shows under it.
  const numberError = search.errors.order ?? (lookup && !lookup.ok && !notFound ? lookup.problem.message : undefined);

  const order = lookup?.ok ? lookup.order : null;
  // Every 5 s for up to an hour: the server reads the chain at most every 10 s anyway.
  useRecheckWhile(
    order !== null &&
      (WAITING.includes(order.status) || order.watchedLate || (order.paid && order.status !== "complete" && order.status !== "cancelled")),
    { everyMs: 5000, times: 720 },
  );

  return (
    <div className="mx-auto max-w-3xl space-y-6">
      <h1 className="text-3xl font-black tracking-tight">CRYPTO ORDER TRACKER</h1>
      <Card>
        <Form method="get" className="flex flex-col gap-2 sm:flex-row" onSubmit={search.onSubmit}>
          <label htmlFor="order-number" className="sr-only">
            Order number
          </label>
          <input
            id="order-number"
            name="order"
            defaultValue={searchParams.get("order") ?? ""}
            placeholder="CRYPTO-xxxxxx"
            autoComplete="off"
            className={`${inputClass} font-mono sm:flex-1`}
            {...describedBy("order-number", { error: numberError })}
          />
          <Button type="submit" disabled={searching}>
            <Search className="size-4" aria-hidden /> {searching ? "Searching..." : "Search"}
          </Button>
        </Form>
        {numberError ? (
          <div role="alert" className="mt-3">
            <FieldError id="order-number" error={numberError} />
          </div>
        ) : null}
      </Card>

      {order ? <CryptoOrderCard order={order} /> : null}

      {recent.length > 0 ? (
        <Card>
          <h2 className="font-bold">Your crypto orders</h2>
          <ul className="mt-3 divide-y divide-line text-sm">
            {recent.map((o) => (
              <li key={o.orderNumber} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2">
                <Link to={`?order=${encodeURIComponent(o.orderNumber)}`} className="font-mono text-accent hover:underline">
                  {o.orderNumber}
                </Link>
                <Badge tone={STATUS_STYLE[o.status].tone}>{CRYPTO_STATUS_LABEL[o.status]}</Badge>
                <LocalTime ms={o.createdAt} format="datetime" className="ml-auto whitespace-nowrap text-muted" />
              </li>
            ))}
          </ul>
        </Card>
      ) : null}
    </div>
  );
}
