// Each product's status as the status page, the product page and the staff's post form read it
// (decision 046). A product nobody has posted about is Undetected.
export const PRODUCT_STATUSES = ["undetected", "updating", "detected", "down"] as const;
export type ProductStatus = (typeof PRODUCT_STATUSES)[number];

export const DEFAULT_PRODUCT_STATUS: ProductStatus = "undetected";

export const PRODUCT_STATUS_BADGE: Record<ProductStatus, { label: string; tone: "green" | "yellow" | "red" }> = {
  undetected: { label: "Undetected", tone: "green" },
  updating: { label: "Updating", tone: "yellow" },
  detected: { label: "Detected", tone: "red" },
  down: { label: "Down", tone: "red" },
};

/** What each status tells a buyer, under the badge on the status page. */
export const PRODUCT_STATUS_MEANING: Record<ProductStatus, string> = {
  undetected: "Working and undetected: safe to use.",
  updating: "Being updated after a game update: wait for the next post before you play.",
  detected: "Detected: do not use it until a post says it is safe again.",
  down: "Not working right now: we are on it.",
};
