// The route table: every URL the app answers, and the module that answers it. Route modules are
// grouped by area in app/routes/ (decision 053), each area under a layout whose error boundary keeps
// the area's frame on error: storefront/ (public pages), auth/ (signing in and its steps), hub/
// (the dashboard's shell and the member's pages), back-office/ (staff pages, in the same shell),
// api/ (endpoints the pages call; no pages, so no boundary) and dev/. A route's own parts sit
// beside it in its area's +shared/ folder.
import { index, layout, prefix, type RouteConfig, route } from "@react-router/dev/routes";
import { DASHBOARD_PATH } from "./lib/entry-paths";

// Pages that exist only in development and tests (the local mailbox, the simulated chain, the test
// clock and the demo checkout that stands in for Shopify); a production build has none of them.
const devOnly =
  process.env.NODE_ENV === "production"
    ? []
    : [
        layout("routes/dev/layout.tsx", [
          route("dev/mail", "routes/dev/mail.tsx"),
          route("dev/chain", "routes/dev/chain.tsx"),
          route("dev/clock", "routes/dev/clock.tsx"),
          route("dev/discord", "routes/dev/discord.tsx"),
          route("dev/webhooks", "routes/dev/webhooks.tsx"),
          route("checkout/demo/:id", "routes/dev/checkout-demo.tsx"),
        ]),
      ];

export default [
  layout("routes/storefront/layout.tsx", [
    index("routes/storefront/home.tsx"),
    route("products", "routes/storefront/products.tsx"),
    route("product/:handle", "routes/storefront/product.tsx"),
    route("status", "routes/storefront/status.tsx"),
    route("support", "routes/storefront/support.tsx"),
    route("affiliate", "routes/storefront/affiliate.tsx"),
    route("r/:code", "routes/storefront/referral.ts"),
    route("docs/licence-api", "routes/storefront/licence-api-docs.tsx"),
    route("legal/:page", "routes/storefront/legal.tsx"),
    route("sitemap.xml", "routes/storefront/sitemap.ts"),
    route("robots.txt", "routes/storefront/robots.ts"),
    // Any path nothing else claims: the storefront's 404.
    route("*", "routes/not-found.tsx"),
  ]),
  layout("routes/auth/layout.tsx", [
    route("auth", "routes/auth/sign-in.tsx"),
    route("auth/verify", "routes/auth/verify.tsx"),
    route("auth/forgot", "routes/auth/forgot.tsx"),
    route("auth/reset", "routes/auth/reset.tsx"),
    route("auth/2fa", "routes/auth/2fa.tsx"),
    route("auth/2fa/passkey", "routes/auth/2fa.passkey.ts"),
    route("auth/passkey", "routes/auth/passkey.ts"),
    route("auth/discord", "routes/auth/discord.ts"),
    route("auth/discord/callback", "routes/auth/discord.callback.ts"),
    route("auth/logout", "routes/auth/logout.tsx"),
    // Turning renewal reminders off from an e-mail's signed link, signed in or not (its one-click
    // POST is answered by the Worker before the CSRF check: mail clients send no Origin).
    route("reminders/unsubscribe", "routes/auth/reminders-unsubscribe.tsx"),
  ]),
  route("api/viewer", "routes/api/viewer.ts"),
  route("api/upsell", "routes/api/upsell.ts"),
  route("api/checkout", "routes/api/checkout.ts"),
  route("api/crypto-orders", "routes/api/crypto-orders.ts"),
  route("api/reviews", "routes/api/reviews.ts"),
  route("api/chat/rooms", "routes/api/chat-rooms.ts"),
  ...prefix(DASHBOARD_PATH.slice(1), [
    // The shell: the sidebar, and the sign-in guard every dashboard loader and action runs behind.
    layout("routes/hub/shell.tsx", [
      layout("routes/hub/layout.tsx", [
        index("routes/hub/index.tsx"),
        route("subscriptions", "routes/hub/subscriptions.tsx"),
        // Renewing one licence, keeping its key; the one-click links in reminders and the program lead here.
        route("renew/:licence", "routes/hub/renew.tsx"),
        route("downloads", "routes/hub/downloads.tsx"),
        route("downloads/releases/:id", "routes/hub/downloads.release.ts"),
        route("resell", "routes/hub/resell.tsx"),
        route("resell/keys.csv", "routes/hub/resell.keys-csv.ts"),
        route("2fa", "routes/hub/2fa.tsx"),
        // The passkeys card's actions and the member's data download nest under the Security page, inside the dashboard's guard.
        route("security", "routes/hub/security.tsx", [
          route("passkeys", "routes/hub/security.passkeys.ts"),
          route("data.json", "routes/hub/security.data-json.ts"),
        ]),
        route("crypto-tracker", "routes/hub/crypto-tracker.tsx"),
        route("affiliate", "routes/hub/affiliate.tsx"),
        route("chat/:room", "routes/hub/chat.tsx"),
        // Any other /dashboard path: a 404 inside the shell.
        route("*", "routes/not-found.tsx", { id: "routes/hub/not-found" }),
      ]),
      // Each staff page's middleware checks its capability (app/lib/roles.ts); each action's intent
      // has its own (app/lib/staff-actions.ts).
      layout("routes/back-office/layout.tsx", [
        // The card actions nest under the page, so its admin-only middleware guards them too.
        route("manage-codes", "routes/back-office/manage-codes.tsx", [
          route("stock", "routes/back-office/manage-codes.stock.ts"),
          route("crypto-orders", "routes/back-office/manage-codes.crypto-orders.ts"),
          route("jobs", "routes/back-office/manage-codes.jobs.ts"),
        ]),
        route("licences", "routes/back-office/licences.tsx"),
        route("replacements", "routes/back-office/replacements.tsx"),
        route("blocklists", "routes/back-office/blocklists.tsx"),
        route("licences-at-risk", "routes/back-office/licences-at-risk.tsx"),
        route("disputes", "routes/back-office/disputes.tsx"),
        route("disputes/:id/evidence.txt", "routes/back-office/disputes.evidence.ts"),
        route("entitlements", "routes/back-office/entitlements.tsx"),
        // The upload's steps nest under the page, so its releases.manage guard runs first.
        route("releases", "routes/back-office/releases.tsx", [
          route("uploads", "routes/back-office/releases.uploads.ts"),
          route("uploads/:id", "routes/back-office/releases.upload.ts"),
        ]),
        // The exports nest under the list, so its orders.view guard runs before their own (export).
        route("orders", "routes/back-office/orders.tsx", [
          route("export.csv", "routes/back-office/orders.export-csv.ts"),
          route("keys.csv", "routes/back-office/orders.keys-csv.ts"),
        ]),
        route("orders/:source/:reference", "routes/back-office/order.tsx"),
        route("customers", "routes/back-office/customers.tsx"),
        route("customers/:id", "routes/back-office/customers.account.tsx"),
        route("customers/:id/data.json", "routes/back-office/customers.data-json.ts"),
        route("customers/email/:email", "routes/back-office/customers.buyer.tsx"),
        route("audit", "routes/back-office/audit.tsx"),
        route("sales", "routes/back-office/sales.tsx"),
        route("legal", "routes/back-office/legal.tsx"),
        route("health", "routes/back-office/health.tsx"),
        route("reviews", "routes/back-office/reviews.tsx"),
        // The rooms' forms nest under the page, so its chat.moderate guard runs first.
        route("chat-moderation", "routes/back-office/chat-moderation.tsx", [route("rooms", "routes/back-office/chat-moderation.rooms.ts")]),
        route("promotions", "routes/back-office/promotions.tsx"),
        // The ledger's export nests under the page, so its affiliates.view guard runs before its own (export).
        route("affiliates", "routes/back-office/affiliates.tsx", [route("ledger.csv", "routes/back-office/affiliates.ledger-csv.ts")]),
        route("discord", "routes/back-office/discord.tsx"),
        route("webhooks", "routes/back-office/webhooks.tsx"),
        // The quick jump's results: orders, customers and licences, each for the roles that may see them.
        route("search", "routes/back-office/search.tsx"),
      ]),
    ]),
  ]),
  ...devOnly,
] satisfies RouteConfig;
