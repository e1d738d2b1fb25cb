// "Crypto Orders to Fulfill (n)": the crypto orders that need a person, with what the chain shows
// (underpaid past expiry, paid after expiry, overpaid; and orders from before on-chain checks, with
// the transaction id their buyer typed). The admin fulfils one with a typed-in key or the next in
// stock (a top-up: credits it), cancels it once refunded, or marks an overpaid one as handled.
// Above the list, what keeps crypto payments off. Posts to the page's crypto-orders route.
import { useEffect, useId, useState } from "react";
import { useFetcher } from "react-router";
import { type CryptoCoin, type CryptoReview, CRYPTO_REVIEW_LABEL, formatCoin, fulfilCryptoOrderSchema } from "~/lib/crypto-orders";
import { CRYPTO_STATUS_LABEL, type CryptoStatus } from "~/lib/orders";
import { formatUsd } from "~/lib/format";
import type { Answer } from "~/lib/answer";
import { LocalTime } from "~/components/local-time";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { describedBy, FieldError } from "~/components/ui/field";
import { inputClass } from "~/components/ui/input-class";
import { useFormCheck } from "~/components/use-form-check";
import { useRecheckWhile } from "~/components/use-recheck";
import { ConfirmedAction } from "~/components/confirmed-action";
import { useResultToast } from "~/components/use-result-toast";

const ACTION = "/dashboard/manage-codes/crypto-orders";

// A row disappears once its order is fulfilled or cancelled, so the rows' fetchers share a key and
// the card (which stays) reports the result.
const CRYPTO_FETCHER = "crypto-queue";

/** A crypto order waiting for a person, with what the chain showed for it. */
export interface QueuedCryptoOrder {
  id: string;
  orderNumber: string;
  purpose: "key" | "top-up";
  status: CryptoStatus;
  review: CryptoReview | null;
  paid: boolean;
  productTitle: string;
  variantTitle: string;
  customerEmail: string;
  amountCents: number;
  cryptoType: CryptoCoin;
  walletAddress: string;
  amountUnits: number | null;
  receivedUnits: number;
  payments: { txid: string; units: number; height: number | null }[];
  transactionId: string | null;
  createdAt: number;
  /** When it last changed: a cancel is taken only on the order as this page showed it. */
  updatedAt: number;
}

/** The shared fetcher's answer, but only in the row that sent the request. */
function useRowAnswer<T>(fetcher: { formData?: FormData; data?: T }, orderId: string): T | null {
  const [sentHere, setSentHere] = useState(false);
  const sentFor = fetcher.formData?.get("orderId");
  useEffect(() => {
    if (sentFor != null) setSentHere(sentFor === orderId);
  }, [sentFor, orderId]);
  return sentHere ? (fetcher.data ?? null) : null;
}

function QueuedOrderRow({ order }: { order: QueuedCryptoOrder }) {
  const fetcher = useFetcher<Answer>({ key: CRYPTO_FETCHER });
  const answer = useRowAnswer(fetcher, order.id);
  const { errors, onSubmit } = useFormCheck(fulfilCryptoOrderSchema, { title: "Error", answer });
  // The key goes out from the job queue moments after "Fulfill": the page looks again until
  // the order has left the list.
  const handingOut = answer?.ok === true && answer.intent === "fulfil";
  useRecheckWhile(handingOut);
  const busy = fetcher.state !== "idle" || handingOut;
  return (
    <li className="rounded-lg border border-line bg-panel-2 p-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="font-mono font-semibold">{order.orderNumber}</p>
        <span className="flex flex-wrap gap-2">
          {order.review ? <Badge tone="red">{CRYPTO_REVIEW_LABEL[order.review]}</Badge> : null}
          {handingOut ? (
            <Badge tone="green">{order.purpose === "top-up" ? "Crediting…" : "Key on its way…"}</Badge>
          ) : (
            <Badge tone="yellow">{CRYPTO_STATUS_LABEL[order.status]}</Badge>
          )}
        </span>
      </div>
      <dl className="mt-2 grid gap-x-6 gap-y-1 text-sm sm:grid-cols-2">
        <div>
          <dt className="inline text-muted">Product: </dt>
          <dd className="inline">
            {order.productTitle} - {order.variantTitle}
          </dd>
        </div>
        <div>
          <dt className="inline text-muted">Customer: </dt>
          <dd className="inline">{order.customerEmail}</dd>
        </div>
        <div>
          <dt className="inline text-muted">Amount: </dt>
          <dd className="inline">
            {formatUsd(order.amountCents)} in {order.cryptoType}
          </dd>
        </div>
        <div>
          <dt className="inline text-muted">Created: </dt>
          <dd className="inline">
            <LocalTime ms={order.createdAt} format="datetime" />
          </dd>
        </div>
        {order.amountUnits !== null ? (
          <>
            <div>
              <dt className="inline text-muted">Quoted: </dt>
              <dd className="inline font-mono">
                {formatCoin(order.amountUnits)} {order.cryptoType}
              </dd>
            </div>
            <div>
              <dt className="inline text-muted">Received: </dt>
              <dd className="inline font-mono">
                {formatCoin(order.receivedUnits)} {order.cryptoType}
              </dd>
            </div>
            <div className="sm:col-span-2">
              <dt className="inline text-muted">Address: </dt>
              <dd className="inline font-mono break-all">{order.walletAddress}</dd>
            </div>
          </>
        ) : null}
        {order.payments.map((payment) => (
          <div key={payment.txid} className="sm:col-span-2">
            <dt className="inline text-muted">Transaction: </dt>
            <dd className="inline font-mono break-all">
              {payment.txid} ({formatCoin(payment.units)} {order.cryptoType},{" "}
              {payment.height === null ? "unconfirmed" : `block ${payment.height}`})
            </dd>
          </div>
        ))}
        {order.transactionId ? (
          <div className="sm:col-span-2">
            <dt className="inline text-muted">Transaction (typed by the buyer): </dt>
            <dd className="inline font-mono break-all">{order.transactionId}</dd>
          </div>
        ) : null}
      </dl>
      {order.paid ? (
        <SettledOrderActions order={order} busy={busy} />
      ) : (
        <OpenOrderActions order={order} busy={busy} errors={errors} onSubmit={onSubmit} />
      )}
    </li>
  );
}

/** An overpaid order that was settled: the admin refunds the difference, then marks it handled. */
function SettledOrderActions({ order, busy }: { order: QueuedCryptoOrder; busy: boolean }) {
  const fetcher = useFetcher<Answer>({ key: CRYPTO_FETCHER });
  if (order.status !== "complete")
    return (
      <p className="mt-3 text-sm text-muted">
        Paid; {order.purpose === "top-up" ? "the top-up is being credited" : "its key is being handed out"}.
      </p>
    );
  return (
    <fetcher.Form method="post" action={ACTION} className="mt-3">
      <input type="hidden" name="intent" value="resolve" />
      <input type="hidden" name="orderId" value={order.id} />
      <Button type="submit" variant="outline" disabled={busy}>
        Mark as handled
      </Button>
    </fetcher.Form>
  );
}

function OpenOrderActions({
  order,
  busy,
  errors,
  onSubmit,
}: { order: QueuedCryptoOrder; busy: boolean } & Pick<ReturnType<typeof useFormCheck>, "errors" | "onSubmit">) {
  const fetcher = useFetcher<Answer>({ key: CRYPTO_FETCHER });
  const codeId = useId();
  const fromStock = useId();
  return (
    <>
      {order.purpose === "top-up" ? (
        <fetcher.Form method="post" action={ACTION} className="mt-3">
          <input type="hidden" name="intent" value="fulfil" />
          <input type="hidden" name="orderId" value={order.id} />
          <input type="hidden" name="source" value="stock" />
          <Button type="submit" disabled={busy}>
            Credit {formatUsd(order.amountCents)} to the balance
          </Button>
        </fetcher.Form>
      ) : (
        <fetcher.Form method="post" action={ACTION} className="mt-3 space-y-2" onSubmit={onSubmit}>
          <input type="hidden" name="intent" value="fulfil" />
          <input type="hidden" name="orderId" value={order.id} />
          <input type="hidden" name="source" value="manual" />
          <input
            id={codeId}
            name="code"
            placeholder="Enter product code"
            aria-label={`Product code for ${order.orderNumber}`}
            className={`${inputClass} font-mono`}
            {...describedBy(codeId, { error: errors.code })}
          />
          <FieldError id={codeId} error={errors.code} />
          <div className="flex flex-wrap gap-2">
            <Button type="submit" disabled={busy}>
              Fulfill
            </Button>
            {/* Submits the form below, which needs no code: the typed one's check does not apply. */}
            <Button type="submit" form={fromStock} variant="outline" disabled={busy}>
              Use next code in stock
            </Button>
          </div>
        </fetcher.Form>
      )}
      {order.purpose === "top-up" ? null : (
        <fetcher.Form id={fromStock} method="post" action={ACTION}>
          <input type="hidden" name="intent" value="fulfil" />
          <input type="hidden" name="orderId" value={order.id} />
          <input type="hidden" name="source" value="stock" />
        </fetcher.Form>
      )}
      <ConfirmedAction
        fetcher={fetcher}
        action={ACTION}
        fields={{ intent: "cancel", orderId: order.id, seen: String(order.updatedAt) }}
        title={`Cancel order ${order.orderNumber}?`}
        cost={`The order closes for good: no ${order.purpose === "top-up" ? "top-up is credited" : "key is handed out"} for it, even if more money arrives. Refund the buyer by hand first: the shop cannot send coins back.`}
        confirmLabel="Cancel order"
        busyLabel="Cancelling..."
        trigger={(open) => (
          <button type="button" onClick={open} className="mt-2 text-xs text-muted underline hover:text-red-400" disabled={busy}>
            Cancel this order (after refunding the buyer)
          </button>
        )}
      />
    </>
  );
}

export function CryptoOrdersCard({ orders, problems }: { orders: QueuedCryptoOrder[]; problems: string[] }) {
  useResultToast(useFetcher<Answer>({ key: CRYPTO_FETCHER }));
  return (
    <Card>
      <h2 className="text-lg font-bold">Crypto Orders to Fulfill ({orders.length})</h2>
      {problems.length > 0 ? (
        <ul role="alert" className="mt-3 space-y-1 rounded-lg border border-yellow-500/40 bg-yellow-500/10 p-3 text-sm text-yellow-100">
          {problems.map((problem) => (
            <li key={problem}>{problem}</li>
          ))}
        </ul>
      ) : null}
      <ul className="mt-3 space-y-3">
        {orders.length === 0 ? <li className="text-sm text-muted">No crypto orders need a person right now.</li> : null}
        {orders.map((order) => (
          <QueuedOrderRow key={order.id} order={order} />
        ))}
      </ul>
    </Card>
  );
}
