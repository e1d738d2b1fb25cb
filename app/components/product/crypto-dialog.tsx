// "Pay with Cryptocurrency": opening it creates (or reuses) a pending order on the server, which
// picks the amount and the shop's wallet; the buyer chooses BTC or LTC and pays.
import { useEffect } from "react";
import { Link, useFetcher } from "react-router";
import type { ProductVariant } from "~/lib/catalogue";
import { CRYPTO_COINS } from "~/lib/crypto-orders";
import { formatUsd } from "~/lib/format";
import type { action } from "~/routes/api.crypto-orders";
import { copyText } from "../copy";
import { Copy } from "../icons";
import { useToast } from "../toaster";
import { buttonClass } from "../ui/button";
import { Dialog } from "../ui/dialog";

export function CryptoDialog({ variant, open, onClose }: { variant: ProductVariant; open: boolean; onClose: () => void }) {
  const fetcher = useFetcher<typeof action>();
  const { toast } = useToast();
  const { submit } = fetcher;

  useEffect(() => {
    if (open) void submit({ intent: "open", variantId: variant.id, coin: "BTC" }, { method: "post", action: "/api/crypto-orders" });
  }, [open, variant.id, submit]);

  const result = fetcher.data;
  const order = result?.ok ? result.order : null;
  const busy = fetcher.state !== "idle";

  return (
    <Dialog open={open} onClose={onClose} title="Pay with Cryptocurrency" description="Pay with Bitcoin or Litecoin. Your key is sent once the payment is confirmed.">
      {!result && busy ? <p className="text-sm text-muted" role="status">Creating your order...</p> : null}
      {result && !result.ok ? (
        <p role="alert" className="text-sm text-red-400">
          {result.message}
        </p>
      ) : null}
      {order ? (
        <div className="space-y-4 text-sm">
          <div>
            <p className="text-muted">Order number</p>
            <p className="flex items-center gap-2 font-mono text-base font-semibold">
              {order.orderNumber}
              <button type="button" className="rounded p-1 text-muted hover:text-white" aria-label="Copy order number" onClick={() => copyText(order.orderNumber, toast, { title: "Copied!", description: "Order number copied to clipboard" })}>
                <Copy className="size-4" aria-hidden />
              </button>
            </p>
          </div>
          <div role="radiogroup" aria-label="Coin" className="grid grid-cols-2 gap-2">
            {CRYPTO_COINS.map((coin) => (
              <button
                key={coin}
                type="button"
                role="radio"
                aria-checked={order.coin === coin}
                disabled={busy}
                onClick={() => submit({ intent: "coin", orderNumber: order.orderNumber, coin }, { method: "post", action: "/api/crypto-orders" })}
                className={`rounded-lg border-2 px-3 py-2 font-semibold ${order.coin === coin ? "border-accent bg-accent/10" : "border-line hover:border-accent/60"}`}
              >
                {coin === "BTC" ? "Bitcoin (BTC)" : "Litecoin (LTC)"}
              </button>
            ))}
          </div>
          <div>
            <p className="text-muted">Send to this {order.coin} address</p>
            <div className="mt-1 flex items-center gap-2 rounded-md border border-line bg-panel-2 p-2">
              <code className="min-w-0 flex-1 break-all">{order.walletAddress}</code>
              <button type="button" className="rounded p-1 text-muted hover:text-white" aria-label="Copy wallet address" onClick={() => copyText(order.walletAddress, toast, { title: "Copied!", description: "Wallet address copied to clipboard" })}>
                <Copy className="size-4" aria-hidden />
              </button>
            </div>
          </div>
          <p>
            <span className="text-muted">Amount: </span>
            <strong>
              {formatUsd(order.amountCents)} in {order.coin}
            </strong>{" "}
            ({order.productTitle} - {order.variantTitle})
          </p>
          <ol className="list-decimal space-y-1 pl-5 text-muted">
            <li>Send the amount in {order.coin} to the address above.</li>
            <li>Open the Crypto Tracker and enter your order number and transaction ID.</li>
            <li>We verify the payment and your key appears on the tracker and in your e-mail.</li>
          </ol>
          <Link to={`/dashboard/crypto-tracker?order=${encodeURIComponent(order.orderNumber)}`} className={buttonClass("primary", "md", "w-full")}>
            Go to Crypto Tracker
          </Link>
        </div>
      ) : null}
    </Dialog>
  );
}
