import { describe, expect, it } from "vitest";
import type { ProductVariant } from "~/lib/catalogue";
import { formatCents, formatCount, formatDate, formatDateTime, formatFileSize, formatUsd } from "~/lib/format";
import {
  featuresFor,
  formatMoney,
  formatPlanPrice,
  formatPrice,
  isBestValue,
  planVariants,
  variantForOptions,
  variantLabel,
} from "~/lib/plans";

const variant = (id: string, title: string, options: Record<string, string> = { Duration: title }, amount = "10.00"): ProductVariant => ({
  id: `gid://shopify/ProductVariant/${id}`,
  title,
  price: { amount, currencyCode: "USD" },
  availableForSale: true,
  selectedOptions: Object.entries(options).map(([name, value]) => ({ name, value })),
});

describe("plan matching", () => {
  it("finds the weekly variant by 'week' or '7' and the monthly one by 'month' or '30'", () => {
    expect(planVariants([variant("1", "Default Title"), variant("2", "1 Week"), variant("3", "30 Days")])).toMatchObject({
      weekly: { title: "1 Week" },
      monthly: { title: "30 Days" },
    });
    expect(planVariants([variant("1", "7 Days"), variant("2", "1 Month")])).toMatchObject({
      weekly: { title: "7 Days" },
      monthly: { title: "1 Month" },
    });
    expect(planVariants([variant("1", "WEEKLY")]).weekly?.title).toBe("WEEKLY");
  });

  it("finds nothing when there is no week or month variant", () => {
    expect(planVariants([variant("1", "Default Title"), variant("2", "1 Day")])).toEqual({ weekly: null, monthly: null });
  });

  it("marks 30-day and monthly variants as best value, and shows 'Default Title' as Lifetime", () => {
    expect(isBestValue("30 Days")).toBe(true);
    expect(isBestValue("1 month")).toBe(true);
    expect(isBestValue("1 Week")).toBe(false);
    expect(variantLabel("Default Title")).toBe("Lifetime");
    expect(variantLabel("30 Days")).toBe("30 Days");
  });
});

describe("price formatting", () => {
  it("shows plan prices with a $ in USD, no decimals, per week or month", () => {
    expect(formatPlanPrice({ amount: "29.99", currencyCode: "USD" }, "wk")).toBe("$30/wk");
    expect(formatPlanPrice({ amount: "89.00", currencyCode: "USD" }, "mo")).toBe("$89/mo");
    expect(formatPlanPrice({ amount: "25.40", currencyCode: "EUR" }, "mo")).toBe("EUR 25/mo");
  });

  it("shows cart amounts with the currency code and two decimals", () => {
    expect(formatMoney({ amount: "5", currencyCode: "USD" })).toBe("USD 5.00");
    expect(formatMoney({ amount: "179.98", currencyCode: "GBP" })).toBe("GBP 179.98");
    expect(formatPrice({ amount: "89.9", currencyCode: "USD" })).toBe("$89.90");
  });

  it("groups thousands and writes cents with two decimals, without the browser's locale data", () => {
    expect([0, 999, 1000, 100_000, 1_234_567, -1234].map(formatCount)).toEqual(["0", "999", "1,000", "100,000", "1,234,567", "-1,234"]);
    expect([0, 5, 8999, 123_450, 100_000_000, -1250, -5].map(formatUsd)).toEqual([
      "$0.00",
      "$0.05",
      "$89.99",
      "$1,234.50",
      "$1,000,000.00",
      "$-12.50",
      "$-0.05",
    ]);
    expect(formatCents(123_450, "USD")).toBe("$1,234.50");
    expect(formatCents(2540, "EUR")).toBe("EUR 25.40");
  });

  it("formats dates as the specification writes them, in UTC", () => {
    const t = Date.UTC(2026, 10, 3, 14, 5);
    expect(formatDate(t)).toBe("Nov 03, 2026");
    expect(formatDateTime(t)).toBe("Nov 03, 2026 at 14:05");
    expect(formatFileSize(3 * 1024 * 1024 + 10_000)).toBe("3.01 MB");
    expect(formatFileSize(null)).toBe("Unknown size");
  });
});

describe("feature lists by title", () => {
  it("lists the week, month, lifetime and fallback features", () => {
    expect(featuresFor("1 Week")).toEqual(["7 Days Access", "All Features", "Priority Support", "Free Updates"]);
    expect(featuresFor("30 Days")).toEqual(["30 Days Access", "All Features", "VIP Support", "Free Updates", "Exclusive Configs"]);
    expect(featuresFor("Default Title")).toEqual([
      "Lifetime Access",
      "All Features",
      "VIP Support",
      "Free Updates",
      "Exclusive Configs",
      "Priority Discord Support",
    ]);
    expect(featuresFor("Lifetime")).toContain("Lifetime Access");
    expect(featuresFor("1 Day")).toEqual(["All Features", "Discord Support"]);
  });
});

describe("variant selection by options", () => {
  const variants = [
    variant("1", "Weekly / PC", { Duration: "Weekly", Platform: "PC" }),
    variant("2", "Monthly / PC", { Duration: "Monthly", Platform: "PC" }),
    variant("3", "Monthly / Console", { Duration: "Monthly", Platform: "Console" }),
  ];

  it("picks the variant whose options all match", () => {
    expect(variantForOptions(variants, { Duration: "Monthly", Platform: "Console" })?.id).toBe("gid://shopify/ProductVariant/3");
    expect(variantForOptions(variants, { Duration: "Monthly", Platform: "PC" })?.id).toBe("gid://shopify/ProductVariant/2");
  });

  it("falls back to the first variant when nothing matches", () => {
    expect(variantForOptions(variants, { Duration: "Weekly", Platform: "Console" })?.id).toBe("gid://shopify/ProductVariant/1");
    expect(variantForOptions([], { Duration: "Weekly" })).toBeUndefined();
  });
});
