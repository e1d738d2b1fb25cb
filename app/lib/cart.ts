// The shopping cart lives in the browser (local storage, one key). The rules are plain functions
// so they can be tested without a browser; the store wraps them for React.
import type { Money } from "./catalogue";

export const CART_STORAGE_KEY = "vertex-cart";
export const MAX_LINE_QUANTITY = 99;

export interface CartItem {
  variantId: string;
  productId: string;
  productTitle: string;
  variantTitle: string;
  price: Money;
  quantity: number;
  imageUrl?: string;
}

/** A checkout made from the cart, and the lines it was made for (decision 045). */
export interface CartCheckout {
  id: string;
  lines: { variantId: string; quantity: number }[];
}

export interface CartState {
  items: CartItem[];
  /** The latest checkout's id (Shopify's cart token, or the demo checkout's id). */
  cartId: string | null;
  checkoutUrl: string | null;
  isLoading: boolean;
  /** Checkouts made from this cart that may still be paid, newest last. */
  checkouts: CartCheckout[];
}

export const emptyCart: CartState = { items: [], cartId: null, checkoutUrl: null, isLoading: false, checkouts: [] };

/** How many open checkouts the cart remembers: a buyer rarely leaves more tabs of them open. */
export const MAX_CART_CHECKOUTS = 5;

/** Adding a variant already in the cart raises its quantity; otherwise the item is appended. */
export function addItem(state: CartState, item: CartItem): CartState {
  const existing = state.items.find((i) => i.variantId === item.variantId);
  const items = existing
    ? state.items.map((i) =>
        i.variantId === item.variantId ? { ...i, quantity: Math.min(MAX_LINE_QUANTITY, i.quantity + item.quantity) } : i,
      )
    : [...state.items, { ...item, quantity: Math.min(MAX_LINE_QUANTITY, item.quantity) }];
  return { ...state, items };
}

/** A quantity of zero or less removes the line. */
export function updateQuantity(state: CartState, variantId: string, quantity: number): CartState {
  if (quantity <= 0) return removeItem(state, variantId);
  return {
    ...state,
    items: state.items.map((i) => (i.variantId === variantId ? { ...i, quantity: Math.min(MAX_LINE_QUANTITY, quantity) } : i)),
  };
}

export function removeItem(state: CartState, variantId: string): CartState {
  return { ...state, items: state.items.filter((i) => i.variantId !== variantId) };
}

export function clearCart(state: CartState): CartState {
  return { ...state, items: [], cartId: null, checkoutUrl: null, checkouts: [] };
}

/** A checkout was made for `lines`: it becomes the cart's, and is remembered until it is paid. */
export function checkoutCreated(state: CartState, checkout: { cartId: string; checkoutUrl: string }, lines: CartItem[]): CartState {
  const made: CartCheckout = { id: checkout.cartId, lines: lines.map((l) => ({ variantId: l.variantId, quantity: l.quantity })) };
  const checkouts = [...state.checkouts.filter((c) => c.id !== made.id), made].slice(-MAX_CART_CHECKOUTS);
  return { ...state, cartId: checkout.cartId, checkoutUrl: checkout.checkoutUrl, checkouts };
}

/**
 * A checkout made from the cart was paid: what it bought leaves the cart (lines added since stay),
 * so the same things are never offered for payment twice. An emptied cart is cleared.
 */
export function checkoutPaid(state: CartState, id: string): CartState {
  const paid = state.checkouts.find((c) => c.id === id);
  if (!paid) return state;
  const bought = new Map(paid.lines.map((l) => [l.variantId, l.quantity]));
  const items = state.items.flatMap((item) => {
    const left = item.quantity - (bought.get(item.variantId) ?? 0);
    return left > 0 ? [{ ...item, quantity: left }] : [];
  });
  if (items.length === 0) return clearCart(state);
  const latest = state.cartId === id;
  return {
    ...state,
    items,
    cartId: latest ? null : state.cartId,
    checkoutUrl: latest ? null : state.checkoutUrl,
    checkouts: state.checkouts.filter((c) => c.id !== id),
  };
}

/** The recommended add-on is offered only while no plan of its product is in the cart. */
export function upsellToOffer<T extends Pick<CartItem, "productId">>(upsell: T | null, state: CartState): T | null {
  return upsell && !state.items.some((i) => i.productId === upsell.productId) ? upsell : null;
}

export function itemCount(state: CartState): number {
  return state.items.reduce((sum, i) => sum + i.quantity, 0);
}

/** The total in the first item's currency (USD for an empty cart), summed in cents. */
export function cartTotal(state: Pick<CartState, "items">): Money {
  const cents = state.items.reduce((sum, i) => sum + Math.round(Number(i.price.amount) * 100) * i.quantity, 0);
  return { amount: (cents / 100).toFixed(2), currencyCode: state.items[0]?.price.currencyCode ?? "USD" };
}

function isCartItem(value: unknown): value is CartItem {
  const item = value as CartItem;
  return (
    typeof item === "object" &&
    item !== null &&
    typeof item.variantId === "string" &&
    typeof item.productId === "string" &&
    typeof item.productTitle === "string" &&
    typeof item.variantTitle === "string" &&
    typeof item.price?.amount === "string" &&
    typeof item.price?.currencyCode === "string" &&
    Number.isInteger(item.quantity) &&
    item.quantity > 0
  );
}

function isCartCheckout(value: unknown): value is CartCheckout {
  const checkout = value as CartCheckout;
  return (
    typeof checkout === "object" &&
    checkout !== null &&
    typeof checkout.id === "string" &&
    Array.isArray(checkout.lines) &&
    checkout.lines.every((l) => typeof l?.variantId === "string" && Number.isInteger(l.quantity) && l.quantity > 0)
  );
}

/** Reads a stored cart, dropping anything that is not a well-formed line or checkout. */
export function parseStoredCart(raw: string | null): CartState {
  if (!raw) return emptyCart;
  try {
    const stored = JSON.parse(raw) as Partial<CartState>;
    return {
      items: Array.isArray(stored.items) ? stored.items.filter(isCartItem) : [],
      cartId: typeof stored.cartId === "string" ? stored.cartId : null,
      checkoutUrl: typeof stored.checkoutUrl === "string" ? stored.checkoutUrl : null,
      isLoading: false,
      checkouts: Array.isArray(stored.checkouts) ? stored.checkouts.filter(isCartCheckout).slice(-MAX_CART_CHECKOUTS) : [],
    };
  } catch {
    return emptyCart;
  }
}

export function serializeCart(state: CartState): string {
  const { items, cartId, checkoutUrl, checkouts } = state;
  return JSON.stringify({ items, cartId, checkoutUrl, checkouts });
}

/** Adds the sales channel Shopify expects on checkout links from this storefront. */
export function withSalesChannel(checkoutUrl: string): string {
  const url = new URL(checkoutUrl);
  url.searchParams.set("channel", "online_store");
  return url.toString();
}
