// Cart actions and the drawer's open state, available to every page. The cart also learns when a
// checkout it made was paid (decision 045): when a page loads, when the shop's tab comes back into
// view, and before it makes another checkout; what that order bought then leaves the cart.
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from "react";
import { useNavigate } from "react-router";
import { addItem, type CartItem, checkoutCreated, checkoutPaid, clearCart, removeItem, updateQuantity, withSalesChannel } from "~/lib/cart";
import { useToast } from "../toaster";
import { currentCart, updateCart, useCartState } from "./cart-store";

interface CartApi {
  open: boolean;
  setOpen: (open: boolean) => void;
  add: (item: CartItem) => void;
  setQuantity: (variantId: string, quantity: number) => void;
  remove: (variantId: string) => void;
  clear: () => void;
  /**
   * Creates a checkout for `items` and opens it in a new tab. Call it straight from a click.
   * `fromCart`: the items are the cart's, so the cart remembers the checkout until it is paid.
   */
  checkout: (items: CartItem[], options?: { fromCart?: boolean; code?: string }) => Promise<boolean>;
}

const CartContext = createContext<CartApi | null>(null);

/**
 * Asks the shop which of the cart's checkouts were paid and takes what they bought out of the
 * cart, with a toast naming the orders. Answers how many were paid (none when the shop cannot be
 * asked now: the next check will).
 */
async function settlePaidCheckouts(toast: ReturnType<typeof useToast>["toast"]): Promise<number> {
  const { checkouts } = currentCart();
  if (checkouts.length === 0) return 0;
  try {
    const response = await fetch(`/api/checkout?${checkouts.map((c) => `cart=${encodeURIComponent(c.id)}`).join("&")}`);
    if (!response.ok) return 0;
    const { paid } = (await response.json()) as { paid: { cartId: string; order: string }[] };
    if (paid.length === 0) return 0;
    for (const { cartId } of paid) updateCart((s) => checkoutPaid(s, cartId));
    const orders = paid.map((p) => p.order).join(", ");
    toast({ title: "Order paid", description: `Order ${orders} is paid, so it left your cart. Your key is on its way by e-mail.` });
    return paid.length;
  } catch {
    return 0;
  }
}

export function CartProvider({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const { toast } = useToast();
  const navigate = useNavigate();

  useEffect(() => {
    void settlePaidCheckouts(toast);
    // Back from the checkout's tab: the order may have been paid meanwhile.
    const onVisible = () => {
      if (document.visibilityState === "visible") void settlePaidCheckouts(toast);
    };
    document.addEventListener("visibilitychange", onVisible);
    return () => document.removeEventListener("visibilitychange", onVisible);
  }, [toast]);

  const checkout = useCallback(
    async (items: CartItem[], { fromCart = false, code = "" } = {}) => {
      if (items.length === 0) return false;
      // Opened during the click, so popup blockers let it through; pointed at the checkout below.
      const tab = window.open("", "_blank");
      updateCart((s) => ({ ...s, isLoading: true }));
      try {
        const response = await fetch("/api/checkout", {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({
            lines: items.map((i) => ({ merchandiseId: i.variantId, quantity: i.quantity })),
            // The shop refuses a new checkout while one of these was paid: the same things twice.
            checkouts: fromCart ? currentCart().checkouts.map((c) => c.id) : [],
            // An affiliate's code typed into the cart: refused (field "code") when it is not valid.
            code,
          }),
        });
        if (response.status === 401) {
          tab?.close();
          toast({ title: "Login Required", description: "Please login to purchase", variant: "destructive" });
          navigate("/auth");
          return false;
        }
        const body = (await response.json()) as { checkoutUrl?: string; cartId?: string; message?: string; field?: string };
        if (body.field === "code") {
          tab?.close();
          toast({ title: "Invalid code", description: body.message ?? "This code is not valid", variant: "destructive" });
          return false;
        }
        if (!response.ok || !body.checkoutUrl || !body.cartId) {
          // Refused because the cart was paid already: the cart says so itself, and shows what is left.
          if (fromCart && (await settlePaidCheckouts(toast)) > 0) {
            tab?.close();
            return false;
          }
          throw new Error(body.message ?? `Checkout failed with ${response.status}`);
        }
        const url = withSalesChannel(body.checkoutUrl);
        const made = { cartId: body.cartId, checkoutUrl: url };
        updateCart((s) => (fromCart ? checkoutCreated(s, made, items) : { ...s, checkoutUrl: url }));
        if (tab) {
          tab.opener = null;
          tab.location.href = url;
        } else {
          window.open(url, "_blank", "noopener");
        }
        setOpen(false);
        return true;
      } catch (error) {
        console.error("Checkout failed:", error);
        tab?.close();
        toast({ title: "Checkout Error", description: "Failed to create checkout. Please try again.", variant: "destructive" });
        return false;
      } finally {
        updateCart((s) => ({ ...s, isLoading: false }));
      }
    },
    [navigate, toast],
  );

  const api = useMemo<CartApi>(
    () => ({
      open,
      setOpen,
      add: (item) => updateCart((s) => addItem(s, item)),
      setQuantity: (variantId, quantity) => updateCart((s) => updateQuantity(s, variantId, quantity)),
      remove: (variantId) => updateCart((s) => removeItem(s, variantId)),
      clear: () => updateCart(clearCart),
      checkout,
    }),
    [open, checkout],
  );

  return <CartContext.Provider value={api}>{children}</CartContext.Provider>;
}

export function useCart() {
  const api = useContext(CartContext);
  if (!api) throw new Error("useCart needs a CartProvider");
  return { ...api, state: useCartState() };
}
