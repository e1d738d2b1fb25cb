// Reseller forms, checked in the browser and again on the server.
export const MIN_KEYS_PER_ORDER = 5;
export const MAX_KEYS_PER_ORDER = 100;
export const MAX_BALANCE_TOP_UP = 10_000;
export const KEY_TYPES = { monthly: "Monthly License", weekly: "Weekly License" } as const;
export type KeyType = keyof typeof KEY_TYPES;

export type FormProblem = { title: string; message: string };

export function checkQuantity(raw: unknown): { ok: true; quantity: number } | ({ ok: false } & FormProblem) {
  const text = typeof raw === "string" ? raw.trim() : "";
  const quantity = Number(text);
  if (!text || !Number.isInteger(quantity) || quantity <= 0) {
    return { ok: false, title: "Invalid Quantity", message: "Please enter a valid quantity" };
  }
  if (quantity < MIN_KEYS_PER_ORDER) {
    return { ok: false, title: "Minimum Order Required", message: `You must generate at least ${MIN_KEYS_PER_ORDER} keys per order` };
  }
  if (quantity > MAX_KEYS_PER_ORDER) {
    return { ok: false, title: "Invalid Quantity", message: `You can generate at most ${MAX_KEYS_PER_ORDER} keys per order` };
  }
  return { ok: true, quantity };
}

/** An amount in dollars ("25", "25.50") as integer cents. */
export function checkAmount(raw: unknown): { ok: true; cents: number } | ({ ok: false } & FormProblem) {
  const text = typeof raw === "string" ? raw.trim() : "";
  const invalid = { ok: false as const, title: "Invalid Amount", message: "Please enter a valid amount" };
  if (!/^\d+(\.\d{1,2})?$/.test(text)) return invalid;
  const cents = Math.round(Number(text) * 100);
  if (cents <= 0) return invalid;
  if (cents > MAX_BALANCE_TOP_UP * 100) return { ok: false, title: "Invalid Amount", message: `Amounts can be at most $${MAX_BALANCE_TOP_UP}` };
  return { ok: true, cents };
}

export function isKeyType(value: unknown): value is KeyType {
  return value === "monthly" || value === "weekly";
}

/** A key's price for a reseller: the list price less their discount, in whole cents. */
export function discounted(listCents: number, discountRate: number): number {
  return Math.round((listCents * (100 - discountRate)) / 100);
}
