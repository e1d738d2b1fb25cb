// The cart drawer's panel: the lines, a recommended add-on and checkout. Its code is fetched the
// first time the cart is opened (or about to be), not with every page.
import { useEffect, useRef, useState } from "react";
import { type CartItem, cartTotal, itemCount, upsellToOffer } from "~/lib/cart";
import { formatMoney, variantLabel } from "~/lib/plans";
import { Lock, Minus, Plus, ShoppingCart, Trash2, X } from "../icons";
import { useToast, useToastHost } from "../toaster";
import { Button } from "../ui/button";
import { inputClass } from "../ui/input-class";
import { useCart } from "./cart-context";
import { counted } from "~/lib/format";

type Upsell = Omit<CartItem, "quantity">;

function useUpsell(open: boolean) {
  const [upsell, setUpsell] = useState<Upsell | null | undefined>(undefined);
  useEffect(() => {
    if (!open || upsell !== undefined) return;
    fetch("/api/upsell")
      .then((r) => (r.ok ? (r.json() as Promise<{ upsell: Upsell | null }>) : { upsell: null }))
      .then((body) => setUpsell(body.upsell))
      .catch((error) => {
        console.error("Failed to load the recommended product:", error);
        setUpsell(null);
      });
  }, [open, upsell]);
  return upsell ?? null;
}

export default function CartPanel() {
  const { open, setOpen, state, setQuantity, remove, add, checkout } = useCart();
  const { toast } = useToast();
  const toastHost = useToastHost();
  const upsell = upsellToOffer(useUpsell(open), state);
  const closeRef = useRef<HTMLButtonElement>(null);
  const count = itemCount(state);
  const [code, setCode] = useState("");

  useEffect(() => {
    if (!open) return;
    const previous = document.activeElement as HTMLElement | null;
    closeRef.current?.focus();
    const onKey = (event: KeyboardEvent) => event.key === "Escape" && setOpen(false);
    document.addEventListener("keydown", onKey);
    document.body.style.overflow = "hidden";
    return () => {
      document.removeEventListener("keydown", onKey);
      document.body.style.overflow = "";
      previous?.focus();
    };
  }, [open, setOpen]);

  return (
    <div className={`fixed inset-0 z-[60] ${open ? "" : "pointer-events-none"}`} aria-hidden={!open}>
      <div
        className={`absolute inset-0 bg-black/60 transition-opacity starting:opacity-0 ${open ? "opacity-100" : "opacity-0"}`}
        onClick={() => setOpen(false)}
      />
      <section
        role="dialog"
        aria-modal="true"
        aria-labelledby="cart-title"
        aria-describedby="cart-description"
        inert={!open}
        className={`absolute inset-y-0 right-0 flex w-full max-w-md flex-col border-l border-line bg-panel shadow-2xl transition-transform duration-300 starting:translate-x-full ${
          open ? "translate-x-0" : "translate-x-full"
        }`}
      >
        <div className="flex items-start justify-between border-b border-line p-5">
          <div>
            <h2 id="cart-title" className="flex items-center gap-2 text-lg font-bold">
              <ShoppingCart className="size-5" aria-hidden /> Shopping Cart
            </h2>
            <p id="cart-description" className="mt-1 text-sm text-muted">
              {count === 0 ? "Your cart is empty" : `${counted(count, "item")} in your cart`}
            </p>
          </div>
          <button
            ref={closeRef}
            type="button"
            onClick={() => setOpen(false)}
            className="rounded p-1 text-muted hover:text-white"
            aria-label="Close cart"
          >
            <X className="size-5" aria-hidden />
          </button>
        </div>

        <div className="flex-1 space-y-3 overflow-y-auto p-5">
          {state.items.map((item) => (
            <article
              key={item.variantId}
              className="flex gap-3 rounded-lg border border-line bg-panel-2 p-3"
              aria-label={`${item.productTitle} ${variantLabel(item.variantTitle)}`}
            >
              {item.imageUrl ? (
                <img src={item.imageUrl} alt="" width={64} height={64} className="size-16 shrink-0 rounded-md object-cover" />
              ) : (
                <div className="size-16 shrink-0 rounded-md bg-line" />
              )}
              <div className="min-w-0 flex-1">
                <p className="truncate font-semibold">{item.productTitle}</p>
                <p className="text-sm text-muted">{variantLabel(item.variantTitle)}</p>
                <p className="mt-1 text-sm font-semibold text-accent">{formatMoney(item.price)}</p>
                <div className="mt-2 flex items-center gap-2">
                  <button
                    type="button"
                    className="rounded border border-line p-1 hover:border-accent"
                    aria-label="Decrease quantity"
                    onClick={() => setQuantity(item.variantId, item.quantity - 1)}
                  >
                    <Minus className="size-3.5" aria-hidden />
                  </button>
                  <span className="w-6 text-center text-sm tabular-nums" aria-label="Quantity">
                    {item.quantity}
                  </span>
                  <button
                    type="button"
                    className="rounded border border-line p-1 hover:border-accent"
                    aria-label="Increase quantity"
                    onClick={() => setQuantity(item.variantId, item.quantity + 1)}
                  >
                    <Plus className="size-3.5" aria-hidden />
                  </button>
                  <button
                    type="button"
                    className="ml-auto rounded p-1 text-muted hover:text-red-400"
                    aria-label={`Remove ${item.productTitle}`}
                    onClick={() => remove(item.variantId)}
                  >
                    <Trash2 className="size-4" aria-hidden />
                  </button>
                </div>
              </div>
            </article>
          ))}

          {upsell ? (
            <aside className="rounded-lg border border-accent/40 bg-accent/5 p-3" aria-label="Recommended">
              <p className="text-xs font-bold tracking-wider text-accent">RECOMMENDED</p>
              <div className="mt-2 flex items-center gap-3">
                {upsell.imageUrl ? (
                  <img src={upsell.imageUrl} alt="" width={48} height={48} className="size-12 rounded object-cover" />
                ) : null}
                <div className="min-w-0 flex-1">
                  <p className="truncate text-sm font-semibold">{upsell.productTitle}</p>
                  <p className="text-xs text-muted">{formatMoney(upsell.price)}</p>
                </div>
                <Button
                  size="sm"
                  onClick={() => {
                    add({ ...upsell, quantity: 1 });
                    toast({ title: "Added to cart!", description: `${upsell.productTitle} added to your cart` });
                  }}
                >
                  Add
                </Button>
              </div>
            </aside>
          ) : null}
        </div>

        {/* While the drawer is open its toasts appear here, between the lines and the checkout. */}
        <div ref={open ? toastHost : null} />
        <div className="space-y-3 border-t border-line p-5">
          <div className="flex items-center justify-between font-semibold">
            <span>Total</span>
            <span>{formatMoney(cartTotal(state))}</span>
          </div>
          <div className="space-y-1">
            <label htmlFor="cart-code" className="text-sm text-muted">
              Creator code (optional)
            </label>
            <input
              id="cart-code"
              value={code}
              onChange={(e) => setCode(e.target.value)}
              maxLength={24}
              autoComplete="off"
              className={inputClass}
            />
          </div>
          <Button
            className="w-full"
            size="lg"
            disabled={count === 0 || state.isLoading}
            onClick={() => void checkout(state.items, { fromCart: true, code: code.trim() })}
          >
            <Lock className="size-4" aria-hidden />
            {state.isLoading ? "Creating Checkout..." : "Checkout Securely"}
          </Button>
        </div>
      </section>
    </div>
  );
}
