// Pages an e-mailed link opens (confirming an address, resetting a password): the token the link
// carried must never reach another site in a Referer, and a throttled attempt's Retry-After must
// reach the browser.
import type { HeadersFunction } from "react-router";
import { passRetryAfter } from "./retry-after.server";

export const NO_REFERRER = { "Referrer-Policy": "no-referrer" };

/** The `headers` export of such a page. */
export const linkPageHeaders: HeadersFunction = (args) => {
  const headers = new Headers(passRetryAfter(args));
  for (const [name, value] of Object.entries(NO_REFERRER)) headers.set(name, value);
  return headers;
};
