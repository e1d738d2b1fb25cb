// Cart actions and the drawer's open state, available to every page.
import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from "react";
import { useNavigate } from "react-router";
import { addItem, type CartItem, clearCart, removeItem, updateQuantity, withSalesChannel } from "~/lib/cart";
import { useToast } from "../toaster";
import { updateCart, useCartState } from "./cart-store";

interface CartApi {
  open: boolean;
  setOpen: (open: boolean) => void;
  add: (item: CartItem) => void;
  setQuantity: (variantId: string, quantity: number) => void;
  remove: (variantId: string) => void;
  clear: () => void;
  /** Creates a checkout for `items` and opens it in a new tab. Call it straight from a click. */
  checkout: (items: CartItem[]) => Promise<boolean>;
}

const CartContext = createContext<CartApi | null>(null);

export function CartProvider({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const { toast } = useToast();
  const navigate = useNavigate();

  const checkout = useCallback(
    async (items: CartItem[]) => {
      if (items.length === 0) return false;
      // Opened during the click, so popup blockers let it through; pointed at the checkout below.
      const tab = window.open("", "_blank");
      updateCart((s) => ({ ...s, isLoading: true }));
      try {
        const response = await fetch("/api/checkout", {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ lines: items.map((i) => ({ merchandiseId: i.variantId, quantity: i.quantity })) }),
        });
        if (response.status === 401) {
          tab?.close();
          toast({ title: "Login Required", description: "Please login to purchase", variant: "destructive" });
          navigate("/auth");
          return false;
        }
        const body = (await response.json()) as { checkoutUrl?: string; message?: string };
        if (!response.ok || !body.checkoutUrl) throw new Error(body.message ?? `Checkout failed with ${response.status}`);
        const url = withSalesChannel(body.checkoutUrl);
        updateCart((s) => ({ ...s, checkoutUrl: url }));
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
