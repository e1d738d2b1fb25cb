// The shop's legal pages: where each lives and what it is called, for the footer, the sign-up form,
// the checkout dialog and the back office's editor.
export const LEGAL_PAGES = {
  terms: { path: "/legal/terms", title: "Terms of Service" },
  refunds: { path: "/legal/refunds", title: "Refund Policy" },
  privacy: { path: "/legal/privacy", title: "Privacy Policy" },
} as const;

export type LegalSlug = keyof typeof LEGAL_PAGES;

export const isLegalSlug = (value: string | undefined): value is LegalSlug => value !== undefined && Object.hasOwn(LEGAL_PAGES, value);

/** The longest document staff may save: far beyond any real policy, well inside a request body. */
export const MAX_LEGAL_LENGTH = 50_000;
