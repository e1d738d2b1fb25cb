import { describe, expect, it } from "vitest";
import {
  addItem,
  type CartItem,
  cartTotal,
  checkoutCreated,
  checkoutPaid,
  clearCart,
  emptyCart,
  itemCount,
  MAX_LINE_QUANTITY,
  parseStoredCart,
  removeItem,
  serializeCart,
  updateQuantity,
  upsellToOffer,
  withSalesChannel,
} from "~/lib/cart";

const item = (variantId: string, amount = "29.99", quantity = 1, currencyCode = "USD"): CartItem => ({
  variantId: `gid://shopify/ProductVariant/${variantId}`,
  productId: "gid://shopify/Product/1",
  productTitle: "Vertex Rust",
  variantTitle: "1 Week",
  price: { amount, currencyCode },
  quantity,
});

describe("cart rules", () => {
  it("appends a new variant and raises the quantity of one already in the cart", () => {
    let cart = addItem(emptyCart, item("1"));
    cart = addItem(cart, item("2"));
    cart = addItem(cart, item("1", "29.99", 2));
    expect(cart.items.map((i) => [i.variantId.slice(-1), i.quantity])).toEqual([
      ["1", 3],
      ["2", 1],
    ]);
    expect(itemCount(cart)).toBe(4);
  });

  it("removes a line when its quantity is set to zero or less", () => {
    const cart = addItem(addItem(emptyCart, item("1")), item("2"));
    expect(updateQuantity(cart, item("1").variantId, 0).items).toHaveLength(1);
    expect(updateQuantity(cart, item("1").variantId, -3).items).toHaveLength(1);
    expect(updateQuantity(cart, item("1").variantId, 5).items[0]!.quantity).toBe(5);
  });

  it("offers the add-on only while no plan of its product is in the cart", () => {
    const spoofer = { ...item("9"), productId: "gid://shopify/Product/2", productTitle: "Vertex Spoofer" };
    const withCheat = addItem(emptyCart, item("1"));
    expect(upsellToOffer(spoofer, withCheat)).toBe(spoofer);
    // Any variant of the add-on's product counts, not only the one offered.
    const withOtherSpooferPlan = addItem(withCheat, { ...spoofer, variantId: "gid://shopify/ProductVariant/10" });
    expect(upsellToOffer(spoofer, withOtherSpooferPlan)).toBeNull();
    // Removing it brings the offer back.
    expect(upsellToOffer(spoofer, removeItem(withOtherSpooferPlan, "gid://shopify/ProductVariant/10"))).toBe(spoofer);
    expect(upsellToOffer(null, withCheat)).toBeNull();
  });

  it("caps a line's quantity", () => {
    const cart = updateQuantity(addItem(emptyCart, item("1")), item("1").variantId, 1000);
    expect(cart.items[0]!.quantity).toBe(MAX_LINE_QUANTITY);
  });

  it("removes a line by variant, and clearing resets the checkout too", () => {
    const cart = { ...addItem(addItem(emptyCart, item("1")), item("2")), cartId: "c1", checkoutUrl: "https://x/checkout" };
    expect(removeItem(cart, item("2").variantId).items.map((i) => i.variantId)).toEqual([item("1").variantId]);
    expect(clearCart(cart)).toMatchObject({ items: [], cartId: null, checkoutUrl: null });
  });

  it("totals in the first item's currency, exactly, and in USD when empty", () => {
    const cart = addItem(addItem(emptyCart, item("1", "0.10", 3, "EUR")), item("2", "0.20", 1, "EUR"));
    expect(cartTotal(cart)).toEqual({ amount: "0.50", currencyCode: "EUR" });
    expect(cartTotal(emptyCart)).toEqual({ amount: "0.00", currencyCode: "USD" });
  });

  it("stores items, cart id and checkout URL but not the loading flag", () => {
    const cart = { ...addItem(emptyCart, item("1")), isLoading: true, checkoutUrl: "https://x/c" };
    const restored = parseStoredCart(serializeCart(cart));
    expect(restored).toEqual({ ...cart, isLoading: false });
  });

  it("survives a corrupted or tampered local storage value", () => {
    expect(parseStoredCart("{not json")).toEqual(emptyCart);
    expect(parseStoredCart(null)).toEqual(emptyCart);
    const tampered = JSON.stringify({
      items: [item("1"), { variantId: 5 }, { ...item("2"), quantity: -1 }, { ...item("3"), quantity: 1.5 }],
      cartId: 7,
      checkouts: [
        { id: "a", lines: [{ variantId: "v", quantity: 1 }] },
        { id: 3, lines: [] },
        { id: "b", lines: [{ variantId: "v", quantity: 0 }] },
        "c",
      ],
    });
    const restored = parseStoredCart(tampered);
    expect(restored.items.map((i) => i.variantId)).toEqual([item("1").variantId]);
    expect(restored.cartId).toBeNull();
    expect(restored.checkouts).toEqual([{ id: "a", lines: [{ variantId: "v", quantity: 1 }] }]);
  });

  it("remembers each checkout it made and takes what a paid one bought out of the cart, keeping what was added since", () => {
    let cart = addItem(addItem(emptyCart, item("1", "29.99", 2)), item("2"));
    cart = checkoutCreated(cart, { cartId: "a", checkoutUrl: "https://x/a" }, cart.items);
    expect(cart).toMatchObject({
      cartId: "a",
      checkoutUrl: "https://x/a",
      checkouts: [
        {
          id: "a",
          lines: [
            { variantId: item("1").variantId, quantity: 2 },
            { variantId: item("2").variantId, quantity: 1 },
          ],
        },
      ],
    });
    // Added while the checkout tab was open: not part of what it paid for.
    cart = addItem(cart, item("1"));
    cart = addItem(cart, item("3"));
    const after = checkoutPaid(cart, "a");
    expect(after.items.map((i) => [i.variantId.slice(-1), i.quantity])).toEqual([
      ["1", 1],
      ["3", 1],
    ]);
    expect(after).toMatchObject({ cartId: null, checkoutUrl: null, checkouts: [] });
    // Paying for everything in it empties the cart; an unknown checkout changes nothing.
    const all = checkoutCreated(after, { cartId: "b", checkoutUrl: "https://x/b" }, after.items);
    expect(checkoutPaid(all, "nope")).toBe(all);
    expect(checkoutPaid(all, "b")).toEqual(clearCart(all));
    expect(checkoutPaid(all, "b").items).toEqual([]);
  });

  it("keeps an older checkout that is still open when a newer one is made, up to five", () => {
    let cart = addItem(emptyCart, item("1"));
    for (const id of ["a", "b", "c", "d", "e", "f"])
      cart = checkoutCreated(cart, { cartId: id, checkoutUrl: `https://x/${id}` }, cart.items);
    expect(cart.checkouts.map((c) => c.id)).toEqual(["b", "c", "d", "e", "f"]);
    // The older one was paid: the cart still learns it, and the newer one is still the cart's.
    const paidOlder = checkoutPaid(addItem(cart, item("2")), "c");
    expect(paidOlder).toMatchObject({ cartId: "f", items: [expect.objectContaining({ variantId: item("2").variantId })] });
  });

  it("adds channel=online_store to the checkout URL", () => {
    expect(withSalesChannel("https://shop.example/cart/c/abc?key=1")).toBe("https://shop.example/cart/c/abc?key=1&channel=online_store");
    expect(withSalesChannel("https://shop.example/c?channel=pos")).toBe("https://shop.example/c?channel=online_store");
  });
});
