// The route table: every URL the app answers, and the module that answers it.
import { index, layout, prefix, type RouteConfig, route } from "@react-router/dev/routes";

// Pages that exist only in development and tests (the local mailbox, the simulated chain and the
// demo checkout that stands in for Shopify); a production build has none of them.
const devOnly =
  process.env.NODE_ENV === "production"
    ? []
    : [route("dev/mail", "routes/dev.mail.tsx"), route("dev/chain", "routes/dev.chain.tsx"), route("checkout/demo/:id", "routes/checkout.demo.tsx")];

export default [
  index("routes/home.tsx"),
  route("products", "routes/products.tsx"),
  route("product/:handle", "routes/product.tsx"),
  route("status", "routes/status.tsx"),
  route("support", "routes/support.tsx"),
  route("affiliate", "routes/affiliate.tsx"),
  route("docs/licence-api", "routes/docs.licence-api.tsx"),
  route("sitemap.xml", "routes/sitemap.ts"),
  route("robots.txt", "routes/robots.ts"),
  route("auth", "routes/auth.tsx"),
  route("auth/verify", "routes/auth.verify.tsx"),
  route("auth/forgot", "routes/auth.forgot.tsx"),
  route("auth/reset", "routes/auth.reset.tsx"),
  route("auth/2fa", "routes/auth.2fa.tsx"),
  route("auth/2fa/passkey", "routes/auth.2fa.passkey.ts"),
  route("auth/passkey", "routes/auth.passkey.ts"),
  route("auth/discord", "routes/auth.discord.ts"),
  route("auth/discord/callback", "routes/auth.discord.callback.ts"),
  route("auth/logout", "routes/auth.logout.tsx"),
  route("api/viewer", "routes/api.viewer.ts"),
  route("api/upsell", "routes/api.upsell.ts"),
  route("api/checkout", "routes/api.checkout.ts"),
  route("api/crypto-orders", "routes/api.crypto-orders.ts"),
  ...prefix("dashboard", [
    layout("routes/dashboard.tsx", [
      index("routes/dashboard._index.tsx"),
      route("subscriptions", "routes/dashboard.subscriptions.tsx"),
      route("downloads", "routes/dashboard.downloads.tsx"),
      route("downloads/:id", "routes/dashboard.downloads.file.ts"),
      route("resell", "routes/dashboard.resell.tsx"),
      route("resell/keys.csv", "routes/dashboard.resell.keys[.]csv.ts"),
      route("2fa", "routes/dashboard.2fa.tsx"),
      // The passkeys card's actions nest under the Security page, inside the dashboard's guard.
      route("security", "routes/dashboard.security.tsx", [route("passkeys", "routes/dashboard.security.passkeys.ts")]),
      route("crypto-tracker", "routes/dashboard.crypto-tracker.tsx"),
      // The card actions nest under the page, so its admin-only middleware guards them too.
      route("manage-codes", "routes/dashboard.manage-codes.tsx", [
        route("stock", "routes/dashboard.manage-codes.stock.ts"),
        route("crypto-orders", "routes/dashboard.manage-codes.crypto-orders.ts"),
        route("jobs", "routes/dashboard.manage-codes.jobs.ts"),
      ]),
      route("licences", "routes/dashboard.licences.tsx"),
      // The exports nest under the list, so its orders.view guard runs before their own (export).
      route("orders", "routes/dashboard.orders.tsx", [
        route("export.csv", "routes/dashboard.orders.export[.]csv.ts"),
        route("keys.csv", "routes/dashboard.orders.keys[.]csv.ts"),
      ]),
      route("orders/:source/:reference", "routes/dashboard.orders.$source.$reference.tsx"),
      route("customers", "routes/dashboard.customers.tsx"),
      route("customers/:id", "routes/dashboard.customers.account.tsx"),
      route("customers/email/:email", "routes/dashboard.customers.buyer.tsx"),
      route("audit", "routes/dashboard.audit.tsx"),
      route("sales", "routes/dashboard.sales.tsx"),
    ]),
  ]),
  ...devOnly,
  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
