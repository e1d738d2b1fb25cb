// The cart drawer: slides in from the right with the lines, a recommended add-on and checkout;
// and the navigation's cart button that opens it.
import { Suspense, useEffect, useState } from "react";
import { itemCount } from "~/lib/cart";
import { ShoppingCart } from "../icons";
import { lazyComponent } from "../lazy";
import { useCart } from "./cart-context";
import { counted } from "~/lib/format";

const loadPanel = () => import("./cart-panel");
const CartPanel = lazyComponent(() => loadPanel().then((module) => module.default));
// Fetched ahead of the click; a failure here is met again, and handled, when the panel is drawn.
const preloadPanel = () => void loadPanel().catch(() => undefined);

/** Rendered only once the cart has been opened: until then there is nothing to show. */
export function CartDrawer() {
  const { open } = useCart();
  const [opened, setOpened] = useState(false);
  useEffect(() => {
    if (open) setOpened(true);
  }, [open]);
  return opened || open ? (
    <Suspense>
      <CartPanel />
    </Suspense>
  ) : null;
}

export function CartButton() {
  const { setOpen, state } = useCart();
  const count = itemCount(state);
  return (
    <button
      type="button"
      onClick={() => setOpen(true)}
      // Fetched as the pointer or focus arrives, so the panel is there by the click.
      onPointerEnter={preloadPanel}
      onFocus={preloadPanel}
      className="relative rounded-md p-1.5 text-zinc-300 hover:text-white sm:p-2"
      aria-label={`Open cart, ${counted(count, "item")}`}
    >
      <ShoppingCart className="size-5" aria-hidden />
      {count > 0 ? (
        <span className="absolute -top-0.5 -right-0.5 flex size-5 items-center justify-center rounded-full bg-accent text-[11px] font-bold text-zinc-950">
          {count > 99 ? "99+" : count}
        </span>
      ) : null}
    </button>
  );
}
