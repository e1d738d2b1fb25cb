// The checks of the shop's settings and secrets (decision 098), one place for every door: the
// Worker reads its configuration through them, its Health page and the doctor report what they
// say, and the setup script (run by Node) refuses a value an owner types with the same words.
// Node runs this file as it is, so it imports only packages and files named with their extension.
// The licence signing key's check is the signing module's, the wallets' the wallet module's.
import * as v from "valibot";
import { fromBase64 } from "./tokens.server.ts";

const trimmed = () => v.pipe(v.string(), v.trim());

/** Whether `text` is base64 of exactly `length` bytes. */
function base64Of(text: string, length: number): boolean {
  try {
    return fromBase64(text).byteLength === length;
  } catch {
    return false;
  }
}

export const TOTP_KEY_PROBLEM = "TOTP_ENCRYPTION_KEY must be 32 bytes, base64-encoded";

/** The key that encrypts members' two-factor secrets: 32 random bytes, base64. */
export const totpKeySchema = v.pipe(
  trimmed(),
  v.check((text) => base64Of(text, 32), TOTP_KEY_PROBLEM),
);

/** The HMAC key Shopify signs order webhooks with (Settings → Notifications → Webhooks). */
export const webhookSecretSchema = v.pipe(
  trimmed(),
  v.nonEmpty("SHOPIFY_WEBHOOK_SECRET is not set: every order webhook is refused until it is"),
  v.minLength(
    16,
    "SHOPIFY_WEBHOOK_SECRET is too short: copy the whole signing secret Shopify shows under Settings → Notifications → Webhooks",
  ),
  v.regex(/^\S+$/, "SHOPIFY_WEBHOOK_SECRET has spaces in it: copy the signing secret alone"),
);

/** The Storefront API's public access token (the Headless channel, or a custom app's Storefront API). */
export const storefrontTokenSchema = v.pipe(
  trimmed(),
  v.check(
    (text) => !/^shp(at|ss|ca|pa)_/.test(text),
    "SHOPIFY_STOREFRONT_TOKEN is an Admin API token: use the Storefront API's public access token instead, and rotate this one",
  ),
  v.regex(/^[A-Za-z0-9]{32}$/, "SHOPIFY_STOREFRONT_TOKEN is not a Storefront API access token (32 letters and digits)"),
);

export const storeDomainSchema = v.pipe(
  trimmed(),
  v.toLowerCase(),
  v.regex(
    /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/,
    "SHOPIFY_STORE_DOMAIN must be the store's myshopify.com domain, like my-shop.myshopify.com",
  ),
);

export const mailApiUrlSchema = v.pipe(
  trimmed(),
  v.url("MAIL_API_URL must be the mail API's address, like https://api.resend.com/emails"),
  v.startsWith("https://", "MAIL_API_URL must start with https://"),
);

export const mailKeySchema = v.pipe(trimmed(), v.nonEmpty("MAIL_API_KEY is not set: no e-mail (keys, sign-in links) can be sent"));

export const mailFromSchema = v.pipe(
  trimmed(),
  v.regex(
    /^([^<>@]+<[^<>@\s]+@[^<>@\s]+\.[^<>@\s]+>|[^<>@\s]+@[^<>@\s]+\.[^<>@\s]+)$/,
    "MAIL_FROM must be an address the mail API may send from, like Vertex <no-reply@shop.example.com>",
  ),
);

/** The shop's own domain: passkeys are bound to it (WEBAUTHN_RP_ID) and its pages' origin is https on it. */
export const shopDomainSchema = v.pipe(
  trimmed(),
  v.toLowerCase(),
  v.regex(
    /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/,
    "The shop's domain is a host name like shop.example.com (no https://, no path)",
  ),
);

/** A bot token from Discord's Developer Portal (Bot → Token): three parts separated by dots. */
export const discordBotTokenSchema = v.pipe(
  trimmed(),
  v.regex(
    /^[\w-]{20,}\.[\w-]{4,}\.[\w-]{20,}$/,
    "DISCORD_BOT_TOKEN is not a bot token (three parts separated by dots, from the Developer Portal → Bot → Token)",
  ),
);

/** The bearer token the doctor sends to the shop's health endpoint: long and random. */
export const healthTokenSchema = v.pipe(
  trimmed(),
  v.minLength(32, "HEALTH_TOKEN must be at least 32 characters (the setup script makes one)"),
  v.regex(/^[A-Za-z0-9_-]+$/, "HEALTH_TOKEN must be letters, digits, dashes and underscores (the setup script makes one)"),
);

/** The first problem `schema` finds in `value`, in the setting's own words, or null when it is fine. */
export function settingProblem(schema: v.GenericSchema<string, unknown>, value: string | undefined): string | null {
  const result = v.safeParse(schema, value ?? "");
  return result.success ? null : result.issues[0].message;
}
