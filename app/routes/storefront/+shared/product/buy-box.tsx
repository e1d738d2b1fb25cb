// The product page's purchase column: variants, price, badges and the buy buttons, with the
// login check and the checkout-information dialog in front of every purchase.
import { Suspense, useState } from "react";
import { useNavigate } from "react-router";
import { Link } from "~/components/link";
import type { CartItem } from "~/lib/cart";
import type { Product, ProductVariant } from "~/lib/catalogue";
import { formatPrice, isBestValue, variantForOptions, variantLabel } from "~/lib/plans";
import { PRODUCT_STATUS_BADGE, type ProductStatus } from "~/lib/status";
import { useCart } from "~/components/cart/cart-context";
import { Bitcoin, CheckCircle, Flame, ShieldCheck, ShoppingCart, Zap } from "~/components/icons";
import { useToast } from "~/components/toaster";
import { Button } from "~/components/ui/button";
import { inputClass } from "~/components/ui/input-class";
import { useViewer } from "~/components/viewer";
import { lazyComponent } from "~/components/lazy";
import type { CryptoCoin } from "~/lib/crypto-orders";
import { SaleCountdown } from "./sale-countdown";
import { formatCount } from "~/lib/format";
import type { ProductSale } from "~/lib/reviews";

// The crypto dialog (its payment box, the coin choice) is fetched when first asked for: most
// visitors never open it, and its closed dialog draws nothing on the first screen.
const loadCryptoDialog = () => import("./crypto-dialog");
const CryptoDialog = lazyComponent(() => loadCryptoDialog().then((module) => module.CryptoDialog));
// Fetched as the pointer or focus reaches the button; a failure here is met again, and handled, when drawn.
const preloadCryptoDialog = () => void loadCryptoDialog().catch(() => undefined);
// So is the checkout information in front of a purchase by card.
const loadCheckoutNotice = () => import("./checkout-notice");
const CheckoutNotice = lazyComponent(() => loadCheckoutNotice().then((module) => module.CheckoutNotice));
const preloadCheckoutNotice = () => void loadCheckoutNotice().catch(() => undefined);

/** Paid orders of the product in the last 24 hours, counted on the server; absent below staff's threshold. */
function RecentPurchasers({ count }: { count: number }) {
  return (
    <p className="flex items-center gap-2 text-sm text-accent-soft" data-testid="recent-purchasers" data-count={count}>
      <Flame className="size-4" aria-hidden />
      <span>
        Bought <span className="font-bold tabular-nums">{formatCount(count)}</span> times in the last 24 hours
      </span>
    </p>
  );
}

const BADGES = [
  { icon: Zap, label: "Instant Delivery" },
  { icon: CheckCircle, label: "24 Hour Warranty" },
  { icon: CheckCircle, label: "In Stock - Ready to Download" },
];

const STATUS_ICON_TONE = { green: "text-green-400", yellow: "text-yellow-300", red: "text-red-400" };

/** The product's status as its latest status post set it, in the badge row; it links to the status page. */
function StatusBadge({ status }: { status: ProductStatus }) {
  const { label, tone } = PRODUCT_STATUS_BADGE[status];
  return (
    <li>
      <Link
        to="/status"
        className="flex items-center gap-1.5 rounded-full border border-line bg-panel-2 px-3 py-1 text-xs font-semibold hover:border-accent/60"
        aria-label={`Status: ${label}. See the status page`}
      >
        <ShieldCheck className={`size-3.5 ${STATUS_ICON_TONE[tone]}`} aria-hidden /> {label}
      </Link>
    </li>
  );
}

function cartItemFor(product: Product, variant: ProductVariant): CartItem {
  return {
    variantId: variant.id,
    productId: product.id,
    productTitle: product.title,
    variantTitle: variant.title,
    price: variant.price,
    quantity: 1,
    imageUrl: product.images[0]?.thumbnailUrl,
  };
}

export function BuyBox({
  product,
  cryptoCoins,
  status: productStatus,
  promotions,
}: {
  product: Product;
  cryptoCoins: readonly CryptoCoin[];
  status: ProductStatus;
  promotions: { recentPurchasers: number | null; sale: ProductSale | null };
}) {
  const [variant, setVariant] = useState<ProductVariant | undefined>(product.variants[0]);
  const [pending, setPending] = useState<"add" | "buy" | null>(null);
  const [payingCrypto, setPayingCrypto] = useState(false);
  // Once opened, the dialog stays drawn (closed), so closing it hands focus back as the browser does.
  const [cryptoOpened, setCryptoOpened] = useState(false);
  const [noticeOpened, setNoticeOpened] = useState(false);
  const { status, viewer } = useViewer();
  const { toast } = useToast();
  const navigate = useNavigate();
  const cart = useCart();
  const selectable = product.options.filter((o) => o.values.length > 1);

  const unavailable = !variant?.availableForSale;
  const busy = status === "loading" || cart.state.isLoading;

  function start(kind: "add" | "buy" | "crypto") {
    if (!viewer) {
      toast({
        title: "Login Required",
        description: kind === "add" ? "Please login to add items to your cart" : "Please login to purchase",
        variant: "destructive",
      });
      navigate("/auth");
      return;
    }
    if (kind === "crypto") {
      setPayingCrypto(true);
      setCryptoOpened(true);
    } else {
      setPending(kind);
      setNoticeOpened(true);
    }
  }

  function proceed() {
    if (!variant || !pending) return;
    const item = cartItemFor(product, variant);
    setPending(null);
    if (pending === "add") {
      cart.add(item);
      toast({ title: "Added to cart!", description: `${product.title} added to your cart` });
    } else {
      void cart.checkout([item]);
    }
  }

  return (
    <div className="space-y-6">
      {promotions.recentPurchasers !== null ? <RecentPurchasers count={promotions.recentPurchasers} /> : null}
      <div>
        <h1 className="text-3xl font-black sm:text-4xl">{product.title}</h1>
        <p className="mt-3 text-3xl font-black text-accent" aria-live="polite">
          {variant ? formatPrice(variant.price) : null}
        </p>
      </div>
      <ul className="flex flex-wrap gap-2">
        <StatusBadge status={productStatus} />
        {BADGES.map(({ icon: Icon, label }) => (
          <li key={label} className="flex items-center gap-1.5 rounded-full border border-line bg-panel-2 px-3 py-1 text-xs font-semibold">
            <Icon className="size-3.5 text-accent" aria-hidden /> {label}
          </li>
        ))}
      </ul>

      {selectable.length > 1
        ? selectable.map((option) => (
            <div key={option.name} className="space-y-1.5">
              <label htmlFor={`option-${option.name}`} className="text-sm font-medium">
                {option.name}
              </label>
              <select
                id={`option-${option.name}`}
                className={inputClass}
                value={variant?.selectedOptions.find((o) => o.name === option.name)?.value ?? option.values[0]}
                onChange={(event) => {
                  const selected = Object.fromEntries((variant?.selectedOptions ?? []).map((o) => [o.name, o.value]));
                  selected[option.name] = event.target.value;
                  setVariant(variantForOptions(product.variants, selected));
                }}
              >
                {option.values.map((value) => (
                  <option key={value} value={value}>
                    {value}
                  </option>
                ))}
              </select>
            </div>
          ))
        : null}

      <div role="radiogroup" aria-label="Choose a plan" className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        {product.variants.map((v) => {
          const checked = v.id === variant?.id;
          return (
            <button
              key={v.id}
              type="button"
              role="radio"
              aria-checked={checked}
              onClick={() => setVariant(v)}
              className={`relative rounded-lg border-2 p-4 text-left transition-colors ${checked ? "border-accent bg-accent/10" : "border-line bg-panel hover:border-accent/60"}`}
            >
              {isBestValue(v.title) ? (
                <span className="absolute -top-2.5 right-3 rounded-full bg-accent px-2 py-0.5 text-[10px] font-black tracking-wider text-zinc-950">
                  BEST VALUE
                </span>
              ) : null}
              <span className="block font-semibold">{variantLabel(v.title)}</span>
              <span className="block text-sm text-muted">{formatPrice(v.price)}</span>
              {!v.availableForSale ? <span className="block text-xs text-red-400">Sold out</span> : null}
            </button>
          );
        })}
      </div>

      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <Button
          size="lg"
          disabled={unavailable || busy}
          onClick={() => start("buy")}
          onPointerEnter={preloadCheckoutNotice}
          onFocus={preloadCheckoutNotice}
        >
          BUY NOW
        </Button>
        <Button
          size="lg"
          variant="outline"
          disabled={unavailable || busy}
          onClick={() => start("add")}
          onPointerEnter={preloadCheckoutNotice}
          onFocus={preloadCheckoutNotice}
        >
          <ShoppingCart className="size-4" aria-hidden /> ADD TO CART
        </Button>
      </div>

      {cryptoCoins.length > 0 ? (
        <Button
          variant="secondary"
          className="w-full"
          disabled={unavailable || busy}
          onClick={() => start("crypto")}
          onPointerEnter={preloadCryptoDialog}
          onFocus={preloadCryptoDialog}
        >
          <Bitcoin className="size-4" aria-hidden /> Pay with Cryptocurrency
        </Button>
      ) : null}

      {promotions.sale ? <SaleCountdown sale={promotions.sale} /> : null}
      {variant && cryptoCoins.length > 0 && cryptoOpened ? (
        <Suspense
          fallback={
            <p role="status" className="text-sm text-muted">
              Opening the crypto payment...
            </p>
          }
        >
          <CryptoDialog variant={variant} coins={cryptoCoins} open={payingCrypto} onClose={() => setPayingCrypto(false)} />
        </Suspense>
      ) : null}

      {noticeOpened ? (
        <Suspense
          fallback={
            <p role="status" className="text-sm text-muted">
              Opening the checkout...
            </p>
          }
        >
          <CheckoutNotice open={pending !== null} onClose={() => setPending(null)} onProceed={proceed} />
        </Suspense>
      ) : null}
    </div>
  );
}
