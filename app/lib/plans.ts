// How plans are recognised, named, priced and described, from a variant's title.
import type { Money, Product, ProductVariant } from "./catalogue";
import { DAY_MS } from "./time";

export const isWeeklyTitle = (title: string) => /week|7/i.test(title);
export const isMonthlyTitle = (title: string) => /month|30/i.test(title);
export const isLifetimeTitle = (title: string) => /lifetime|default/i.test(title);
export const isDailyTitle = (title: string) => /24\s*h|hour|\b1\s*day\b|daily/i.test(title);

/** What a key grants, read from its variant's title; anything unrecognised is sold as lifetime. */
export const LICENCE_PLANS = ["daily", "weekly", "monthly", "lifetime"] as const;
export type LicencePlan = (typeof LICENCE_PLANS)[number];

export function planOf(title: string): LicencePlan {
  if (isDailyTitle(title)) return "daily";
  if (isWeeklyTitle(title)) return "weekly";
  if (isMonthlyTitle(title)) return "monthly";
  return "lifetime";
}

/** How long a key of the plan runs from its activation: 24 hours, 7 days, 30 days, or null for lifetime. */
export const PLAN_DURATION_MS: Record<LicencePlan, number | null> = {
  daily: DAY_MS,
  weekly: 7 * DAY_MS,
  monthly: 30 * DAY_MS,
  lifetime: null,
};

/** The plan's name as the plan cards say it. */
export const PLAN_NAME: Record<LicencePlan, string> = { daily: "Daily", weekly: "Weekly", monthly: "Monthly", lifetime: "Lifetime" };

/** The plan's term as a member reads it: "7 days", or "lifetime". */
export const PLAN_TERM: Record<LicencePlan, string> = { daily: "24 hours", weekly: "7 days", monthly: "30 days", lifetime: "lifetime" };

/** The week and month variants the home page offers as plan cards. */
export function planVariants(variants: ProductVariant[]) {
  return {
    weekly: variants.find((v) => isWeeklyTitle(v.title)) ?? null,
    monthly: variants.find((v) => isMonthlyTitle(v.title)) ?? null,
  };
}

/** What the home page offers: the first product's plans, or null when there is no product. */
export interface PlanOffer {
  handle: string;
  title: string;
  weekly: ProductVariant | null;
  monthly: ProductVariant | null;
}

export function planOffer(products: Product[]): PlanOffer | null {
  const [first] = products;
  return first ? { handle: first.handle, title: first.title, ...planVariants(first.variants) } : null;
}

/** Shopify calls a product's only variant "Default Title"; we sell it as the lifetime plan. */
export function variantLabel(title: string): string {
  return /default/i.test(title) ? "Lifetime" : title;
}

/**
 * A key's label as stored with it (`product_codes.variant_title`) and shown on every list, e-mail
 * and export: "Vertex Rust - Lifetime", never Shopify's "Default Title" (decision 085).
 */
export function codeLabel(productTitle: string, variantTitle: string): string {
  return `${productTitle} - ${variantLabel(variantTitle)}`;
}

export const isBestValue = (title: string) => isMonthlyTitle(title);

/** Plan-card price: "$30/mo" in USD, no decimals; other currencies keep their code. */
export function formatPlanPrice(price: Money, period: "wk" | "mo"): string {
  const whole = Math.round(Number(price.amount)).toString();
  return price.currencyCode === "USD" ? `$${whole}/${period}` : `${price.currencyCode} ${whole}/${period}`;
}

/** Cart and order amounts: currency code and two decimals, "USD 29.99". */
export function formatMoney(price: Money): string {
  return `${price.currencyCode} ${Number(price.amount).toFixed(2)}`;
}

/** Product-page price: "$29.99" in USD, else "EUR 29.99". */
export function formatPrice(price: Money): string {
  const amount = Number(price.amount).toFixed(2);
  return price.currencyCode === "USD" ? `$${amount}` : `${price.currencyCode} ${amount}`;
}

export function featuresFor(title: string): string[] {
  if (isWeeklyTitle(title)) return ["7 Days Access", "All Features", "Priority Support", "Free Updates"];
  if (isMonthlyTitle(title)) return ["30 Days Access", "All Features", "VIP Support", "Free Updates", "Exclusive Configs"];
  if (isLifetimeTitle(title)) {
    return ["Lifetime Access", "All Features", "VIP Support", "Free Updates", "Exclusive Configs", "Priority Discord Support"];
  }
  return ["All Features", "Discord Support"];
}

/** The variant whose options all match `selected`, else the first variant. */
export function variantForOptions(variants: ProductVariant[], selected: Record<string, string>): ProductVariant | undefined {
  const wanted = Object.entries(selected);
  return (
    variants.find((v) => wanted.every(([name, value]) => v.selectedOptions.some((o) => o.name === name && o.value === value))) ??
    variants[0]
  );
}
