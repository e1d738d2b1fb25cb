// Disposable-mail services: an order paid from one of these addresses is marked risky (decision
// 093). A short list of the services seen most; staff block more domains on the Blocklists page.
const DISPOSABLE = new Set([
  "mailinator.com",
  "guerrillamail.com",
  "guerrillamail.net",
  "sharklasers.com",
  "10minutemail.com",
  "temp-mail.org",
  "tempmail.com",
  "tempmailo.com",
  "throwawaymail.com",
  "yopmail.com",
  "getnada.com",
  "trashmail.com",
  "dispostable.com",
  "maildrop.cc",
  "mintemail.com",
  "fakeinbox.com",
  "emailondeck.com",
  "mohmal.com",
  "burnermail.io",
  "moakt.com",
]);

export const isDisposableDomain = (domain: string) => DISPOSABLE.has(domain.toLowerCase());
