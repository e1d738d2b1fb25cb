// The cart as a small external store over local storage, shared by every component and kept in
// step across tabs. The server render always sees an empty cart.
import { useSyncExternalStore } from "react";
import { CART_STORAGE_KEY, type CartState, emptyCart, parseStoredCart, serializeCart } from "~/lib/cart";

let state: CartState = emptyCart;
let loaded = false;
const listeners = new Set<() => void>();

function load() {
  if (loaded || typeof window === "undefined") return;
  loaded = true;
  state = parseStoredCart(window.localStorage.getItem(CART_STORAGE_KEY));
  window.addEventListener("storage", (event) => {
    if (event.key !== CART_STORAGE_KEY) return;
    state = { ...parseStoredCart(event.newValue), isLoading: state.isLoading };
    listeners.forEach((l) => l());
  });
}

/** The cart as it is now, for work outside rendering (a check after the page comes back into view). */
export function currentCart(): CartState {
  load();
  return state;
}

export function updateCart(change: (current: CartState) => CartState) {
  load();
  state = change(state);
  try {
    window.localStorage.setItem(CART_STORAGE_KEY, serializeCart(state));
  } catch {
    // Storage full or disabled: the cart still works for this page view.
  }
  listeners.forEach((l) => l());
}

function subscribe(listener: () => void) {
  load();
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useCartState(): CartState {
  return useSyncExternalStore(
    subscribe,
    () => (load(), state),
    () => emptyCart,
  );
}
