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

export interface CartState {
  items: CartItem[];
  cartId: string | null;
  checkoutUrl: string | null;
  isLoading: boolean;
}

export const emptyCart: CartState = { items: [], cartId: null, checkoutUrl: null, isLoading: false };

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
  return { ...state, items: [], cartId: null, checkoutUrl: null };
}

/** The recommended add-on is offered only while no plan of its product is in the cart. */
export function upsellToOffer<T extends Pick<CartItem, "productId">>(upsell: T | null, state: CartState): T | null {
  return upsell && !state.items.some((i) => i.productId === upsell.productId) ? upsell : null;
}

export function itemCount(state: CartState): number {
  return state.items.reduce((sum, i) => sum + i.quantity, 0);
}

/** The total in the first item's currency (USD for an empty cart), summed in cents. */
export function cartTotal(state: CartState): Money {
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

/** Reads a stored cart, dropping anything that is not a well-formed line. */
export function parseStoredCart(raw: string | null): CartState {
  if (!raw) return emptyCart;
  try {
    const stored = JSON.parse(raw) as Partial<CartState>;
    return {
      items: Array.isArray(stored.items) ? stored.items.filter(isCartItem) : [],
      cartId: typeof stored.cartId === "string" ? stored.cartId : null,
      checkoutUrl: typeof stored.checkoutUrl === "string" ? stored.checkoutUrl : null,
      isLoading: false,
    };
  } catch {
    return emptyCart;
  }
}

export function serializeCart(state: CartState): string {
  const { items, cartId, checkoutUrl } = state;
  return JSON.stringify({ items, cartId, checkoutUrl });
}

/** Adds the sales channel Shopify expects on checkout links from this storefront. */
export function withSalesChannel(checkoutUrl: string): string {
  const url = new URL(checkoutUrl);
  url.searchParams.set("channel", "online_store");
  return url.toString();
}
