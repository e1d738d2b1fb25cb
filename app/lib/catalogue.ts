// The catalogue as the app sees it: Storefront API products with the connection wrappers
// (edges/node) removed. Both catalogue adapters produce exactly this shape.

export interface Money {
  /** A decimal string, as the Storefront API sends it ("29.99"). */
  amount: string;
  currencyCode: string;
}

export interface ProductImage {
  url: string;
  altText: string | null;
  /** The same picture at most 240 px wide and high, for thumbnails and the cart. */
  thumbnailUrl: string;
}

export interface SelectedOption {
  name: string;
  value: string;
}

export interface ProductVariant {
  /** Storefront GID, the one canonical variant id everywhere: gid://shopify/ProductVariant/<n> */
  id: string;
  title: string;
  price: Money;
  availableForSale: boolean;
  selectedOptions: SelectedOption[];
}

export interface ProductOption {
  name: string;
  values: string[];
}

export interface Product {
  id: string;
  title: string;
  description: string;
  handle: string;
  priceRange: { minVariantPrice: Money; maxVariantPrice: Money };
  images: ProductImage[];
  variants: ProductVariant[];
  options: ProductOption[];
}

const VARIANT_GID = /^gid:\/\/shopify\/ProductVariant\/(\d+)$/;

export function isVariantGid(value: string): boolean {
  return VARIANT_GID.test(value);
}

/** The GID for a numeric variant id, as order webhooks send it. */
export function variantGid(numericId: number | string): string {
  return `gid://shopify/ProductVariant/${numericId}`;
}

/** The numeric part of a variant GID, or null for anything else. */
export function variantNumericId(gid: string): string | null {
  return VARIANT_GID.exec(gid)?.[1] ?? null;
}
