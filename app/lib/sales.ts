// The sales page's vocabulary, shared by its loader and its charts: the payment methods revenue is
// split by, in the order the chart stacks them.
export const SALES_DAYS = 30;

export const PAYMENT_METHODS = ["card", "BTC", "LTC", "balance"] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

export const METHOD_LABEL: Record<PaymentMethod, string> = { card: "Card", BTC: "Bitcoin", LTC: "Litecoin", balance: "Reseller balance" };
