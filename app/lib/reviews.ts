// Reviews from verified buyers and the product page's honest social proof (decisions 074 and 075):
// the rules the browser shows and the server enforces, and the shapes the product page receives.
import { DAY_MS } from "./time";

/** A key must have been activated this long before its owner may review the product. */
export const REVIEW_AFTER_ACTIVATION_MS = DAY_MS;
export const REVIEW_MIN_LENGTH = 10;
export const REVIEW_MAX_LENGTH = 2000;
/** Reviews the product page shows at first, and the most one "show more" step adds. */
export const REVIEWS_PAGE_SIZE = 6;
export const HIDE_REASON_MAX_LENGTH = 300;
/** Paid orders of a product in the last 24 hours before the page says so, until staff choose. */
export const DEFAULT_RECENT_PURCHASERS_THRESHOLD = 5;
export const SALE_LABEL_MAX_LENGTH = 40;

export interface PublicReview {
  id: number;
  author: string;
  rating: number;
  body: string;
  createdAt: number;
  edited: boolean;
}

export interface ReviewSummary {
  count: number;
  /** The mean of the shown reviews' stars to one decimal place; null without reviews. */
  average: number | null;
  reviews: PublicReview[];
}

/** Why a member may not review a product; the member's own review, if they wrote one. */
export type ReviewStanding =
  | { kind: "signed-out" }
  | { kind: "no-licence" }
  | { kind: "not-activated" }
  | { kind: "too-soon"; from: number }
  | { kind: "may-review"; own: { rating: number; body: string } | null; hidden: ReviewHidden | null };

/** Staff hid the member's review of the product: why, and when. It holds until staff show it again. */
export interface ReviewHidden {
  reason: string;
  at: number;
}

/** The product page's sale box: staff's words and the real time it ends. */
export interface ProductSale {
  label: string;
  endsAt: number;
}

/** The back office's views of the reviews. */
export const REVIEW_FILTERS = ["all", "shown", "hidden"] as const;
export type ReviewFilter = (typeof REVIEW_FILTERS)[number];
